"""Storage servers killed (kill -9) under a running workflow: the run finishes, unharmed.

A 201-task workflow (100 writers of 256 KiB -> 100 sha256 -> merge) runs on a store of
the test's own; once 40 tasks have ended, per the run log, a server is killed with
SIGKILL. The run must end with status 0 and outputs byte-identical to a run on local paths.

- S3 staging, MinIO started again on the same port and data: transfers that meet the
  dead server are retried (`storage_adapters.retries`), so every task succeeds at its
  first attempt, and tasks end after the restart.
- Chirp staging, its one chirp_server started again on the same port and data:
  likewise.
- The MosaStore mount with two copies of every file, a benefactor holding one of each
  lost for good (see the test): its chunks are copied again, and later files avoid it.

The fault matrix on the emulated cluster (every store's data, metadata and client daemons)
is tests/cluster/test_faults.py.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from cluster.fault_matrix import task_ends, tasks, tasks_before_fault, workflow
from hostkit.ports import bindable
from hostkit.processes import stop_process
from hostkit.records import ServiceRecord
from storage_adapters import open_storage
from mosastore import service
from mosastore.placement import LOCATION_XATTR, PLACEMENT_XATTR
from storage_adapters.chirp import service as chirp_service
from storage_adapters.services import minio

from .conftest import started_minio
from .mosastore.stores import running_store, skip_unless_fuse

REPO = Path(__file__).resolve().parents[2]
SCRIPT = workflow()
TASKS = tasks()
KILL_AFTER = tasks_before_fault()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, ServiceRecord]]:
    """(state directory, record) of a MinIO only this module uses; stopped by its last PID."""
    state = str(tmp_path_factory.mktemp("faults-minio"))
    record = started_minio(state)
    try:
        yield state, record
    finally:
        latest = minio.status(state)
        if latest is not None:
            stop_process(latest.pid, latest.create_time)


def swiftcloud(cwd: Path, state: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "SWIFTCLOUD_STATE_DIR": state}
    return subprocess.Popen([sys.executable, "-m", "swiftcloud", *args], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)


def kill_hard(record: ServiceRecord) -> None:
    """SIGKILL the server and wait until the process is gone (so its port is free)."""
    process = psutil.Process(record.pid)
    os.kill(record.pid, signal.SIGKILL)
    process.wait(timeout=30)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workflow's directory after a run on local paths (its template is the one every run uses)."""
    directory = tmp_path_factory.mktemp("plain")
    (directory / "w.swift").write_text(SCRIPT)
    (directory / "template.dat").write_bytes(os.urandom(256 * 1024))
    plain = swiftcloud(directory, str(directory), "run", "-n", "3", "--transport", "local", "--run-dir", "plain",
                       "w.swift")
    _, stderr = plain.communicate(timeout=300)
    assert plain.returncode == 0, stderr
    return directory


