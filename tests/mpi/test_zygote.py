"""The ranks of `swiftcloud run -n N`: forked from the zygote, each behind the stub mpiexec
started (engine.scheduler.zygote, rank_stub.c)."""

from __future__ import annotations

import os
import re
import signal

import pytest

from engine.scheduler import zygote_start
from engine.scheduler.launch import worker_rank_command

from .conftest import REPO_ROOT, marked, mpiexec, swiftcloud
from .test_runs import sorted_lines, start_long_run

# Where the Python leaves ran: the worker rank's parent process (its name, and the module it
# runs), and whether MPI runs there.
WHERE = ('import python;\nimport io;\n'
         'foreach i in [1:4] {\n'
         '  printf("%s", python("import os, sys, psutil; parent = psutil.Process(os.getppid())", '
         '"str((parent.name(), parent.cmdline()[1:3], sys.modules[\'mpi4py.MPI\'].Is_initialized()))"));\n'
         '}\n')


def is_stub(process) -> bool:  # type: ignore[no-untyped-def]
    return process.cmdline()[:1] == [zygote_start.STUB]


def is_engine_stub(process) -> bool:  # type: ignore[no-untyped-def]
    return is_stub(process) and "--mpi" in process.cmdline()


def test_worker_ranks_are_forked_from_the_zygote(run, tmp_path) -> None:
    (tmp_path / "where.swift").write_text(WHERE)
    result = run(swiftcloud("run", "-n", "3", "--transport", "mpi", "where.swift"))
    assert result.returncode == 0, result.stderr
    assert sorted_lines(result.stdout) == ["('python', ['-m', 'engine.scheduler.zygote'], True)"] * 4


def test_rank_0_is_forked_from_the_zygote_too(tmp_path, mark) -> None:
    run = start_long_run(tmp_path, mark)  # rank 0 has printed: it runs the script
    try:
        launched = [process for process in marked(mark) if process.parent().name() == "hydra_pmi_proxy"]
        assert len(launched) == 3 and all(is_stub(process) for process in launched), launched
        engine_stub = [process for process in launched if is_engine_stub(process)]
        assert len(engine_stub) == 1, launched
        assert engine_stub[0].cmdline()[-10:] == [*swiftcloud("run", "--mpi"), "-n", "3", "--transport", "mpi",
                                                 "long.swift"]
        zygote = next(process for process in marked(mark)
                      if process.cmdline()[1:3] == ["-m", "engine.scheduler.zygote"]
                      and process.parent().pid == run.pid)
        assert len(zygote.children()) == 3  # one rank per stub
    finally:
        os.killpg(run.pid, signal.SIGINT)
        run.communicate(timeout=30)
    assert run.returncode == 130


def test_a_stub_that_cannot_reach_its_zygote_becomes_a_rank_itself(run, tmp_path) -> None:
    (tmp_path / "where.swift").write_text(WHERE)
    stub = [zygote_start.STUB, "swiftcloud-zygote-that-is-not-there", *worker_rank_command()]
    result = run([*mpiexec(1, *swiftcloud("run", "--mpi", "where.swift")), ":", "-n", "2", *stub])
    assert result.returncode == 0, result.stderr
    lines = sorted_lines(result.stdout)
    assert len(lines) == 4 and all(line.startswith("('hydra_pmi_proxy', ") and line.endswith(", True)")
                                   for line in lines), lines


def test_a_zygote_whose_socket_file_has_a_path_too_long_for_an_address_serves_its_stubs(run, tmp_path) -> None:
    """The emulated cluster's zygote listens on a file under the cluster's directory, whose
    path may pass the 108 bytes a socket address holds (in pytest's directories it does)."""
    (tmp_path / "where.swift").write_text(WHERE)
    sockets = tmp_path / ("d" * 100)
    environment = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    with zygote_start.started(environment, str(sockets)) as (_, stub):
        assert len(stub[1]) > 108 and stub[1].startswith(str(sockets))
        result = run([*mpiexec(1, *stub, *swiftcloud("run", "--mpi", "where.swift")),
                      ":", "-n", "2", *stub, *worker_rank_command()])
    assert result.returncode == 0, result.stderr
    assert sorted_lines(result.stdout) == ["('python', ['-m', 'engine.scheduler.zygote'], True)"] * 4
    assert os.listdir(sockets) == []  # its directory went with it


@pytest.mark.parametrize("rank", ["engine", "worker"])
def test_a_rank_whose_stub_is_killed_ends_and_so_does_the_run(tmp_path, mark, rank: str) -> None:
    run = start_long_run(tmp_path, mark)
    stubs = [process for process in marked(mark) if is_stub(process) and is_engine_stub(process) == (rank == "engine")]
    assert len(stubs) == (1 if rank == "engine" else 2), [process.cmdline() for process in marked(mark)]
    stubs[0].send_signal(signal.SIGKILL)  # as the launcher ends a job's processes
    _, stderr = run.communicate(timeout=30)  # a hang guard: the apps sleep 60 s
    assert run.returncode == 1, stderr  # the apps did not finish: the run ended with the rank
    assert "one of its processes died" in stderr or "was killed by SIGKILL" in stderr, stderr


def test_a_signal_to_a_stub_reaches_its_rank(tmp_path, mark) -> None:
    run = start_long_run(tmp_path, mark)
    stub = next(process for process in marked(mark) if is_stub(process) and not is_engine_stub(process))
    stub.send_signal(signal.SIGTERM)  # caught by the stub: only its rank, told in turn, ends the run
    _, stderr = run.communicate(timeout=30)  # not the apps' 60 s
    assert run.returncode == 1, stderr
    # Whoever notices first says so: the launcher (a process died), or rank 0, which names the
    # rank and how it ended (a worker rank told SIGTERM kills its apps and exits 128 + 15).
    assert ("one of its processes died" in stderr
            or re.search(r"MPI rank \d \(worker \d, pid \d+ on .*\) (exited with code 143|was killed by SIGTERM)",
                         stderr)), stderr


def test_a_job_given_hosts_by_a_resource_manager_starts_its_ranks_as_before(run, tmp_path) -> None:
    (tmp_path / "where.swift").write_text(WHERE)  # ranks on other hosts could not reach this one's zygote
    result = run(swiftcloud("run", "-n", "3", "--transport", "mpi", "where.swift"),
                 env={"SLURM_JOB_NODELIST": os.uname().nodename})
    assert result.returncode == 0, result.stderr
    lines = sorted_lines(result.stdout)
    assert len(lines) == 4 and all(line.startswith("('hydra_pmi_proxy', ") for line in lines), lines


LIMIT = ('import python;\nimport io;\n'
         'app (file o) limit () { "sh" "-c" "ulimit -Sn" @stdout=o }\n'
         'file f <"limit.txt"> = limit();\n'
         'printf("%s", python("import resource", "str(resource.getrlimit(resource.RLIMIT_NOFILE)[0])"));\n')


def test_a_rank_and_its_apps_keep_the_launchers_limit_on_open_files(run, tmp_path) -> None:
    (tmp_path / "limit.swift").write_text(LIMIT)  # the zygote raises its own, for its many descriptors
    result = run(["sh", "-c", 'ulimit -Sn 512 && exec "$@"', "sh",
                  *swiftcloud("run", "-n", "3", "--transport", "mpi", "limit.swift")])
    assert result.returncode == 0, result.stderr
    assert result.stdout == "512\n" and (tmp_path / "limit.txt").read_text() == "512\n"
