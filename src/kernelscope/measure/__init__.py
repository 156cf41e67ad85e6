"""Measurements on the GPU of this machine (``kernelscope ceilings``): the only code of kernelscope that touches a
device. It sits beside :mod:`kernelscope.api` in the layers (only the command line uses it), drives the device through
PyTorch or CuPy (imported lazily, neither is a dependency), and hands plain numbers to the pure analysis
(:mod:`kernelscope.analysis.ceilings`).

:mod:`.ceilings` -- timing with device events (warm-up, repeated samples), the bandwidth and GEMM measurements, and
the backend interface a test can fake; :mod:`.backends` -- the PyTorch and CuPy backends and how one is chosen.
"""
