"""When a process started, in clock ticks since boot (field 22 of /proc/PID/stat): with its
PID, what tells it from a later process given the same number. Standard library only, so
that a launcher that must start fast (cluster.node_exec) can use it."""

from __future__ import annotations


def start_ticks(pid: int) -> int | None:
    """Process `pid`'s start time in clock ticks since boot; None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return int(stat.read().rpartition(")")[2].split()[19])
    except (OSError, ValueError, IndexError):
        return None
