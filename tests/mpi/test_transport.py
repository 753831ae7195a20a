"""The MPI transport under the `Scheduler` facade, in one `mpiexec -n 3` job per test.

The job (scheduler_job.py) runs one `Scheduler` session per case on rank 0
and prints what it saw; the cases mirror the local transport's tests.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from cluster.launch import NETWORK_ONLY
from tests.mpi.scheduler_job import SIZES

from .conftest import mpiexec


def run_job(run, tmp_path, *cases: str, timeout: float = 120.0,
            env: dict[str, str] | None = None) -> tuple[dict[str, Any], Any]:
    result = run(mpiexec(3, sys.executable, "-m", "tests.mpi.scheduler_job", str(tmp_path), *cases),
                 timeout=timeout, env=env)
    seen = {}
    for line in result.stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            seen[record.pop("case")] = record
    return seen, result


def test_sessions_run_tasks_and_return_failures_as_values(run, tmp_path) -> None:
    seen, result = run_job(run, tmp_path, "many_noops", "failures", "retries", "nodes", "drain")
    assert result.returncode == 0, result.stderr
    assert seen["many_noops"] == {"count": 2000, "right": 2000, "workers": [0, 1]}
    failures = seen["failures"]
    assert failures["0"] == [False, "the app failed: exit 1", 1]  # not retriable: one attempt
    assert failures["1"] == [False, "internal error in task: ValueError(\"bad payload 'x'\")", 1]
    assert failures["2"][0] is False and "its result cannot be sent back" in failures["2"][1]
    assert failures["3"] == [True, "fine", 1]
    assert seen["retries"] == {"0": [True, 3, 3], "1": [False, "attempt 2 failed", 2]}
    assert seen["nodes"] == {"matching": 40, "nodes": ["alpha", "beta"], "pids": 2}
    assert seen["drain"] == {"first_look": 2, "total": 2}


def test_messages_of_every_size_arrive_whole_over_the_clusters_tcp_settings(run, tmp_path) -> None:
    # The emulated cluster's MPI settings (its small receive buffers), over this host's loopback.
    seen, result = run_job(run, tmp_path, "sizes", env={**NETWORK_ONLY, "FI_TCP_IFACE": "lo"})
    assert result.returncode == 0, result.stderr
    assert seen["sizes"] == {"intact": list(SIZES)}


def test_a_kill_close_cancels_running_apps_and_the_ranks_serve_again(run, tmp_path) -> None:
    seen, result = run_job(run, tmp_path, "kill")
    assert result.returncode == 0, result.stderr
    kill = seen["kill"]
    assert kill["apps"] == 2 and kill["alive"] == [], kill
    assert kill["after"] == "after the kill"  # the hanging apps are gone (above), and the ranks serve


def test_a_rank_that_cannot_be_cancelled_is_aborted_at_exit(run, tmp_path) -> None:
    # run_job's timeout (120 s) fails the test if the job waits for the rank's 600 s task.
    seen, result = run_job(run, tmp_path, "abort")
    assert seen["abort"] == {"closed": True}
    assert result.returncode == 1  # aborted: the job did not wait 600 s for the busy rank
    assert "MPI_Abort" not in result.stderr
