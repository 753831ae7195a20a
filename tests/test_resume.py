"""`run --resume` after a crash (issue 16): nothing half-written, nothing left, only the rest reruns.

A workflow of 16 short app tasks and one merge is interrupted once six
outputs exist: kill -9 or SIGTERM of the engine, or kill -9 of an MPI worker
rank. Then:
- no mapped output holds a partial file, and no process of the run remains;
- `--resume` finishes, reusing exactly the tasks the crashed run's restart log
  recorded (and running the others), without touching the reused outputs;
- every output is byte-identical to an uninterrupted run's.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest

from tests.marked import left_after, marked

from engine.observe.restart import read_restart_log
from engine.observe.runlog import read_events

ROOT = Path(__file__).resolve().parents[1]
MARK = "SWIFTCLOUD_RESUME_TEST"
TASKS = 16
WORKFLOW = """
import files;
import string;
app (file o) step(int i) { "sh" "-c" "printf 'step %s\\\\n' $1 > $2; sleep 0.3; printf 'done %s\\\\n' $1 >> $2" "x" i @o }
app (file o) merge(file parts[]) { "cat" parts @stdout=o }
file parts[];
foreach i in [1:TASKS] {
  file p <sprintf("out/part-%02i.txt", i)> = step(i);
  parts[i] = p;
}
file total <"out/all.txt"> = merge(parts);
trace(strlen(read(total)));
""".replace("TASKS", str(TASKS))


def _run(cwd: Path, *args: str, mark: str, transport: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), MARK: mark}
    return subprocess.Popen([sys.executable, "-m", "engine.cli", "run", "-n", "3", "--transport", transport,
                             *args, "wf.swift"], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _marked(mark: str) -> list[psutil.Process]:
    return marked(MARK, mark)


def _outputs(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((directory / "out").iterdir())}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    directory = tmp_path_factory.mktemp("uninterrupted")
    (directory / "wf.swift").write_text(WORKFLOW)
    run = _run(directory, mark=uuid.uuid4().hex, transport="local")
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0, err
    return _outputs(directory)


@pytest.mark.parametrize("victim, signum, transport", [
    ("engine", signal.SIGKILL, "local"),
    ("engine", signal.SIGTERM, "local"),
    ("engine", signal.SIGKILL, "mpi"),
    ("rank", signal.SIGKILL, "mpi"),
])
def test_a_crashed_run_resumes_with_only_the_rest(tmp_path: Path, reference: dict[str, bytes], victim: str,
                                                  signum: int, transport: str) -> None:
    (tmp_path / "wf.swift").write_text(WORKFLOW)
    mark = uuid.uuid4().hex
    first = _run(tmp_path, mark=mark, transport=transport)
    try:
        deadline = time.monotonic() + 90
        while len(list((tmp_path / "out").glob("part-*.txt")) if (tmp_path / "out").exists() else []) < 6:
            assert first.poll() is None, first.communicate()[1]
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.05)
        if victim == "engine":
            first.send_signal(signum)
        else:
            ranks = [p for p in _marked(mark) if "engine.scheduler.launch" in " ".join(p.cmdline())]
            assert ranks, "no worker rank found"
            ranks[0].send_signal(signum)
        first.communicate(timeout=60)
        assert first.returncode != 0
        alive = left_after(MARK, mark, timeout=20)
        assert not alive, f"left behind: {alive}"
    finally:
        if first.poll() is None:
            first.kill()
        for process in _marked(mark):
            process.kill()

    done_before = {name: data for name, data in _outputs(tmp_path).items() if not name.startswith(".")}
    for name, data in done_before.items():  # nothing half-written under a mapped name
        assert data == reference[name], f"{name} is partial: {data!r}"
    recorded = read_restart_log(str(tmp_path / "runs" / "001"))
    stamps = {name: (tmp_path / "out" / name).stat().st_mtime_ns for name in done_before}

    second = _run(tmp_path, "--resume", "--explain", mark=mark, transport=transport)
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert _outputs(tmp_path) == reference
    assert sorted(os.listdir(tmp_path / "out")) == sorted(reference)  # no temporaries left either
    events = read_events(str(tmp_path / "runs" / "002"))
    reused = [e for e in events if e["event"] == "reused"]
    ran = [e for e in events if e["event"] == "end"]
    assert len(reused) == len(recorded) and len(reused) + len(ran) == TASKS + 1
    assert f"resumed: {len(reused)} app task(s) reused, {len(ran)} run" in err
    assert len(re.findall(r"^swiftcloud: runs ", err, re.M)) == len(ran)  # --explain: one reason per task run
    for event in reused:
        name = os.path.basename(event["command"][-1])
        assert (tmp_path / "out" / name).stat().st_mtime_ns == stamps[name]  # reused outputs untouched
