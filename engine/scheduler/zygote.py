"""The ranks of `run -n N`, forked from one process that has imported what they need.

Each rank of a job on this host used to start an interpreter, import the same modules and load
MPI's library: about 45 ms of CPU, nine times over on `run -n 9`, on the two cores the engine's
start waits for. Now the command that starts the job also starts a zygote (`zygote_start`): one
process that imports a worker rank's modules and loads mpi4py's MPI library (MPI itself not
started), then waits on a socket. What mpiexec starts for a rank is a stub (`rank_stub.c`): it
hands the zygote its environment, its working directory, the rank's own command and the
descriptors the launcher gave it (standard streams, the PMI socket), and the zygote forks the
rank, which takes them over and goes on as that command would: a worker rank
(`launch.worker_main`), or rank 0, the engine, which runs the command line (`python -m
swiftcloud run --mpi ...`) as a new interpreter would. The stub stays as the launcher's process:
it passes on the signals it gets and ends as its rank ended (the zygote reports how). A rank
whose stub is gone (killed with its job) kills itself, and a worker's guard then ends its apps,
as for any rank.

The zygote serves only processes of its own user (`SO_PEERCRED`), and only those two commands.
It dies with the command that started it, which ends it once the job is over. The ranks of `run
--cluster` come from a zygote too, on the host: each rank joins the network, host name and mount
namespaces of its stub, i.e. its emulated node, before it takes the stub's directory, and the
stub's cgroups once MPI is up (`hostkit.namespaces`, `launch.enter_node_cgroups`;
docs/cluster.md says what this changes against real nodes).
There rank 0 gains most: its stub starts on the first node through mpiexec, node-exec and
Hydra's proxy, after the zygote is ready, and an interpreter of its own then made it the last
rank to reach `MPI_Init`. A rank the zygote cannot serve starts as before, in a process of its
own; so do the ranks of jobs started otherwise (over hosts a resource manager gave, by a user's
own mpiexec).
"""

from __future__ import annotations

import array
import contextlib
import fcntl
import importlib
import os
import resource
import runpy
import select
import signal
import socket
import struct
import sys
import threading
from typing import NamedTuple

from engine.scheduler.lifetime import die_with_parent
from engine.scheduler.zygote_start import LISTENER_VARIABLE
from hostkit import namespaces
from hostkit.program import swiftcloud_command
from hostkit.process_end import exit_without_teardown, foreground_threads
from hostkit.startup import pause_collection

MAX_REQUEST = 1 << 20  # a stub's environment and directory
MAX_DESCRIPTORS = 8
# What every worker rank imports, and the task runner its first session unpickles.
PRELOADED = ("engine.scheduler.mpi", "engine.task.run")
WORD = struct.Struct("!i")  # the rank's PID, then its exit code (negative: the signal that ended it)


class Request(NamedTuple):
    """What a stub hands over: its working directory, the descriptor numbers its descriptors
    have in it (in the order they came), its environment, and what the rank is: the words of
    the engine's command line (rank 0's `swiftcloud run --mpi ...`), or None for a worker."""

    directory: str
    targets: list[int]
    env: dict[str, str]
    engine_words: list[str] | None


