"""A store's server killed (kill -9) and restarted under a running workflow: the run finishes, unharmed.

A 201-task workflow (100 writers of 256 KiB -> 100 sha256 -> merge) is staged through
S3 on a MinIO of the test's own; once 40 tasks have ended, per the run log, MinIO is
killed with SIGKILL and started again on the same port and data. Transfers that meet
the dead server are retried (`storage_adapters.retries`), so the run must end with
status 0, every task succeeding at its first attempt, tasks ending after the restart,
and outputs byte-identical to a run on local paths.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from hostkit.processes import stop_process
from hostkit.records import ServiceRecord
from storage_adapters import open_storage
from storage_adapters.services import minio

from .conftest import started_minio

REPO = Path(__file__).resolve().parents[2]
TASKS = 201
KILL_AFTER = 40
SCRIPT = """\
app (file o) writer (file t, int i) { "cp" t o }
app (file o) digest (file i) { "sha256sum" @stdin=i @stdout=o }
app (file o) merge (file d[]) { "cat" d @stdout=o }
file template = input_file("template.dat");
file sums[];
foreach i in [1:100] {
  file data <sprintf("data/%i.dat", i)> = writer(template, i);
  sums[i] = digest(data);
}
file merged <"merged.txt"> = merge(sums);
"""


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


def ends(run_dir: Path) -> list[dict]:
    try:
        lines = (run_dir / "events.jsonl").read_text().splitlines()
    except FileNotFoundError:
        return []
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            break  # a line being written
    return [record for record in records if record["event"] == "end"]


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


def run_until_ended(reference: Path, work: Path, state: str, storage: str, *options: str) -> subprocess.Popen[str]:
    """Start the workflow on `storage`; return once KILL_AFTER of its tasks have ended."""
    work.mkdir()
    for name in ("w.swift", "template.dat"):
        (work / name).write_bytes((reference / name).read_bytes())
    run = swiftcloud(work, state, "run", "-n", "3", "--transport", "local", *options, "--storage", storage,
                     "--run-dir", "run", "w.swift")
    deadline = time.monotonic() + 300
    while len(ends(work / "run")) < KILL_AFTER:
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
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    state, record = server
    run = run_until_ended(reference, tmp_path / "s3", state, "s3")
    kill_hard(record)
    killed_at = time.time()
    restarted = minio.start(state)
    assert restarted.info["port"] == record.info["port"] and restarted.pid != record.pid
    restarted_at = time.time()
    _, stderr = run.communicate(timeout=300)
    assert run.returncode == 0, stderr

    finished = ends(tmp_path / "s3" / "run")
    assert len(finished) == TASKS and all(r["status"] == "ok" and r["attempts"] == 1 for r in finished)
    assert sum(r["time"] < killed_at for r in finished) >= KILL_AFTER
    assert sum(r["time"] > restarted_at for r in finished) >= 1  # the run went on through the restart
    assert_same_outputs(reference, state, "s3", monkeypatch)
