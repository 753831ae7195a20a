"""One node's part of a store brought up inside a batch job: `python -m batch.store_node`.

The job's driver (`batch.job_store`) starts this as one MPI rank per allocated node
(`srun --ntasks-per-node=1`), or as one plain process for `submit -m local`. Rank 0
starts the store's head (the MosaStore manager, the HDFS NameNode), every rank its
node's daemon (a benefactor, a DataNode) and then the FUSE mount at the same path on
every node. The steps are collective, so a failure on any node reaches rank 0, which
writes the outcome to the ready file the driver waits for: the `[storage.NAME]` table
the run uses, or the error. Then every rank holds its processes until the driver
writes the stop file (ending the step by a signal would let the batch system signal
the daemons too, before they are unmounted) or a signal comes, and stops them: unmount,
daemons in reverse order, the node-local directory deleted (the job's store lives as
long as the job; the driver copies results out before it ends the step).

Each node's address is `$SWIFTCLOUD_NODE_ADDRESS` if set, else the head's is its host
name's and the others' the source address of their route to the head; the node's name
is its host name, which is what the workers on it call themselves.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import sys
import threading
from collections.abc import Callable
from typing import Any, Protocol

from batch.node_roles import ROLES, NodeRole

ADDRESS_ENV = "SWIFTCLOUD_NODE_ADDRESS"
READY_FILE, STOP_FILE = "ready.json", "stop"
STOP_POLL_S = 0.5


class Group(Protocol):
    """What the ranks need of each other: rank 0's value to all, every rank's value to rank 0."""

    rank: int

    def bcast(self, value: Any) -> Any: ...

    def gather(self, value: Any) -> list[Any] | None: ...

    def finish(self) -> None: ...


class Alone:
    """A group of one (`submit -m local`): no MPI needed."""

    rank = 0

    def bcast(self, value: Any) -> Any:
        return value

    def gather(self, value: Any) -> list[Any] | None:
        return [value]

    def finish(self) -> None:
        pass


class MpiGroup:
    """The ranks of this MPI step."""

    def __init__(self) -> None:
        from mpi4py import MPI

        self._comm = MPI.COMM_WORLD
        self.rank = self._comm.Get_rank()

    def bcast(self, value: Any) -> Any:
        return self._comm.bcast(value, root=0)

    def gather(self, value: Any) -> list[Any] | None:
        return self._comm.gather(value, root=0)

    def finish(self) -> None:
        from mpi4py import MPI

        MPI.Finalize()  # with every rank here: it also deletes the job's segment in /dev/shm


def node_address(head: str | None) -> str:
    """The address this node's daemons listen on and advertise."""
    if os.environ.get(ADDRESS_ENV):
        return os.environ[ADDRESS_ENV]
    if head is None:
        return socket.gethostbyname(socket.gethostname())
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect((head.rsplit(":", 1)[0], 9))  # UDP: picks the route, sends nothing
        return probe.getsockname()[0]


def _attempt(step: Callable[[], Any]) -> tuple[Any, str]:
    """Run one step; (its value, "") or (None, why it failed)."""
    try:
        return step(), ""
    except Exception as error:  # any failure must reach rank 0: a rank that raised would leave the others waiting
        return None, f"{socket.gethostname()}: {error}"


def _collective(group: Group, step: Callable[[], Any]) -> str:
    """Every rank runs `step`; rank 0 learns the first failure ("" if none), and so do all."""
    _, error = _attempt(step)
    errors = group.gather(error)
    return group.bcast(next((e for e in errors or [] if e), ""))


def bring_up(role: NodeRole, group: Group) -> tuple[dict[str, Any] | None, str]:
    """The collective start: head, node daemons, head check, mounts. Rank 0 gets the table."""
    node = socket.gethostname()
    head: dict[str, Any] | None = None
    error = ""
    if group.rank == 0:
        head, error = _attempt(lambda: role.start_head(node_address(None)))
    head, error = group.bcast((head, error))
    if error:
        return None, error
    assert head is not None
    error = _collective(group, lambda: role.start_node(head, node_address(role.head_address(head)), node))
    if error:
        return None, error
    nodes = group.gather(node)
    error = group.bcast(_attempt(lambda: role.check_head(head, nodes or []))[1] if group.rank == 0 else None)
    if error:
        return None, error
    error = _collective(group, lambda: role.mount(head, node))
    if error:
        return None, error
    return (role.table(head) if group.rank == 0 else None), ""


def write_ready(path: str, outcome: dict[str, Any]) -> None:
    """Publish the outcome for the driver: written aside, then renamed into place."""
    temporary = f"{path}.part"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(outcome, handle)
    os.replace(temporary, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m batch.store_node", description=__doc__.split("\n\n")[0])
    parser.add_argument("backend", choices=sorted(ROLES))
    parser.add_argument("--node-dir", required=True, help="node-local directory, the same path on every node")
    parser.add_argument("--shared-dir", required=True, help="directory every node sees: secret, logs, ready file")
    parser.add_argument("--mpi", action="store_true", help="one rank per node (else: this node alone)")
    args = parser.parse_args(argv)

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda _signum, _frame: stop.set())
    group: Group = MpiGroup() if args.mpi else Alone()
    role = ROLES[args.backend](args.node_dir, args.shared_dir)
    try:
        table, error = bring_up(role, group)
        if group.rank == 0:
            write_ready(os.path.join(args.shared_dir, READY_FILE),
                        {"error": error} if error else {"table": table})
        stop_file = os.path.join(args.shared_dir, STOP_FILE)
        while not error and not os.path.exists(stop_file) and not stop.is_set():
            stop.wait(STOP_POLL_S)
    finally:
        role.stop(hurry=stop.is_set())
        shutil.rmtree(args.node_dir, ignore_errors=True)
        sys.stdout.flush()
    if stop.is_set():
        # Signalled: other ranks may be gone already, and MPI_Finalize would wait for them.
        os._exit(0)
    group.finish()  # every rank saw the stop file, or the same error
    return 0


if __name__ == "__main__":
    sys.exit(main())
