"""The analysis core: pure functions over frozen dataclasses, no I/O and no printing.

:mod:`.roofline` (arithmetic intensity, ridge points, attainable/achieved), :mod:`.stalls` (warp-stall breakdown),
:mod:`.occupancy` (theoretical occupancy as the hardware allocates), :mod:`.engine` (rules and findings),
:mod:`.kernel_rules` (one rule per concern), :mod:`.diagnosis` (a launch's and a report's diagnosis),
:mod:`.compare` (before/after), :mod:`.timeline` (where a program's time goes), :mod:`.selection` (kernels by name).
"""
