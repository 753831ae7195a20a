"""The trial Slurm (slurm-wlm + munge in a network namespace) and what `submit` refuses.

The module's fixture starts the trial Slurm with `swiftcloud services start
slurm` in a temporary state directory and stops it at the end; then no
daemon, namespace or munge directory of it may remain.

Jobs that run are not tested here yet: submitted from this test process, the
jobs' ranks hung in MPI_Init under srun (13 of 17 jobs), while the same
submissions from a shell all completed (over 20); see docs/batch.md. The job tests wait in
pending_slurm_jobs.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from batch import slurm_service
from cluster import netns
from storage_adapters.services.common import ServiceRecord

ROOT = Path(__file__).resolve().parents[2]
PIPELINE = ROOT / "examples" / "file_pipeline.swift"


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
        assert not [pid for pid in daemons if psutil.pid_exists(pid) and
                    psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
        assert slurm_service.status(str(state)) is None


def swiftcloud(*args: str, cwd: Path, state: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SWIFTCLOUD_STATE_DIR": str(state)}
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


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
