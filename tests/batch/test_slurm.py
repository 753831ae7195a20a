"""`swiftcloud submit|jobs|cancel` against a real Slurm (slurm-wlm + munge) in a network namespace.

The module's fixture starts the trial Slurm the way `swiftcloud services start
slurm` does, in a temporary state directory, and stops it at the end; then no
daemon, job process, namespace or munge directory of it may remain. Each test submits through
the CLI, as a user would.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from batch import slurm_service
from cluster import netns
from engine.observe.runlog import read_events
from storage_adapters.services.common import ServiceRecord

ROOT = Path(__file__).resolve().parents[2]
PIPELINE = ROOT / "examples" / "file_pipeline.swift"
OUTPUTS = ("out/numbers.txt", "out/labelled.txt", "out/labelled.sha256")
FAILING = """
app (file o) bad(int i) { "sh" "-c" "echo 'step' $1 'broke' >&2; exit 1" "x" i @stdout=o }
file f <"out/bad.txt"> = bad(7);
"""
NAPS = """
app (void o) nap(string marker) { "sh" "-c" "echo $$ > \\"$1\\"; exec sleep 300" "x" marker }
foreach i in [1:2] { nap("started-" + i); }
"""


@pytest.fixture(scope="module")
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServiceRecord, Path]]:
    state = tmp_path_factory.mktemp("slurm-state")
    started = swiftcloud("services", "start", "slurm", cwd=state, state=state)
    assert started.returncode == 0, started.stderr
    record = slurm_service.status(str(state))
    daemons = [record.pid, *record.info["daemons"].values()]
    try:
        yield record, state
    finally:
        assert slurm_service.stop(str(state))
        assert not netns.exists(record.info["namespace"])
        assert not os.path.exists(os.path.join(slurm_service.MUNGE_BASE, record.info["namespace"]))
        assert not os.path.exists(os.path.join(slurm_service.MUNGE_BASE, record.info["namespace"]))
        assert not [pid for pid in daemons if psutil.pid_exists(pid) and
                    psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
        assert slurm_service.status(str(state)) is None


def swiftcloud(*args: str, cwd: Path, state: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SWIFTCLOUD_STATE_DIR": str(state)}
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def digests(directory: Path) -> dict[str, str]:
    return {p: hashlib.sha256((directory / p).read_bytes()).hexdigest() for p in OUTPUTS}


def job_processes(record: ServiceRecord) -> list[str]:
    """What runs in the namespace besides the daemons: the jobs' processes."""
    daemons = {record.pid, *record.info["daemons"].values()}
    names = []
    for pid in netns.pids(record.info["namespace"]):
        try:
            process = psutil.Process(pid)
            if pid not in daemons and process.status() != psutil.STATUS_ZOMBIE and process.name() != "slurmscriptd":
                names.append(f"{pid} {process.name()}")
        except psutil.Error:
            continue
    return names


def completed_jobs(record: ServiceRecord) -> dict[str, str]:
    """Slurm's own job completion log: job id -> its line."""
    log = Path(record.info["conf"]).parent / "log" / "jobs.txt"
    lines = log.read_text().splitlines() if log.exists() else []
    return {re.search(r"JobId=(\d+)", line).group(1): line for line in lines}