def main() -> None:
    """The zygote: import and load what a worker rank needs, then fork a rank per stub."""
    pause_collection()  # as any worker rank (hostkit.startup); each rank resumes it
    die_with_parent(signal.SIGKILL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the job's to handle, not ours
    descriptor, starter = os.environ.pop(LISTENER_VARIABLE).split(":")
    listener = socket.socket(fileno=int(descriptor))
    if os.getppid() != int(starter):  # the command died before we asked to die with it
        return
    from engine.scheduler import launch  # deferred, as every import below: the collector is paused first

    for name in PRELOADED:
        importlib.import_module(name)
    launch.load_mpi()
    serve(listener)


def serve(listener: socket.socket) -> None:
    """Fork a rank for each stub that connects; tell each stub its rank's PID, then its end.
    One thread only, so that every fork copies a process no other thread is changing. Two
    descriptors a rank (its pidfd, its stub's connection): the soft limit goes up to the hard
    one, and poll has no ceiling on their numbers, for jobs of many ranks."""
    _, most = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (most, most))
    ranks: dict[int, tuple[int, socket.socket]] = {}  # pidfd of a rank -> (its PID, its stub)
    watched = select.poll()
    watched.register(listener, select.POLLIN)
    while True:
        for handle, _ in watched.poll():
            if handle == listener.fileno():
                rank = _accept(listener, ranks)
                if rank is not None:
                    watched.register(rank, select.POLLIN)
                continue
            watched.unregister(handle)
            pid, stub = ranks.pop(handle)
            os.close(handle)
            _, status = os.waitpid(pid, 0)
            with contextlib.suppress(OSError):
                stub.sendall(WORD.pack(os.waitstatus_to_exitcode(status)))
            stub.close()


def _accept(listener: socket.socket, ranks: dict[int, tuple[int, socket.socket]]) -> int | None:
    """Serve the stub that connected: fork its rank; the rank's pidfd (None: turned away)."""
    stub, _ = listener.accept()
    try:
        request, descriptors, stub_pid = _request(stub)
    except (OSError, ValueError):
        stub.close()  # the stub starts its rank itself
        return None
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            listener.close()
            stub.close()
            for handle in ranks:
                os.close(handle)
            status = _become_rank(request, descriptors, stub_pid)
        finally:
            exit_without_teardown(status)
    for descriptor in descriptors:
        os.close(descriptor)
    handle = os.pidfd_open(pid)
    ranks[handle] = (pid, stub)
    with contextlib.suppress(OSError):
        stub.sendall(WORD.pack(pid))
    return handle


