"""What mpiexec starts for a rank of `run -n N`: a stub whose rank the zygote forks
(`zygote.py`, started by `zygote_start.py`), run as `python -I -S rank_stub.py ADDRESS COMMAND...`.

It starts in a few milliseconds: no site, no module of ours, only the interpreter's C modules.
It connects to the zygote at ADDRESS (a Unix socket: a file when ADDRESS is absolute, else
abstract), hands it its working directory, COMMAND (which says what the rank is: the engine or
a worker), its environment and descriptors (the standard streams, and the PMI socket the
launcher gave it), and learns its rank's PID. It then stands for the
rank towards the launcher: the signals it gets go on to the rank, and it ends as the rank
ended, by the same signal if one killed it.
If the zygote cannot be reached, or turns the stub away, the stub execs COMMAND, the worker
rank's own (`launch.worker_rank_command`, or the engine's command line), and is a rank as those
started without a zygote are.
"""

import _signal
import _socket
import os
import struct
import sys

WORD = struct.Struct("!i")  # as zygote.WORD: this script imports nothing of ours
FORWARDED = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP, _signal.SIGUSR1, _signal.SIGUSR2)


def become_a_rank_ourselves() -> None:
    os.execv(sys.argv[2], sys.argv[2:])


def connect(connection: _socket.socket, address: str) -> None:
    """A socket file's path (through its directory's descriptor if it is too long for a socket
    address, as the zygote bound it), or an abstract name."""
    if not address.startswith("/"):
        connection.connect("\0" + address)
    elif len(address.encode()) < 108:
        connection.connect(address)
    else:
        directory = os.open(os.path.dirname(address), os.O_PATH | os.O_DIRECTORY)
        try:
            connection.connect(f"/proc/self/fd/{directory}/{os.path.basename(address)}")
        finally:
            os.close(directory)


def receive_word(connection: _socket.socket) -> int | None:
    data = connection.recv(WORD.size)
    return WORD.unpack(data)[0] if len(data) == WORD.size else None


def main() -> None:
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_SEQPACKET)
    targets = [0, 1, 2] + [int(os.environ[name]) for name in ("PMI_FD", "HYDI_CONTROL_FD") if name in os.environ]
    command = sys.argv[2:]
    request = "\0".join([os.getcwd(), ",".join(map(str, targets)), str(len(command)), *command]
                        + [f"{name}={value}" for name, value in os.environ.items()])
    try:
        connect(connection, sys.argv[1])
        connection.sendmsg([request.encode("utf-8", "surrogateescape")],
                           [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, struct.pack(f"{len(targets)}i", *targets))])
        rank = receive_word(connection)
    except OSError:
        rank = None
    if rank is None:
        connection.close()
        become_a_rank_ourselves()
        return
    for signum in FORWARDED:
        _signal.signal(signum, lambda signum, frame: os.kill(rank, signum))
    ended = receive_word(connection)
    if ended is None:  # the zygote is gone: so is what would have told us how the rank ended
        os.kill(rank, _signal.SIGKILL)
        os._exit(1)
    if ended < 0:
        if -ended != _signal.SIGKILL:
            _signal.signal(-ended, _signal.SIG_DFL)
        os.kill(os.getpid(), -ended)
    os._exit(ended if ended >= 0 else 128 - ended)


main()
