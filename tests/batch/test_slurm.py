"""`swiftcloud submit|jobs|cancel` against a real Slurm (slurm-wlm + munge) in a network namespace.

The trial Slurm is the package's fixture (conftest.py). Each test submits through
the CLI, as a user would.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import psutil

from batch import slurm_service
from engine.observe.runlog import read_events
from hostkit.records import ServiceRecord
from tests.batch.trial import FAILING, PIPELINE, completed_jobs, digests, job_processes, naps, swiftcloud



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
    (tmp_path / "naps.swift").write_text(naps("started-"))
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