def test_the_trial_slurm_has_an_idle_node_reached_through_its_wrappers(
        slurm: tuple[ServiceRecord, Path], tmp_path: Path) -> None:
    record, state = slurm
    sinfo = subprocess.run([os.path.join(record.info["bin"], "sinfo"), "-h", "-N", "-o", "%N %T %c"],
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert sinfo.stdout.split() == [record.info["node"], "idle", str(slurm_service.CPUS)]
    shown = swiftcloud("services", "status", "slurm", cwd=tmp_path, state=state)
    assert shown.returncode == 0 and record.info["namespace"] in shown.stdout
    # Nothing listens on the host: the controller's port is open only inside the namespace.
    assert not any(c.laddr and c.laddr.port == 6817 for c in psutil.net_connections("tcp")
                   if c.status == psutil.CONN_LISTEN)
    assert job_processes(record) == []


def test_the_pipeline_runs_under_srun_and_gives_a_local_runs_outputs(
        slurm: tuple[ServiceRecord, Path], tmp_path: Path) -> None:
    record, state = slurm
    reference = tmp_path / "local"
    reference.mkdir()
    local = swiftcloud("run", str(PIPELINE), "--lines=2000", cwd=reference, state=state)
    assert local.returncode == 0, local.stderr
    work = tmp_path / "submitted"
    work.mkdir()
    done = swiftcloud("submit", "-m", "slurm", "-n", "3", "--wait", str(PIPELINE), "--lines=2000",
                      cwd=work, state=state)
    assert done.returncode == 0, done.stderr
    job_id = re.search(r"submitted job (\d+)", done.stdout).group(1)
    assert digests(work) == digests(reference)
    assert local.stdout in done.stdout  # the run's own output, from the job's stdout
    run_dir = re.search(r"run directory (\S+)", done.stdout).group(1)
    events = read_events(str(work / run_dir))
    assert events[0]["event"] == "run_start" and events[0]["workers"] == 2
    assert {worker for e in events if e["event"] == "dispatch" for worker in [e["worker"]]} <= {0, 1}
    assert events[-1]["event"] == "run_end" and events[-1]["exit_status"] == 0
    line = completed_jobs(record)[job_id]  # Slurm ran it: 3 processes on the node
    assert "ProcCnt=3" in line and "JobState=COMPLETED" in line
    listed = swiftcloud("jobs", cwd=work, state=state)
    assert re.search(rf"^\s*{job_id}\s+slurm\s+completed\s+0\s", listed.stdout, re.M), listed.stdout
    assert job_processes(record) == []


def test_a_failing_job_reports_the_task_and_its_stderr_tail(slurm: tuple[ServiceRecord, Path],
                                                             tmp_path: Path) -> None:
    _, state = slurm
    (tmp_path / "fail.swift").write_text(FAILING)
    done = swiftcloud("submit", "-n", "3", "--wait", "fail.swift", cwd=tmp_path, state=state)
    assert done.returncode == 1
    assert "failed (exit status 1)" in done.stderr
    assert "app function 'bad'" in done.stderr and "step 7 broke" in done.stderr
    assert "command: sh -c" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "bad.txt").exists()


def test_cancel_ends_a_running_job_and_its_ranks(slurm: tuple[ServiceRecord, Path], tmp_path: Path) -> None:
    record, state = slurm
    (tmp_path / "naps.swift").write_text(NAPS)
    submitted = swiftcloud("submit", "-n", "3", "naps.swift", cwd=tmp_path, state=state)
    assert submitted.returncode == 0, submitted.stderr
    job_id = re.search(r"submitted job (\d+)", submitted.stdout).group(1)
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"started-{i}").exists() for i in (1, 2)):
        assert time.monotonic() < deadline, "the job's apps never started"
        time.sleep(0.1)
    running = job_processes(record)
    assert any(name.endswith(" sleep") for name in running) and any("srun" in name for name in running)
    listed = swiftcloud("jobs", cwd=tmp_path, state=state)
    assert re.search(rf"^\s*{job_id}\s+slurm\s+active\s", listed.stdout, re.M), listed.stdout
    cancelled = swiftcloud("cancel", job_id, cwd=tmp_path, state=state)
    assert cancelled.returncode == 0, cancelled.stderr
    assert f"job {job_id} canceled" in cancelled.stdout
    deadline = time.monotonic() + 30
    while job_processes(record) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert job_processes(record) == []
    squeue = subprocess.run([os.path.join(record.info["bin"], "squeue"), "-h"], capture_output=True, text=True)
    assert squeue.stdout.strip() == ""


def test_bad_scripts_and_settings_submit_nothing(slurm: tuple[ServiceRecord, Path], tmp_path: Path) -> None:
    _, state = slurm
    (tmp_path / "broken.swift").write_text("int x = ;\n")
    done = swiftcloud("submit", "broken.swift", cwd=tmp_path, state=state)
    assert done.returncode == 2
    assert re.match(r"broken\.swift:1:\d+: ", done.stderr)
    for args, message in ((["--time", "soon"], "expected HH:MM:SS"), (["-n", "1"], "at least 2"),
                          (["-m", "condor"], "unknown executor"), (["-p", "campus"], "no [submit.campus]")):
        bad = swiftcloud("submit", *args, str(PIPELINE), cwd=tmp_path, state=state)
        assert bad.returncode == 2 and message in bad.stderr, (args, bad.stderr)
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())
    assert "no jobs submitted" in swiftcloud("jobs", cwd=tmp_path, state=state).stdout
