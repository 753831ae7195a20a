"""Starting the zygote of a local job's worker ranks (`zygote.py`), beside its mpiexec.

The command that starts `run -n N`'s mpiexec makes the zygote's listening socket first, so that
a stub connecting before the zygote is ready waits in the socket's queue, and gives it to the
zygote, a process of its own (`python -m engine.scheduler.zygote`), with the job's environment.
The worker ranks' command is then the stub's (`rank_stub.py`) with the socket's address, and
the command a rank runs without a zygote, which the stub runs in its place if need be.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping

LISTENER_VARIABLE = "SWIFTCLOUD_ZYGOTE"  # in the zygote: "DESCRIPTOR:PID", its socket and its starter
STUB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rank_stub.py")


@contextlib.contextmanager
def started(env: Mapping[str, str], alone: list[str]) -> Iterator[tuple[subprocess.Popen[bytes], list[str]]]:
    """A zygote for one job with environment `env`: (its process, the worker ranks' command,
    whose stub runs `alone` in its place if the zygote cannot serve it). Ended when the block
    is left."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    address = f"\0swiftcloud-zygote-{os.getpid()}-{os.urandom(8).hex()}"
    try:
        listener.bind(address)
        listener.listen(128)  # every stub of the job may connect before the zygote is ready
        process = subprocess.Popen([sys.executable, "-m", "engine.scheduler.zygote"],
                                   env={**env, LISTENER_VARIABLE: f"{listener.fileno()}:{os.getpid()}"},
                                   pass_fds=(listener.fileno(),), stdin=subprocess.DEVNULL)
    finally:
        listener.close()
    try:
        yield process, [sys.executable, "-I", "-S", STUB, address[1:], *alone]
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        process.wait()
