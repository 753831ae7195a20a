"""The crash matrix (issue 16): nothing half-written, nothing left, only the rest reruns.

A workflow of 16 short app tasks and one merge is interrupted once six
outputs exist, in every way a run can be hurt: kill -9 or SIGTERM of the
engine, kill -9 of a local worker, of an MPI worker rank, or of one app;
under the local and the MPI transport; on `local` storage, on S3 (MinIO,
staged) and on MosaStore (shared, through its FUSE mount). Then:
- no mapped output holds a partial file, and no process of the run remains;
- the crashed run's log has a dispatch record (worker and node) for every
  task that had started, including the ones that never ended;
- `--resume` finishes, reusing exactly the tasks the crashed run's restart log
  recorded (and running the others), without touching the reused outputs;
- every output is byte-identical to an uninterrupted run's, and no temporary
  remains beside them.
"""

from __future__ import annotations

import functools
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Callable

import psutil
import pytest

from tests.marked import kill_marked, left_after, marked

from engine.observe.restart import read_restart_log
from engine.observe.runlog import read_events
from storage_adapters import open_storage
from storage_adapters.services import service_status, start_service, stop_service

ROOT = Path(__file__).resolve().parents[1]
MARK = "SWIFTCLOUD_RESUME_TEST"
TASKS = 16
WORKFLOW = """
import files;
import string;
import sys;
app (file o) step(int i) { "sh" "-c" "printf 'step %s\\\\n' $1 > $2; sleep 0.3; printf 'done %s\\\\n' $1 >> $2" "x" i @o }
app (file o) merge(file pieces[]) { "cat" pieces @stdout=o }
string dir = argv("dir");
file parts[];
foreach i in [1:TASKS] {
  file p <sprintf("%s/part-%02i.txt", dir, i)> = step(i);
  parts[i] = p;
}
file total <dir + "/all.txt"> = merge(parts);
trace(strlen(read(total)));
""".replace("TASKS", str(TASKS))

# (victim, signal, transport): every way of hurting a run, under the transports it applies to.
CRASHES = [
    ("engine", signal.SIGKILL, "local"),
    ("engine", signal.SIGTERM, "local"),
    ("worker", signal.SIGKILL, "local"),
    ("app", signal.SIGKILL, "local"),
    ("engine", signal.SIGKILL, "mpi"),
    ("rank", signal.SIGKILL, "mpi"),
]
# local: plain paths; s3: staged through MinIO; mosastore: shared, through its FUSE mount.
STORES = ("local", "s3", "mosastore")
MATRIX = [(store, *crash) for store in STORES for crash in CRASHES]


@pytest.fixture(scope="module")
def state_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """MinIO and a MosaStore (manager, benefactors, FUSE mount) in one state directory,
    stopped by the PIDs they started."""
    state = tmp_path_factory.mktemp("crash-services")
    started: list[str] = []
    try:
        for name in ("minio", "mosastore"):
            start_service(name, str(state))
            started.append(name)
        yield state
    finally:
        for name in reversed(started):
            stop_service(name, str(state))
        assert all(service_status(n, str(state)) is None for n in started)


