"""``python -m kernelscope``: same as the ``kernelscope`` command."""

from .cli import main

raise SystemExit(main())
