"""Starting the zygote of a job's ranks (`zygote.py`), beside its mpiexec.

The command that starts `run -n N`'s mpiexec makes the zygote's listening socket first, so that
a stub connecting before the zygote is ready waits in the socket's queue, and gives it to the
zygote, a process of its own (`python -m engine.scheduler.zygote`), with the job's environment.
A rank's command is then the stub's (`rank_stub.c`, which ./setup.sh builds into the
environment's scripts as `swiftcloud-rank-stub`) with the socket's address, followed by the
command the rank runs without a zygote (the engine's, or a worker rank's), which the zygote
reads to know what the rank is, and which the stub runs in its place if need be. Where the stub
is not built, there is no zygote: every rank starts as an interpreter of its own.

The socket is abstract (nothing left on disk) when every rank runs in this network namespace.
Ranks on the emulated cluster's nodes, each a network namespace of its own, cannot reach an
abstract socket of this one: there it is a file, in a directory of the cluster's that `cluster
down` removes, should a killed run leave it behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator, Mapping

LISTENER_VARIABLE = "SWIFTCLOUD_ZYGOTE"  # in the zygote: "DESCRIPTOR:PID", its socket and its starter
SOCKET_PATH_BYTES = 108  # sun_path, with its closing NUL
STUB = os.path.join(sysconfig.get_path("scripts"), "swiftcloud-rank-stub")  # built by ./setup.sh from rank_stub.c


def installed() -> bool:
    """Is the stub built? Without it there is no zygote: every rank starts as an interpreter."""
    return os.access(STUB, os.X_OK)


@contextlib.contextmanager
def started(env: Mapping[str, str],
            socket_directory: str | None = None) -> Iterator[tuple[subprocess.Popen[bytes], list[str]]]:
    """A zygote for one job with environment `env`: (its process, the stub's command, to which
    a rank's own command is appended: the zygote forks that rank, or the stub runs the command
    in its place). With a `socket_directory`, its socket is a file in there, for stubs in other
    network namespaces. Ended when the block is left."""
    directory = _private_directory(socket_directory) if socket_directory is not None else None
    # What a stub is given: the socket file's path, or the abstract name without its leading NUL.
    address = (os.path.join(directory, "socket") if directory is not None
               else f"swiftcloud-zygote-{os.getpid()}-{os.urandom(8).hex()}")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        if directory is None:
            listener.bind(f"\0{address}")
        else:
            _bind_file(listener, address)
        listener.listen(128)  # every stub of the job may connect before the zygote is ready
        process = subprocess.Popen([sys.executable, "-m", "engine.scheduler.zygote"],
                                   env={**env, LISTENER_VARIABLE: f"{listener.fileno()}:{os.getpid()}"},
                                   pass_fds=(listener.fileno(),), stdin=subprocess.DEVNULL)
    except BaseException:
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)
        raise
    finally:
        listener.close()
    try:
        yield process, [STUB, address]
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        process.wait()
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)


def _private_directory(parent: str) -> str:
    """A new directory of ours for the socket file, in `parent` (made if need be)."""
    os.makedirs(parent, mode=0o700, exist_ok=True)
    return tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=parent)


def _bind_file(listener: socket.socket, path: str) -> None:
    """Bind to `path`, even one longer than a socket address holds (108 bytes): through the
    directory's descriptor in /proc, as the stub connects (rank_stub.c)."""
    if len(path.encode()) < SOCKET_PATH_BYTES:
        listener.bind(path)
        return
    directory = os.open(os.path.dirname(path), os.O_PATH | os.O_DIRECTORY)
    try:
        listener.bind(f"/proc/self/fd/{directory}/{os.path.basename(path)}")
    finally:
        os.close(directory)
