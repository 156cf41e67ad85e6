"""How a profile measured its durations (:class:`kernelscope.model.Measurement`), read from what each input records.

* ``.ncu-rep`` (:func:`ncu_rep_measurement`, from :func:`.ncu_rep_file.scan_container`): Nsight Compute's clock
  control from the first kernel result's ``ClockStatus`` (locked or not, as executed), else from the GUI's
  ``ProfilerSettings.ClockControlMode``, else from the command line; the replay mode from the command line
  (``--replay-mode``), else the GUI's ``ProfilerSettings.ReplayMode``, else ``range`` when the report holds range
  results; the cache control from the command line only (``--cache-control``; no other record of it exists). A
  recorded command line without one of these options means ncu's default: kernel replay, caches flushed
  (``--cache-control all``), clocks locked at base (``--clock-control base``). Neither a command line nor settings
  recorded: None (not recorded). Settings of an ``ncu`` configuration file (``config.ncu-cfg``) are not on the
  command line: the defaults are assumed there.
* ``ncu --csv`` exports and console text: the tool only (``"ncu"``); nvprof output: ``"nvprof"``; their settings
  are not recorded.
* Timelines (:func:`timeline_measurement`): Nsight Systems (``"nsys"``) and the PyTorch profiler (``"pytorch"``)
  measure each kernel once, in flight among the others: no replay, no cache flush, no clock lock (``"none"``).
"""

from __future__ import annotations

import shlex

from ..model import Measurement

#: ncu's defaults (``ncu --help``): the value a recorded command line without the option means.
NCU_DEFAULTS = {"replay_mode": "kernel", "cache_control": "flush-all", "clock_control": "base"}

_OPTIONS = {"--replay-mode": "replay_mode", "--cache-control": "cache_control", "--clock-control": "clock_control"}
_VALUES = {"all": "flush-all", "flush-all": "flush-all"}

#: Timeline input format id -> the tool that wrote it.
_TIMELINE_TOOLS = {"nsys-sqlite": "nsys", "nsys-stats": "nsys", "kineto": "pytorch"}


def ncu_command_settings(cmdline: str) -> dict[str, str]:
    """``replay_mode`` / ``cache_control`` / ``clock_control`` of an ``ncu`` command line (``--opt value`` or
    ``--opt=value``; the first occurrence counts), ncu's defaults for the options it does not give."""
    try:
        words = shlex.split(cmdline)
    except ValueError:  # an unbalanced quote: plain words
        words = cmdline.split()
    found: dict[str, str] = {}
    for i, word in enumerate(words):
        option, eq, value = word.partition("=")
        if option not in _OPTIONS or _OPTIONS[option] in found:
            continue
        if not eq:
            value = words[i + 1] if i + 1 < len(words) else ""
        value = value.strip().lower()
        if value:
            found[_OPTIONS[option]] = _VALUES.get(value, value)
    return {**NCU_DEFAULTS, **found}


def ncu_rep_measurement(cmdline: str | None, settings: dict[str, str], clock_status: tuple[bool, bool] | None,
                        range_results: int = 0) -> Measurement:
    """The measurement of an ``.ncu-rep`` report from what its container records (see the module docstring).

    Args:
        cmdline: the recorded ``ncu`` command line, or None.
        settings: the GUI's ``ProfilerSettings`` strings (``"ReplayMode"``, ``"ClockControlMode"``), maybe empty.
        clock_status: ``(RequestedLock, ExecutedLocked)`` of the first kernel result, or None.
        range_results: range results the report holds (range replay).
    """
    cmd = ncu_command_settings(cmdline) if cmdline else {}
    replay = cmd.get("replay_mode") or _lower(settings.get("ReplayMode"))
    if replay is None and range_results:
        replay = "range"
    clock = cmd.get("clock_control") or _lower(settings.get("ClockControlMode"))
    if clock_status is not None:
        clock = "base" if clock_status[1] else "none"  # what was executed, whatever was asked
    return Measurement(tool="ncu", replay_mode=replay, cache_control=cmd.get("cache_control"), clock_control=clock)


def timeline_measurement(format_id: str) -> Measurement:
    """The measurement of a program timeline of this input format (see the module docstring)."""
    return Measurement(tool=_TIMELINE_TOOLS.get(format_id), replay_mode="none", cache_control="none",
                       clock_control="none")


def _lower(value: str | None) -> str | None:
    return value.strip().lower() or None if value else None
