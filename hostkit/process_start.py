"""When a process started, and whether it has ended, read from /proc/PID/stat: with its PID,
its start is what tells it from a later process given the same number. In clock ticks since
boot (field 22), and in seconds since the epoch as psutil's `create_time` computes it (boot
time from /proc/stat plus the ticks), so that records made either way compare. Standard
library only, so that a launcher that must start fast (cluster.node_exec) can use it, and so
that checking on a process costs no import of psutil (8 ms)."""

from __future__ import annotations

import functools
import os

from hostkit.procfs import read_proc

ENDED = ("Z", "X")  # the states of a process that has ended: zombie, dead


def start_ticks(pid: int) -> int | None:
    """Process `pid`'s start time in clock ticks since boot; None if it is gone."""
    fields = stat_fields(pid)
    return int(fields[19]) if fields is not None else None


def start_time(pid: int) -> float | None:
    """Process `pid`'s start time in seconds since the epoch; None if it is gone."""
    fields = stat_fields(pid)
    return None if fields is None else _seconds(fields)


def running_since(pid: int) -> float | None:
    """Process `pid`'s start time in seconds since the epoch while it runs; None once it has
    ended (a zombie, its exit status not yet collected) or is gone."""
    fields = stat_fields(pid)
    return None if fields is None or fields[0] in ENDED else _seconds(fields)


def is_zombie(pid: int) -> bool:
    """Has process `pid` ended, its exit status not yet collected (or is it gone)?"""
    fields = stat_fields(pid)
    return fields is None or fields[0] in ENDED


def _seconds(fields: list[str]) -> float:
    return _boot_time() + int(fields[19]) / os.sysconf("SC_CLK_TCK")


def stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's name (which may hold spaces and
    parentheses), the state first; None if the process is gone."""
    try:
        fields = read_proc(f"/proc/{pid}/stat").decode("ascii", errors="replace").rpartition(")")[2].split()
    except OSError:
        return None
    return fields if len(fields) > 19 and fields[19].isdigit() else None


@functools.cache
def _boot_time() -> float:
    """When this host booted, in seconds since the epoch (`btime` in /proc/stat)."""
    with open("/proc/stat", encoding="ascii") as stat:
        for line in stat:
            if line.startswith("btime "):
                return float(line.split()[1])
    raise OSError("/proc/stat has no btime line")