@pytest.fixture
def runs() -> Iterator[list[subprocess.Popen[str]]]:
    """The runs a test starts; one still going when it ends (a failed assertion) is killed."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for run in started:
        if run.poll() is None:
            run.kill()  # the engine's workers and apps die with it
            run.communicate()


def run_until_ended(runs: list[subprocess.Popen[str]], reference: Path, work: Path, state: str, storage: str,
                    *options: str) -> subprocess.Popen[str]:
    """Start the workflow on `storage`; return once KILL_AFTER of its tasks have ended."""
    work.mkdir()
    for name in ("w.swift", "template.dat"):
        (work / name).write_bytes((reference / name).read_bytes())
    run = swiftcloud(work, state, "run", "-n", "3", "--transport", "local", *options, "--storage", storage,
                     "--run-dir", "run", "w.swift")
    runs.append(run)
    deadline = time.monotonic() + 300
    while len(task_ends(str(work / "run"))) < KILL_AFTER:
        assert run.poll() is None, f"the run ended before the fault: {run.communicate()[1]}"
        assert time.monotonic() < deadline, "the run did not get going"
        time.sleep(0.05)
    return run


def assert_same_outputs(reference: Path, state: str, storage: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SWIFTCLOUD_STATE_DIR", state)
    with open_storage(storage) as store:
        for name in ("merged.txt", "data/1.dat", "data/100.dat"):
            assert hashlib.sha256(store.cat(name)).digest() == hashlib.sha256((reference / name).read_bytes()).digest()


def test_minio_killed_and_restarted_mid_run(server: tuple[str, ServiceRecord], reference: Path, tmp_path: Path,
                                           runs: list[subprocess.Popen[str]],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    state, record = server
    run = run_until_ended(runs, reference, tmp_path / "s3", state, "s3")
    kill_hard(record)
    killed_at = time.time()
    restarted = minio.start(state)
    assert restarted.info["port"] == record.info["port"] and restarted.pid != record.pid
    restarted_at = time.time()
    _, stderr = run.communicate(timeout=300)
    assert run.returncode == 0, stderr

    finished = task_ends(str(tmp_path / "s3" / "run"))
    assert len(finished) == TASKS and all(r["status"] == "ok" and r["attempts"] == 1 for r in finished)
    assert sum(r["time"] < killed_at for r in finished) >= KILL_AFTER
    assert sum(r["time"] > restarted_at for r in finished) >= 1  # the run went on through the restart
    assert_same_outputs(reference, state, "s3", monkeypatch)


def test_a_mosastore_benefactor_killed_mid_run_with_two_copies(reference: Path, tmp_path: Path,
                                                               runs: list[subprocess.Popen[str]],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """MosaStore, 3 benefactors, every file in two copies (`replicate:2` on the store's root),
    through its mount: the benefactor on the writers' node (it holds a copy of every file) is
    killed and never restarted. Reads go to the other copy, writes to the live benefactors, and
    the manager copies what the lost one held (`repair_after` 4 s) while the run goes on."""
    state = str(tmp_path / "mosastore-state")
    with running_store(state, benefactors=3, repair_after=4.0) as record:
        os.setxattr(record.info["mountpoint"], PLACEMENT_XATTR, b"replicate:2")
        writers = record.info["nodes"].split(",")[0]  # the mount's node: the first copy of every file
        # The workers run as the mount's node; as this host, a name no benefactor has, the two
        # copies would go where free space happened to be largest.
        run = run_until_ended(runs, reference, tmp_path / "mosastore", state, "mosastore", "--nodes", writers)
        first = os.getxattr(Path(record.info["mountpoint"]) / "data" / "1.dat", LOCATION_XATTR).decode().split(",")
        assert len(first) == 2 and writers in first, first
        benefactor = next(p for p in service.processes(record) if p.role == "benefactor" and p.node == writers)
        os.kill(benefactor.pid, signal.SIGKILL)
        killed_at = time.time()
        _, stderr = run.communicate(timeout=600)
        assert run.returncode == 0, stderr
        finished = task_ends(str(tmp_path / "mosastore" / "run"))
        assert len(finished) == TASKS and all(r["status"] == "ok" for r in finished)
        assert sum(r["time"] > killed_at for r in finished) >= 100  # most of the workflow ran without the node
        assert_same_outputs(reference, state, "mosastore", monkeypatch)
        assert writers not in os.getxattr(Path(record.info["mountpoint"]) / "merged.txt", LOCATION_XATTR).decode()


def test_the_chirp_server_killed_and_restarted_mid_run(reference: Path, tmp_path: Path,
                                                      runs: list[subprocess.Popen[str]],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Chirp staging, one chirp_server: it dies with everything it forked (SIGKILL to its
    process group, as with its node), and `services start chirp` starts it again on its port
    and data. Transfers retry until it is back: every task succeeds at its first attempt."""
    state = tmp_path / "chirp-state"
    skip_unless_fuse()  # the service mounts its first server too
    record = chirp_service.start(str(state))
    try:
        (tmp_path / "chirp.toml").write_text('[storage.chirp]\nmode = "staging"\n')
        run = run_until_ended(runs, reference, tmp_path / "chirp", str(state), "chirp", "--config",
                              str(tmp_path / "chirp.toml"))
        server = next(p for p in chirp_service.processes(record) if p.role == "server")
        os.killpg(server.pid, signal.SIGKILL)
        killed_at = time.time()
        psutil.Process(server.pid).wait(timeout=30)
        deadline = time.monotonic() + 30
        while not bindable(server.port):  # until what it forked has died too
            assert time.monotonic() < deadline, f"port {server.port} stays taken"
            time.sleep(0.05)
        restarted = chirp_service.start(str(state))
        revived = next(p for p in chirp_service.processes(restarted) if p.role == "server")
        assert revived.port == server.port and revived.pid != server.pid
        _, stderr = run.communicate(timeout=300)
        assert run.returncode == 0, stderr
        finished = task_ends(str(tmp_path / "chirp" / "run"))
        assert len(finished) == TASKS and all(r["status"] == "ok" and r["attempts"] == 1 for r in finished)
        assert sum(r["time"] > killed_at for r in finished) >= 100
        (tmp_path / "swiftcloud.toml").write_text('[storage.chirp]\nmode = "staging"\n')
        monkeypatch.chdir(tmp_path)
        assert_same_outputs(reference, str(state), "chirp", monkeypatch)
    finally:
        chirp_service.stop(str(state))
        chirp_service.purge(str(state))
