"""How `swiftcloud run` decides where it stands, and what it says when MPI cannot start."""

from __future__ import annotations

import sys

import pytest

from engine.scheduler.launch import (HOST_LIST_VARIABLES, Launcher, detect_launcher, local_job_environment, mismatch,
                                     mpiexec_command, worker_rank_command)
from engine.scheduler.supervise import verdict

from .conftest import mpiexec, swiftcloud

MPICH = "MPICH Version:      5.0.2\nMPICH Release date: ..."
OPEN_MPI = "Open MPI v5.0.5, package: Open MPI ..."


def test_launchers_are_recognized_by_the_variables_they_set() -> None:
    assert detect_launcher({}) is None
    hydra = detect_launcher({"PMI_RANK": "2", "PMI_SIZE": "4", "PMI_FD": "11"})
    assert hydra == Launcher("an MPICH-style mpiexec (PMI)", "pmi", 4, 2)
    ompi = detect_launcher({"OMPI_COMM_WORLD_SIZE": "3", "OMPI_COMM_WORLD_RANK": "0",
                            "PMIX_RANK": "0"})
    assert ompi is not None and (ompi.speaks, ompi.size, ompi.rank) == ("pmix", 3, 0)
    pmix = detect_launcher({"PMIX_RANK": "1", "SLURM_STEP_NUM_TASKS": "8"})
    assert pmix is not None and (pmix.speaks, pmix.size, pmix.rank) == ("pmix", 8, 1)
    srun = detect_launcher({"SLURM_PROCID": "0", "SLURM_STEP_ID": "0", "SLURM_STEP_NUM_TASKS": "4"})
    assert srun == Launcher("srun", "", 4, 0)
    assert detect_launcher({"SLURM_PROCID": "0", "SLURM_NTASKS": "4"}) is None  # an sbatch script


def test_a_launcher_of_another_mpi_is_a_mismatch() -> None:
    hydra = Launcher("an MPICH-style mpiexec (PMI)", "pmi", 3, 0)
    ompi = Launcher("Open MPI's mpirun", "pmix", 3, 0)
    assert mismatch(hydra, MPICH) is None and mismatch(ompi, OPEN_MPI) is None
    assert mismatch(None, MPICH) is None and mismatch(Launcher("srun", "", 4, 0), MPICH) is None
    assert mismatch(ompi, MPICH) == ("this process was started by Open MPI's mpirun, but mpi4py "
                                     "uses MPICH Version:      5.0.2, which cannot join that "
                                     "launcher's job")
    assert "mpi4py uses Open MPI v5.0.5" in (mismatch(hydra, OPEN_MPI) or "")


def test_the_mpiexec_line_runs_the_engine_on_rank_0_and_lean_workers_elsewhere() -> None:
    command = mpiexec_command(4, ["swiftcloud", "run", "-n", "4", "a.swift", "--x=1", "run"])
    at = command.index(":")
    assert command[1:3] == ["-n", "1"]
    assert command[3:at] == [sys.executable, "-m", "swiftcloud", "run", "--mpi", "-n", "4",
                             "a.swift", "--x=1", "run"]
    assert command[at + 1:] == ["-n", "3", *worker_rank_command()]
    assert worker_rank_command() == [sys.executable, "-m", "engine.scheduler.launch_worker"]


def test_with_a_zygote_every_rank_starts_as_its_stub_followed_by_its_own_command() -> None:
    stub = ["swiftcloud-rank-stub", "address"]
    command = mpiexec_command(3, ["swiftcloud", "run", "a.swift"], stub)
    at = command.index(":")
    assert command[3:at] == [*stub, sys.executable, "-m", "swiftcloud", "run", "--mpi", "a.swift"]
    assert command[at + 1:] == ["-n", "2", *stub, *worker_rank_command()]


def test_the_exit_status_says_why_a_job_ended() -> None:
    assert [verdict(status, True) for status in (0, 1, 2, 130, 9, 143)] == [0, 1, 2, 130, 1, 1]
    assert verdict(0, False) == 0 and verdict(2, False) == 2
    assert verdict(9, False) == 1 and verdict(137, False) == 1


def test_the_stop_names_a_signal_only_where_the_status_can_be_one(capsys) -> None:
    for status, says in ((9, "(mpiexec exit status 9, e.g. killed by SIGKILL)"),
                         (139, "(mpiexec exit status 139, e.g. killed by SIGSEGV)"),
                         (1, "(mpiexec exit status 1)")):  # a rank's exit(1), not SIGHUP
        assert verdict(status, False) == 1
        assert says in capsys.readouterr().err


@pytest.mark.parametrize("env, says", [
    ({"OMPI_COMM_WORLD_SIZE": "3", "OMPI_COMM_WORLD_RANK": "0"},
     "swiftcloud: this process was started by Open MPI's mpirun, but mpi4py uses MPICH"),
    ({"SLURM_PROCID": "0", "SLURM_STEP_ID": "0", "SLURM_STEP_NUM_TASKS": "4"},
     "swiftcloud: srun started 4 processes, but MPI sees each as alone"),
    ({}, "swiftcloud: --mpi: this process was not started by an MPI launcher"),
])
def test_a_foreign_or_missing_launcher_is_explained(run, tmp_path, env, says) -> None:
    (tmp_path / "hello.swift").write_text('trace("hi");\n')
    result = run(swiftcloud("run", "--mpi", "hello.swift"), env=env)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(says), result.stderr
    if env:  # the advice: how to start it instead
        assert "swiftcloud run -n N SCRIPT" in result.stderr and "srun --mpi=pmi2" in result.stderr


def test_only_the_launchers_rank_0_explains_a_mismatch(run, tmp_path) -> None:
    (tmp_path / "hello.swift").write_text('trace("hi");\n')
    result = run(swiftcloud("run", "--mpi", "hello.swift"),
                 env={"OMPI_COMM_WORLD_SIZE": "3", "OMPI_COMM_WORLD_RANK": "2"})
    assert result.returncode == 2 and result.stderr == ""


def test_local_transport_under_a_launcher_is_refused(run, tmp_path) -> None:
    (tmp_path / "hello.swift").write_text('trace("hi");\n')
    result = run(mpiexec(2, *swiftcloud("run", "--transport", "local", "hello.swift")))
    assert result.returncode == 2
    assert "started 2 copies of this run with --transport local" in result.stderr


def test_a_job_on_this_host_alone_tells_ucx_so(monkeypatch) -> None:
    for name in HOST_LIST_VARIABLES + ("UCX_TLS",):
        monkeypatch.delenv(name, raising=False)
    assert local_job_environment()["UCX_TLS"] == "self,posix"
    monkeypatch.setenv("UCX_TLS", "self,sm,tcp")
    assert local_job_environment()["UCX_TLS"] == "self,sm,tcp"  # a user's own setting wins


def test_a_job_a_resource_manager_may_spread_keeps_ucx_networks(monkeypatch) -> None:
    monkeypatch.delenv("UCX_TLS", raising=False)
    monkeypatch.setenv("SLURM_JOB_NODELIST", "node[1-4]")
    assert "UCX_TLS" not in local_job_environment()
