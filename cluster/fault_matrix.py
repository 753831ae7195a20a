"""The storage fault matrix: a store's daemon killed (SIGKILL) under a running workflow, on an
emulated cluster, and what the workflow sees.

Each cell runs a workflow of `2 * writers + 1` tasks (by default 201: 100 writers copy a
256 KiB template, 100 `sha256sum`s read them, one `cat` merges the sums) with `run --cluster`
on one store, and once a fifth of them have ended (per the run log), one of them on the
daemon's node, kills that daemon with `cluster.faults`:
a daemon on a node that holds data (benefactor, DataNode, chirp_server), the store's
metadata service (manager, NameNode, the directory's chirp_server, MinIO) followed by its
restart, or a node's FUSE client. Then either

- `completed`: the run ends with status 0, or
- `resumed`: it stops with status 1 and an error that names the store's mount, the node and
  the file, and after the daemon is back `run --resume` ends with status 0;

and in both, the outputs are the clean run's: every output's digest in the run log is the
digest of the bytes a clean run makes (computed here, independently), and `swiftcloud
verify` reads every recorded file back from the store and finds it whole. Anything else
(a hang past `CELL_TIMEOUT_S`, a traceback, an internal error, a wrong byte, a visible
temporary) fails the cell. `bench/faults.py` prints the matrix; tests/cluster/test_faults.py
runs it in the suite.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from blake3 import blake3

from cluster import faults
from cluster.launch import runs_environment
from cluster.node_exec import on_node
from cluster.state import ClusterState
from cluster.stores import chirp, hdfs, mosastore
from cluster.stores.common import CLIENT
from engine.observe.runlog import events_so_far
from engine.verify import recorded_run
from hostkit.errors import ServiceError
from hostkit.program import swiftcloud_command
from mosastore.placement import PLACEMENT_XATTR

WRITERS = 100  # the workflow's writers (and digests): bench/faults.py's size
CELL_TIMEOUT_S = 300.0  # per run: a cell still running then has hung
TEMPLATE_BYTES = 256 * 1024
SCRIPT = """\
app (file o) writer (file t, int i) { "cp" t o }
app (file o) digest (file i) { "sha256sum" @stdin=i @stdout=o }
app (file o) merge (file d[]) { "cat" d @stdout=o }
file template = input_file("template.dat");
file sums[];
foreach i in [1:WRITERS] {
  file data <sprintf("data/%i.dat", i)> = writer(template, i);
  sums[i] = digest(data);
}
file merged <"merged.txt"> = merge(sums);
"""
REPLICATED_DIR = "r2"
# The stores as the cells use them: the mounts, HDFS staged with one copy of each block, S3
# staged, and MosaStore with two copies of every file under `r2/` (a placement hint).
SETTINGS = f"""\
[storage.hdfs-shared]
backend = "hdfs"
mode = "shared"

[storage.hdfs-r1]
backend = "hdfs"
replication = 1

[storage.chirp-shared]
backend = "chirp"
mode = "shared"

