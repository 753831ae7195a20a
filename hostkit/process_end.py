"""How a process of ours ends: its exit handlers run and its output is flushed, but the
interpreter's teardown, which frees every module and object one by one, is skipped.

That teardown is pure cost at the end of a process: 7 ms of the `swiftcloud` command that
supervises an MPI job, 17 ms of an engine that compiled its script, and 30-70 ms of a worker
rank's exit while nine processes share two cores, all of it on the path from a run's last
task to the user's prompt. The C library's exit still runs the shared libraries' destructors:
MPICH's launcher kills the whole job when a finalized rank skips them (`os._exit`).
"""

from __future__ import annotations

import atexit
import ctypes
import sys
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:  # imported only by a process that started a thread
    import threading

_LIBC = ctypes.CDLL(None, use_errno=True)


def exit_without_teardown(status: int) -> NoReturn:
    """End this process now with `status`, after its atexit handlers."""
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    _LIBC.exit(status)
    raise AssertionError("exit returned")  # unreachable: the C library's exit never returns


def end_command(status: int) -> int:
    """The end of the `swiftcloud` command: exit without teardown, unless a thread that is
    not a daemon still runs (the interpreter's own exit waits for those): then return
    `status` for the usual exit."""
    if foreground_threads():
        return status
    exit_without_teardown(status)


def foreground_threads() -> list[threading.Thread]:
    """The threads besides the main one that are not daemons and still run: those the
    interpreter's own exit waits for."""
    threading = sys.modules.get("threading")  # not imported: no thread was ever started
    if threading is None:
        return []
    return [thread for thread in threading.enumerate()
            if thread.is_alive() and not thread.daemon and thread is not threading.main_thread()]
