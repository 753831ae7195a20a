"""Who is calling the file system: the caller's node name, and whether it died by a signal.

Emulated nodes share one mount on one machine, so the writer's node (for
`local` placement and the network emulation) is read from the caller's
environment: `SWIFTCLOUD_NODE` in `/proc/PID/environ`, as exported by the
engine's workers to the apps they start. A process whose environment lacks
it (or cannot be read) is on the mount's own node.

When a process is killed, the kernel closes its files and FUSE sends a
`flush` like any close. `killed_by_signal` tells such a close apart from a
normal one: the process is exiting (PF_EXITING, or already a zombie) and its
exit code (field 52 of /proc/PID/stat) carries a signal number. The client
then discards the file instead of publishing half of it.
"""

from __future__ import annotations

from hostkit.process_start import ENDED, stat_fields
from hostkit.procfs import read_proc

NODE_VARIABLE = b"SWIFTCLOUD_NODE="
PF_EXITING = 0x4


def thread_group(pid: int) -> int:
    """The process (thread group) id of thread `pid`, or `pid` when unknown."""
    try:
        for line in read_proc(f"/proc/{pid}/status").splitlines():
            if line.startswith(b"Tgid:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return pid


def caller_node(pid: int, default: str) -> str:
    """`SWIFTCLOUD_NODE` of process `pid`, else `default`."""
    if pid <= 0:
        return default
    try:
        for entry in read_proc(f"/proc/{pid}/environ").split(b"\x00"):
            if entry.startswith(NODE_VARIABLE):
                value = entry[len(NODE_VARIABLE):].decode(errors="replace").strip()
                return value or default
    except OSError:
        pass
    return default


def killed_by_signal(pid: int) -> bool:
    """True when process `pid` is exiting (or exited) because a signal killed it."""
    if pid <= 0:
        return False
    fields = stat_fields(pid)
    if fields is None or len(fields) < 50:  # gone, or a kernel before 3.5 (no exit code here)
        return False
    state, flags, exit_code = fields[0], int(fields[6]), int(fields[49])
    exiting = bool(flags & PF_EXITING) or state in ENDED
    return exiting and (exit_code & 0x7F) != 0
