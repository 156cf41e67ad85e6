"""kernelscope's version (one place; the package and every output's provenance read it here)."""

__version__ = "0.2.0"