def _request(stub: socket.socket) -> tuple[Request, list[int], int]:
    """What a stub sent: its directory, its environment, where its descriptors go; the
    descriptors; and its PID. ValueError for a stub of another user, or a malformed request."""
    pid, uid, _ = struct.unpack("3i", stub.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    data, ancillary, _, _ = stub.recvmsg(MAX_REQUEST, socket.CMSG_SPACE(MAX_DESCRIPTORS * 4))
    descriptors = array.array("i")
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            descriptors.frombytes(payload[:len(payload) - len(payload) % descriptors.itemsize])
    try:
        if uid != os.getuid():
            raise ValueError("a stub of another user")
        directory, numbers, count, *fields = data.decode("utf-8", "surrogateescape").split("\0")
        targets = [int(number) for number in numbers.split(",")]
        if len(targets) != len(descriptors):
            raise ValueError("descriptors missing")
        command, entries = fields[:int(count)], fields[int(count):]
        words = engine_words(command)
    except ValueError:
        for descriptor in descriptors:
            os.close(descriptor)
        raise
    env = dict(entry.split("=", 1) for entry in entries if "=" in entry)
    return Request(directory, targets, env, words), list(descriptors), pid


def engine_words(command: list[str]) -> list[str] | None:
    """What a rank whose own command is `command` is: the engine (the words of its command
    line), or a worker (None); ValueError for any other command, which its stub runs itself."""
    from engine.scheduler.launch import worker_rank_command  # deferred as in main (the collector paused first)

    if command == worker_rank_command():
        return None
    entry = swiftcloud_command()
    if command[:len(entry)] == entry and command[len(entry):len(entry) + 2] == ["run", "--mpi"]:
        return command[len(entry):]
    raise ValueError("a command the zygote does not run")


def _become_rank(request: Request, descriptors: list[int], stub_pid: int) -> int:
    """In the forked rank: take over the stub's descriptors, join its node (namespaces now,
    cgroups once MPI is up: on the cluster; on one host there is nothing to join), take its
    directory and environment, die with the stub, and serve as a worker rank or run the
    engine's command line; the rank's exit status."""
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as in any Python process
    targets = request.targets
    # Out of the way first, so that placing one descriptor never closes another still unplaced.
    moved = [fcntl.fcntl(descriptor, fcntl.F_DUPFD, max(targets) + 1) for descriptor in descriptors]
    for descriptor in descriptors:
        os.close(descriptor)
    for descriptor, target in zip(moved, targets):
        os.dup2(descriptor, target)
    keep = set(targets)
    for name in os.listdir("/proc/self/fd"):
        if int(name) not in keep:
            with contextlib.suppress(OSError):
                os.close(int(name))
    if sys.stdout is not None:  # made for the zygote's own standard output, perhaps a terminal
        sys.stdout.reconfigure(line_buffering=os.isatty(1))
    # A session of its own, as Hydra gives every process it starts (the stub's group, in the
    # stub's session, cannot be joined from here). With the kernel's autogroups, a session is
    # also a share of the CPU: ranks left in the command's session shared one share against
    # each app's own (apps start sessions of their own), and the file pipeline's task phase
    # took 7% longer with rank 0 among them.
    os.setsid()
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, os.sched_getaffinity(stub_pid))
    with contextlib.suppress(OSError):  # the stub's, not the zygote's raised one: apps inherit it
        resource.setrlimit(resource.RLIMIT_NOFILE, resource.prlimit(stub_pid, resource.RLIMIT_NOFILE))
    from engine.scheduler.launch import CGROUP_DOORS_VARIABLE  # deferred as in main (the collector paused first)

    try:
        # The emulated node of a stub on the cluster (nothing to join on this host): its cgroups
        # are entered once MPI is up (launch.enter_node_cgroups), its namespaces now.
        doors = namespaces.cgroup_doors(stub_pid)
        namespaces.join_namespaces(stub_pid)
    except OSError as error:
        sys.stderr.write(f"swiftcloud: a worker rank cannot join its node: {error}\n")
        return 1
    os.chdir(request.directory)
    os.environ.clear()
    os.environ.update(request.env)
    if doors:
        os.environ[CGROUP_DOORS_VARIABLE] = ",".join(str(door) for door in doors)
    _die_with(stub_pid)
    if request.engine_words is not None:
        return _run_command_line(request.engine_words)
    from engine.scheduler.launch import worker_main

    return worker_main()


def _run_command_line(words: list[str]) -> int:
    """Rank 0: run `swiftcloud WORDS` as `python -m swiftcloud WORDS` would in a new interpreter
    started in this directory (it ends the process itself, unless a thread it started must be
    waited for); its exit status."""
    sys.path[0] = os.getcwd()  # `python -m` puts the working directory first
    sys.argv = [sys.argv[0], *words]  # the first becomes swiftcloud/__main__.py's path
    try:
        runpy.run_module("swiftcloud", run_name="__main__", alter_sys=True)  # the roof is run, never imported
        status = 0
    except SystemExit as stop:
        status = _exit_status(stop.code)
    except BaseException:  # noqa: BLE001 - as the interpreter would: a traceback, status 1
        import traceback

        traceback.print_exc()
        status = 1
    for thread in foreground_threads():  # as the interpreter waits for them before it exits
        thread.join()
    return status


def _exit_status(code: object) -> int:
    """The exit status `sys.exit(code)` gives a process."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _die_with(stub_pid: int) -> None:
    """Kill this rank when its stub ends (the launcher killed the job): SIGKILL, as the
    launcher would have, and the rank's guard ends its apps."""
    try:
        handle = os.pidfd_open(stub_pid)
    except OSError:
        os.kill(os.getpid(), signal.SIGKILL)
        return

    def watch() -> None:
        select.select([handle], [], [])
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="stub-watch", daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except Exception:  # noqa: BLE001 - the stubs, turned away, start their ranks themselves
        sys.exit(1)