[storage.mosastore-r2]
backend = "mosastore"
subdir = "{REPLICATED_DIR}"
"""
# The tables on a mount (the others are staged): their store's mount point on every node,
# and the directory under it their files are in, where no temporary may be seen.
MOUNTED: dict[str, tuple[Callable[[ClusterState], str], str]] = {
    "mosastore": (mosastore.mountpoint, ""), "mosastore-r2": (mosastore.mountpoint, REPLICATED_DIR),
    "hdfs-shared": (hdfs.mountpoint, ""), "chirp-shared": (chirp.mountpoint, "")}
NODES = 4  # HDFS places 3 copies; with a 4th node, the NameNode has a live one to use instead


@dataclass(frozen=True)
class Cell:
    """One fault: the store table the run uses, the daemon killed (record, role, node), how
    many seconds later it is started again while the run goes on (None: once the run has
    stopped, or never if it finishes), and what the workflow must do (`completed` or
    `resumed`)."""

    store: str
    table: str
    record: str
    role: str
    node: str
    restart_after_s: float | None
    expect: str

    @property
    def name(self) -> str:
        return f"{self.store}: {self.role} on {self.node}"


CELLS = (
    Cell("mosastore, 2 copies", "mosastore-r2", "mosastore", "benefactor", "node3", None, "completed"),
    Cell("mosastore, 1 copy", "mosastore", "mosastore", "benefactor", "node3", None, "resumed"),
    Cell("mosastore", "mosastore", "mosastore", "manager", "node1", 0.0, "completed"),
    Cell("mosastore", "mosastore", "mosastore", "client", "node2", None, "resumed"),
    Cell("hdfs, 3 copies (mount)", "hdfs-shared", "hdfs", "datanode", "node3", None, "completed"),
    Cell("hdfs, 1 copy (staged)", "hdfs-r1", "hdfs", "datanode", "node3", None, "resumed"),
    Cell("hdfs (mount)", "hdfs-shared", "hdfs", "namenode", "node1", 0.0, "completed"),
    Cell("hdfs (mount)", "hdfs-shared", "hdfs", "client", "node2", None, "resumed"),
    Cell("chirp (mount), data", "chirp-shared", "chirp", "chirp", "node3", 5.0, "completed"),
    Cell("chirp (mount), directory", "chirp-shared", "chirp", "chirp", "node1", 0.0, "completed"),
    Cell("chirp (mount)", "chirp-shared", "chirp", "client", "node2", None, "resumed"),
    Cell("s3 (staged)", "s3", "minio", "s3", "s3", 0.0, "completed"),
)
# Only in bench/faults.py (minutes, waiting out the retry window): a Chirp data server that
# stays down, so its files cannot be read.
LONG_CELLS = (Cell("chirp (mount), data", "chirp-shared", "chirp", "chirp", "node3", None, "resumed"),)
STORAGE = ("mosastore", "hdfs", "chirp", "s3")  # what `cluster up` starts for the cells


@dataclass
class Outcome:
    """What a cell did: `outcome` is `completed`, `resumed` or `failed`; `problems` lists what
    went wrong (empty when the cell holds); `fault_s` and `total_s` are seconds from the run's
    start. The time to recover is what the fault added: `total_s` less `clean_s`."""

    cell: Cell
    outcome: str = "failed"
    problems: list[str] = field(default_factory=list)
    fault_s: float = 0.0
    total_s: float = 0.0  # the run, and its resume if any
    clean_s: float | None = None  # a run on the same store without a fault (`Matrix.clean`)
    leftovers: list[str] = field(default_factory=list)  # hidden temporaries a killed client left
    error: str = ""  # the stopped run's message

    @property
    def holds(self) -> bool:
        return not self.problems and self.outcome == self.cell.expect

    @property
    def recovery_s(self) -> float | None:
        return None if self.clean_s is None else self.total_s - self.clean_s

    def as_dict(self) -> dict[str, object]:
        return {"store": self.cell.store, "table": self.cell.table, "daemon": self.cell.role,
                "node": self.cell.node, "expect": self.cell.expect, "outcome": self.outcome,
                "holds": self.holds, "problems": self.problems, "fault_s": round(self.fault_s, 2),
                "total_s": round(self.total_s, 2),
                "clean_s": None if self.clean_s is None else round(self.clean_s, 2),
                "recovery_s": None if self.recovery_s is None else round(self.recovery_s, 2),
                "leftovers": self.leftovers, "error": self.error}


class Matrix:
    """Runs cells on the cluster under `state_dir`, each in a directory of its own under `work`,
    with a workflow of `writers` writers and as many digests (the suite's is smaller than the
    benchmark's)."""

    def __init__(self, cluster: ClusterState, state_dir: str, work: str, writers: int = WRITERS) -> None:
        self.cluster = cluster
        self.writers = writers
        self._runs: list[subprocess.Popen[str]] = []  # the runs of the cell under way
        self.env = runs_environment(state_dir)
        self.work = work
        os.makedirs(work, exist_ok=True)
        self.config = os.path.join(work, "swiftcloud.toml")
        with open(self.config, "w", encoding="utf-8") as handle:
            handle.write(SETTINGS)
        self.template = os.path.join(work, "template.dat")
        with open(self.template, "wb") as handle:
            handle.write(os.urandom(TEMPLATE_BYTES))
        self.expected = expected_digests(self.template, writers)
        self._clean: dict[str, float] = {}
        self._on_head(["python3", "-c", PLACEMENT_HINT, mosastore.mountpoint(self.cluster), REPLICATED_DIR,
                       PLACEMENT_XATTR])

    def clean(self, table: str) -> float:
        """Seconds a run on `table` takes with no fault (the first time it is asked: then kept)."""
        if table not in self._clean:
            directory = self._directory(f"{table}-clean")
            begin = time.monotonic()
            status, stderr = _finish(self._start(table, directory, os.path.join(directory, "run")))
            if status != 0:
                raise ServiceError(f"a run on {table} with no fault failed: {_tail(stderr)}")
            self._clean[table] = time.monotonic() - begin
        return self._clean[table]

    def _directory(self, name: str) -> str:
        """A fresh directory for a run, with the workflow and its input."""
        directory = os.path.join(self.work, name)
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
        with open(os.path.join(directory, "w.swift"), "w", encoding="utf-8") as handle:
            handle.write(workflow(self.writers))
        shutil.copyfile(self.template, os.path.join(directory, "template.dat"))
        return directory

    def run(self, cell: Cell) -> Outcome:
        """One cell; whatever it killed is running again when it returns."""
        outcome = Outcome(cell, clean_s=self._clean.get(cell.table))
        directory = self._directory(f"{cell.table}-{cell.role}-{cell.node}")
        run_dir = os.path.join(directory, "run")
        begin = time.monotonic()
        killed: faults.Killed | None = None
        self._runs = []
        before = self._temporaries(cell)
        try:
            first = self._start(cell.table, directory, run_dir)
            if not self._wait_for_ends(first, run_dir, begin, cell.node, outcome):
                return outcome
            killed = faults.kill(self.cluster, cell.record, cell.role, cell.node)
            outcome.fault_s = time.monotonic() - begin
            if cell.restart_after_s is not None:
                time.sleep(cell.restart_after_s)
                faults.restart(self.cluster, killed)
                killed = None
            status, stderr = _finish(first)
            _screen(stderr, outcome)
            runs = [run_dir]
            if status == 0:
                outcome.outcome = "completed"
            else:
                outcome.error = stderr.strip()
                _check_stop(stderr, cell, outcome)
                if killed is not None:
                    faults.restart(self.cluster, killed)
                    killed = None
                runs.append(run_dir + "-resumed")
                status, stderr = _finish(self._start(cell.table, directory, runs[-1], "--resume-from", run_dir))
                _screen(stderr, outcome)
                if status == 0:
                    outcome.outcome = "resumed"
                else:
                    outcome.problems.append(f"--resume ended with status {status}: {_tail(stderr)}")
            outcome.total_s = time.monotonic() - begin
            if outcome.outcome != "failed":
                self._check_outputs(cell, runs, outcome, before)
        except subprocess.TimeoutExpired:
            outcome.problems.append(f"a run was still going after {CELL_TIMEOUT_S:g} s")
        finally:
            for run in self._runs:
                _end(run)
            if killed is not None:
                faults.restart(self.cluster, killed)
        return outcome

    def _start(self, table: str, directory: str, run_dir: str, *more: str) -> subprocess.Popen[str]:
        argv = swiftcloud_command("run", "--cluster", "-n", str(len(self.cluster.nodes) + 1), "--storage", table,
                                  "--config", self.config, "--run-dir", run_dir, *more, "w.swift")
        run = subprocess.Popen(argv, cwd=directory, env=self.env, text=True, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self._runs.append(run)
        return run

    def _wait_for_ends(self, run: subprocess.Popen[str], run_dir: str, begin: float, node: str,
                       outcome: Outcome) -> bool:
        """Wait until a fifth of the tasks have ended, and one of them on `node` if the run has a
        worker there: a DataNode killed before its node stored anything of the run's loses
        nothing (in one run of the suite, a cell that must stop completed); False (a problem
        noted) if the run did not get there."""
        workers_there = node in {each.name for each in self.cluster.nodes}
        while True:
            ends = task_ends(run_dir)
            if len(ends) >= tasks_before_fault(self.writers) and (
                    not workers_there or any(end.get("node") == node for end in ends)):
                return True
            if run.poll() is not None:
                outcome.problems.append(f"the run ended before the fault: {_tail(_finish(run)[1])}")
                return False
            if time.monotonic() - begin > CELL_TIMEOUT_S:
                outcome.problems.append("the run did not get going")
                return False
            time.sleep(0.05)

    def _check_outputs(self, cell: Cell, runs: list[str], outcome: Outcome, before: list[str]) -> None:
        """The outputs' digests in the run log are a clean run's, the store holds them whole,
        and no temporary of a failed write is visible (but those there `before` the cell)."""
        written: dict[str, str] = {}
        for run_dir in runs:
            written.update(recorded_run(run_dir).digests)
        for path, digest in self.expected.items():
            if written.get(path) != digest:
                outcome.problems.append(f"{path}: recorded {written.get(path, 'nothing')}, a clean run writes {digest}")
        verify = subprocess.run(swiftcloud_command("cluster", "exec", self.cluster.nodes[0].name, "--",
                                                   *swiftcloud_command("verify", runs[-1])),
                                env=self.env, capture_output=True, text=True, timeout=CELL_TIMEOUT_S)
        if verify.returncode != 0:
            outcome.problems.append(f"verify found a difference: {_tail(verify.stdout + verify.stderr)}")
        if cell.table in MOUNTED:
            found = [path for path in self._temporaries(cell) if path not in before]
            if cell.role == CLIENT:
                # A client killed between publishing a file and answering for it can leave the
                # writer's hidden temporary behind; the next publish of that name removes it.
                outcome.leftovers = found
            elif found:
                outcome.problems.append("temporaries are visible on the mount: " + ", ".join(found[:5]))

    def _temporaries(self, cell: Cell) -> list[str]:
        """The hidden temporaries of writers on `cell`'s mount (none for a staged store)."""
        if cell.table not in MOUNTED:
            return []
        mountpoint, directory = MOUNTED[cell.table]
        return self._on_head(["find", os.path.join(mountpoint(self.cluster), directory), "-maxdepth", "2", "-name",
                              ".*.part*"]).split()

    def _on_head(self, argv: list[str]) -> str:
        """Run `argv` on the first node; its output."""
        done = subprocess.run(on_node(self.cluster.nodes[0], argv, self.work), env=self.env, capture_output=True,
                              text=True, timeout=CELL_TIMEOUT_S)
        if done.returncode != 0:
            raise ServiceError(f"{argv[0]} failed on {self.cluster.nodes[0].name}: {done.stderr.strip()}")
        return done.stdout


PLACEMENT_HINT = ("import os, sys; d = os.path.join(sys.argv[1], sys.argv[2]); os.makedirs(d, exist_ok=True); "
                  "os.setxattr(d, sys.argv[3], b'replicate:2')")


def workflow(writers: int = WRITERS) -> str:
    """The cells' workflow: `writers` writers, as many digests, one merge (`2 * writers + 1` tasks)."""
    return SCRIPT.replace("WRITERS", str(writers))


def tasks(writers: int = WRITERS) -> int:
    """How many tasks the workflow of `writers` writers has."""
    return 2 * writers + 1


def tasks_before_fault(writers: int = WRITERS) -> int:
    """How many of the workflow's tasks end before the fault: a fifth."""
    return tasks(writers) // 5


def expected_digests(template: str, writers: int) -> dict[str, str]:
    """What a clean run of `writers` writers writes, by logical path, from the template alone."""
    with open(template, "rb") as handle:
        data = handle.read()
    line = f"{hashlib.sha256(data).hexdigest()}  -\n".encode()
    expected = {f"data/{i}.dat": "blake3:" + blake3(data).hexdigest() for i in range(1, writers + 1)}
    expected["merged.txt"] = "blake3:" + blake3(line * writers).hexdigest()
    return expected


def _finish(run: subprocess.Popen[str]) -> tuple[int, str]:
    _, stderr = run.communicate(timeout=CELL_TIMEOUT_S)
    return run.returncode, stderr


def _end(run: subprocess.Popen[str]) -> None:
    """End a run still going (a cell that failed): SIGTERM, so it ends its ranks and apps."""
    if run.poll() is None:
        run.terminate()
        try:
            run.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            run.kill()
            run.communicate()


def _screen(stderr: str, outcome: Outcome) -> None:
    """What no run may print, whatever the fault."""
    for sign in ("Traceback", "internal error"):
        if sign in stderr:
            outcome.problems.append(f"the run printed {sign!r}: {_tail(stderr)}")


def _check_stop(stderr: str, cell: Cell, outcome: Outcome) -> None:
    """A stopped run names the failed task, and the store: on a mount, the mount and the node
    the task ran on (what its client reported follows); staged, the store and the file."""
    if not re.search(r"app function '\w+' \(task \d+\) failed", stderr):
        outcome.problems.append(f"the stop does not name the task: {_tail(stderr)}")
    elif cell.table not in MOUNTED:
        if f"storage '{cell.table}'" not in stderr or not re.search(r"'[^']+'( \(its data is on [^)]+\))? could "
                                                                      r"not be", stderr):
            outcome.problems.append(f"the stop does not name the store and the file: {_tail(stderr)}")
    elif not re.search(r"\nstore: the mount at \S+ on node\d+", stderr):
        outcome.problems.append(f"the stop does not name the store's mount and the node: {_tail(stderr)}")


def task_ends(run_dir: str) -> list[dict]:
    """The `end` records of a run's log so far (a line being written is not read)."""
    return [record for record in events_so_far(run_dir) if record.get("event") == "end"]


def _tail(text: str, lines: int = 6) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])