class Outputs:
    """The workflow's outputs where the run put them (plain files without `--storage`, else
    the store): names to bytes, and a modification stamp where there is a file to stat."""

    def __init__(self, storage: str, directory: str) -> None:
        self.directory = directory
        self._store = None if storage == "local" else open_storage(storage)
        self._storage = storage

    def read(self) -> dict[str, bytes]:
        store = self._store
        if store is None:
            found = Path(self.directory)
            listed = [(p.name, p.read_bytes) for p in found.iterdir()] if found.exists() else []
        elif store.exists(self.directory):
            listed = [(info.name, functools.partial(store.cat, info.path))
                      for info in store.ls(self.directory) if info.type == "file"]
        else:
            listed = []
        contents = {}
        for name, read in listed:
            try:
                contents[name] = read()
            except FileNotFoundError:
                pass  # a temporary published or removed since the listing: not there any more
        return contents

    def stamp(self, name: str) -> int | None:
        if self._store is None:
            return os.stat(Path(self.directory, name)).st_mtime_ns
        if self._storage == "s3":
            return None  # objects carry no mtime we can compare; the reuse count covers them
        return os.stat(self._store.local_path(f"{self.directory}/{name}")).st_mtime_ns

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def _run(cwd: Path, storage: str, directory: str, *args: str, mark: str, transport: str,
         env: dict[str, str]) -> subprocess.Popen[str]:
    chosen = [] if storage == "local" else ["--storage", storage]  # local: plain paths, the usual case
    return subprocess.Popen([sys.executable, "-m", "swiftcloud", "run", "-n", "3", "--transport", transport,
                             *chosen, *args, "wf.swift", f"--dir={directory}"], cwd=cwd,
                            env={**env, MARK: mark}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _marked(mark: str) -> list[psutil.Process]:
    return marked(MARK, mark)


def _victims(mark: str, victim: str) -> list[psutil.Process]:
    """The processes of a run that play `victim`: a worker rank, a local worker, a step app."""
    found = []
    for process in _marked(mark):
        try:
            command = " ".join(process.cmdline())
            parent = process.parent()
            parent_command = " ".join(parent.cmdline()) if parent is not None else ""
        except psutil.Error:
            continue
        if victim == "rank" and "engine.scheduler.launch" in command:
            found.append(process)
        elif victim == "worker" and "-m swiftcloud" in parent_command and "-m swiftcloud" in command:
            found.append(process)  # a local worker: the engine's own forked child
        elif victim == "app" and command.startswith("sh -c printf"):
            found.append(process)
    return found


def _hurt(mark: str, victim: str, signum: int) -> None:
    """Send `signum` to a process of the run playing `victim`: the first found that is still
    there when signalled (an app may end between the listing and the signal)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for process in _victims(mark, victim):
            try:
                process.send_signal(signum)
                return
            except psutil.NoSuchProcess:
                continue
        time.sleep(0.01)
    pytest.fail(f"no {victim} found")


@pytest.fixture
def environment(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[str], dict[str, str]]:
    def make(storage: str) -> dict[str, str]:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        if storage != "local":
            env["SWIFTCLOUD_STATE_DIR"] = str(request.getfixturevalue("state_dir"))
        return env
    return make


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    directory = tmp_path_factory.mktemp("uninterrupted")
    (directory / "wf.swift").write_text(WORKFLOW)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = _run(directory, "local", "out", mark=uuid.uuid4().hex, transport="local", env=env)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0, err
    return {p.name: p.read_bytes() for p in (directory / "out").iterdir()}


@pytest.mark.parametrize("storage, victim, signum, transport", MATRIX,
                         ids=[f"{s}-{v}-{signal.Signals(n).name}-{t}" for s, v, n, t in MATRIX])
def test_a_crashed_run_resumes_with_only_the_rest(tmp_path: Path, reference: dict[str, bytes],
                                                  environment: Callable[[str], dict[str, str]],
                                                  storage: str, victim: str, signum: int,
                                                  transport: str, monkeypatch: pytest.MonkeyPatch) -> None:
    env = environment(storage)
    if "SWIFTCLOUD_STATE_DIR" in env:
        monkeypatch.setenv("SWIFTCLOUD_STATE_DIR", env["SWIFTCLOUD_STATE_DIR"])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "wf.swift").write_text(WORKFLOW)
    directory = f"crash-{uuid.uuid4().hex[:8]}"  # the stores are shared by the matrix's cases
    outputs = Outputs(storage, directory)
    mark = uuid.uuid4().hex
    first = _run(tmp_path, storage, directory, mark=mark, transport=transport, env=env)
    try:
        deadline = time.monotonic() + 90
        while len([n for n in outputs.read() if n.startswith("part-")]) < 6:
            assert first.poll() is None, first.communicate()[1]
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.05)
        if victim == "engine":
            first.send_signal(signum)
        else:
            _hurt(mark, victim, signum)
        first_err = first.communicate(timeout=60)[1]
        if victim == "worker":
            assert first.returncode == 0, first_err  # a lost local worker's tasks run elsewhere
        else:
            assert first.returncode != 0
            assert "Traceback" not in first_err
        alive = left_after(MARK, mark, timeout=20)
        assert not alive, f"left behind: {alive}"
    finally:
        if first.poll() is None:
            first.kill()
        kill_marked(MARK, mark)

    done_before = {name: data for name, data in outputs.read().items() if not name.startswith(".")}
    for name, data in done_before.items():  # nothing half-written under a mapped name
        assert data == reference[name], f"{name} is partial: {data!r}"
    crashed = read_events(str(tmp_path / "runs" / "001"))
    dispatched = {task for e in crashed if e["event"] == "dispatch" for task in e["tasks"]}
    started = {e["task"] for e in crashed if e["event"] == "start"}
    assert started <= dispatched and len(dispatched) > len(started) or victim == "worker"
    assert all(e["node"] for e in crashed if e["event"] == "dispatch")
    recorded = read_restart_log(str(tmp_path / "runs" / "001"))
    stamps = {name: outputs.stamp(name) for name in done_before}

    second = _run(tmp_path, storage, directory, "--resume", "--explain", mark=mark, transport=transport,
                  env=env)
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert outputs.read() == reference  # byte-identical, and no temporary beside them
    events = read_events(str(tmp_path / "runs" / "002"))
    reused = [e for e in events if e["event"] == "reused"]
    ran = [e for e in events if e["event"] == "end"]
    assert len(reused) == len(recorded) and len(reused) + len(ran) == TASKS + 1
    # Only what had not finished runs again: at most one task per worker (2) may have
    # finished in the instant between its app's end and the engine hearing of it.
    assert len(ran) <= TASKS + 1 - len(done_before) + 2
    print(f"crash matrix: {storage} {victim} {signal.Signals(signum).name} {transport}: first run exit "
          f"{first.returncode}, {len(done_before)} outputs whole, {len(reused)} reused, {len(ran)} rerun")
    assert f"resumed: {len(reused)} app task(s) reused, {len(ran)} run" in err
    assert len(re.findall(r"^swiftcloud: runs ", err, re.M)) == len(ran)  # --explain: one reason per task run
    for event in reused:
        name = os.path.basename(event["command"][-1])
        if name in stamps:
            assert outputs.stamp(name) == stamps[name]  # reused outputs untouched
    outputs.close()
