"""`swiftcloud run` under MPI (`-n 3`: 1 engine rank + 2 worker ranks), as a user runs it.

Both ways to start are covered: `swiftcloud run -n 3` (which starts the venv's
mpiexec itself) and the user's own `mpiexec -n 3 swiftcloud run --mpi`. Every
test also proves that no rank or app outlives the run (the `mark` fixture).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

from .conftest import MARK, REPO_ROOT, marked, mpiexec, swiftcloud

SCRIPTS = Path(__file__).parent / "scripts"


def sorted_lines(text: str) -> list[str]:
    return sorted(line for line in text.splitlines() if line.strip())


def events(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]


def test_a_workflow_gives_the_same_output_and_files_under_mpi_and_locally(run, tmp_path) -> None:
    shutil.copy(SCRIPTS / "mixed.swift", tmp_path)
    local = run(swiftcloud("run", "-n", "3", "--transport", "local", "--run-dir", "local",
                           "mixed.swift"))
    assert local.returncode == 0, local.stderr
    local_files = {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()}
    shutil.rmtree(tmp_path / "out")

    mpi = run(swiftcloud("run", "-n", "3", "--transport", "mpi", "--run-dir", "mpi",
                         "mixed.swift"))
    assert mpi.returncode == 0, mpi.stderr
    assert sorted_lines(mpi.stdout) == sorted_lines(local.stdout)
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == local_files
    assert "app says 3" in mpi.stdout and "persisted 42" in mpi.stdout
    assert "squares: 24 lines" in mpi.stdout and "slept on a worker" in mpi.stdout
    ends = [e for e in events(tmp_path / "mpi") if e["event"] == "end"]
    assert Counter(e["label"] for e in ends) == {  # python_persist runs on the engine
        "square": 24, "python": 24, "shout": 3, "gather": 1, "digest": 1, "sleep": 1}
    assert {e["worker"] for e in ends} == {0, 1}  # worker ranks 1 and 2
    assert all(e["status"] == "ok" for e in ends)


def test_a_users_own_mpiexec_runs_it_too(run, tmp_path) -> None:
    shutil.copy(SCRIPTS / "mixed.swift", tmp_path)
    result = run(mpiexec(3, *swiftcloud("run", "--mpi", "--run-dir", "own", "mixed.swift",
                                        "--n=6")))
    assert result.returncode == 0, result.stderr
    assert "squares: 6 lines" in result.stdout
    assert [e["workers"] for e in events(tmp_path / "own") if e["event"] == "run_start"] == [2]
    # Started by a launcher, --mpi is implied.
    implied = run(mpiexec(3, *swiftcloud("run", "--run-dir", "implied", "mixed.swift", "--n=6")))
    assert implied.returncode == 0, implied.stderr
    assert sorted_lines(implied.stdout) == sorted_lines(result.stdout)


def test_hello_world_without_tasks_starts_and_stops_every_rank(run) -> None:
    result = run(swiftcloud("run", "--transport", "mpi", str(SCRIPTS.parent.parent.parent /
                                                              "examples" / "hello.swift")))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello world\n" and result.stderr == ""


def test_every_rank_collects_garbage_once_its_start_is_over(run, tmp_path) -> None:
    # A process of ours pauses its collector while it starts (hostkit.startup): a worker rank
    # resumes it at its session's start, the engine at its run's.
    probe = '"import gc", "repr((gc.isenabled(), gc.get_freeze_count() > 0))"'
    (tmp_path / "gc.swift").write_text(
        f"import io;\nimport python;\nstring w = python({probe});\nstring e = python_persist({probe});\n"
        'printf("worker %s engine %s", w, e);\n')
    for how in (swiftcloud("run", "-n", "3", "--transport", "mpi", "gc.swift"),
                mpiexec(3, *swiftcloud("run", "--mpi", "gc.swift"))):
        result = run(how)
        assert result.returncode == 0, result.stderr
        assert result.stdout == "worker (True, True) engine (True, True)\n"


def test_an_app_failure_is_a_runtime_error_and_stops_the_other_ranks_work(run, tmp_path) -> None:
    (tmp_path / "fail.swift").write_text(
        'app (file o) bad () { "sh" "-c" "echo something broke >&2; exit 3" @stdout=o }\n'
        'app (void o) slow (int s) { "sh" "-c" "sleep $0; touch slept" s }\n'
        'file a = bad();\n'
        'slow(60);\n')
    result = run(swiftcloud("run", "-n", "3", "--transport", "mpi", "fail.swift"))
    assert result.returncode == 1
    assert not (tmp_path / "slept").exists()  # the 60 s app was cancelled, not waited for
    assert "Swift: fail.swift:3: app function 'bad'" in result.stderr
    assert "command: sh -c 'echo something broke >&2; exit 3'" in result.stderr
    assert "something broke" in result.stderr
    assert "MPI_Abort" not in result.stderr and "BAD TERMINATION" not in result.stdout


def test_retries_rerun_a_failing_app_until_it_succeeds(run, tmp_path) -> None:
    flaky = tmp_path / "flaky.sh"
    flaky.write_text('#!/bin/sh\nc=$(cat "$1" 2>/dev/null || echo 0); c=$((c+1)); echo $c > "$1"\n'
                     '[ $c -ge 3 ] || { echo "try $c failed" >&2; exit 1; }\n'
                     'echo "worked on try $c"\n')
    flaky.chmod(0o755)
    (tmp_path / "retry.swift").write_text(
        'import files;\nimport io;\n'
        'app (file o) flaky (string counter) { "./flaky.sh" counter @stdout=o }\n'
        'file f = flaky("count");\nprintf("%s", read(f));\n')
    result = run(swiftcloud("run", "-n", "3", "--transport", "mpi", "--retries", "2",
                            "--run-dir", "runlog", "retry.swift"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "worked on try 3"
    (end,) = [e for e in events(tmp_path / "runlog") if e["event"] == "end"]
    assert end["status"] == "ok" and end["attempts"] == 3

    (tmp_path / "count").unlink()
    too_few = run(swiftcloud("run", "-n", "3", "--transport", "mpi", "--retries", "1",
                             "retry.swift"))
    assert too_few.returncode == 1
    assert "app function 'flaky'" in too_few.stderr and "try 2 failed" in too_few.stderr


def test_a_killed_rank_fails_the_run_fast_with_a_clear_message(run, tmp_path) -> None:
    # One worker rank kills itself from a Python leaf while the other runs a long app.
    (tmp_path / "die.swift").write_text(
        'import python;\n'
        'app (void o) slow (int s) { "sh" "-c" "sleep $0; touch slept" s }\n'
        'slow(60);\n'
        'string r = python("import os, signal, time; time.sleep(0.3); '
        'os.kill(os.getpid(), signal.SIGKILL)", "\'never\'");\n')
    result = run(swiftcloud("run", "-n", "3", "--transport", "mpi", "die.swift"))
    assert result.returncode == 1
    assert not (tmp_path / "slept").exists()  # the run ended with the rank, not with the 60 s app
    # Whoever notices first says so: the launcher (mpiexec's status), or rank 0 watching its
    # worker ranks (how the kernel says the rank ended).
    assert re.search(r"swiftcloud: the MPI run was stopped: one of its processes died \(mpiexec exit status 9, "
                     r"e\.g\. killed by SIGKILL\)|Swift: MPI rank [12] \(worker [01], pid \d+ on \S+\) was killed "
                     r"by SIGKILL; an MPI run cannot go on", result.stderr), result.stderr


def test_compile_and_usage_errors_keep_their_exit_status(run, tmp_path) -> None:
    (tmp_path / "bad.swift").write_text('int x = "text";\n')
    result = run(swiftcloud("run", "-n", "3", "--transport", "mpi", "bad.swift"))
    assert result.returncode == 2
    assert "bad.swift:1:" in result.stderr and "swiftcloud: the MPI run" not in result.stderr
    missing = run(swiftcloud("run", "-n", "3", "--transport", "mpi", "absent.swift"))
    assert missing.returncode == 2 and "no such script: absent.swift" in missing.stderr
    too_few = run(swiftcloud("run", "-n", "1", "--transport", "mpi", "bad.swift"))
    assert too_few.returncode == 2 and "-n needs at least 2 processes" in too_few.stderr


WHERE = ('import python;\nimport io;\n'
         'printf("in an MPI rank %s", python("import sys", '
         '"str(\'mpi4py.MPI\' in sys.modules and sys.modules[\'mpi4py.MPI\'].Is_initialized())"));\n'
         'printf("launcher variables %s", python("import os", "str(sorted(k for k in os.environ '
         'if k.startswith((\'PMI_\', \'HYDI_\', \'MPI_LOCAL\'))))"));\n')


def test_the_environment_chooses_what_auto_means_and_apps_see_no_launcher(run, tmp_path) -> None:
    (tmp_path / "where.swift").write_text(WHERE)
    mpi = run(swiftcloud("run", "-n", "3", "where.swift"), env={"SWIFTCLOUD_TRANSPORT": "mpi"})
    assert mpi.returncode == 0, mpi.stderr
    assert sorted_lines(mpi.stdout) == ["in an MPI rank True", "launcher variables []"]
    local = run(swiftcloud("run", "-n", "3", "where.swift"), env={"SWIFTCLOUD_TRANSPORT": "local"})
    assert local.returncode == 0, local.stderr
    assert "in an MPI rank False" in local.stdout


LONG = ('app (void o) slow (int s) { "sleep" s }\n'
        'slow(60);\nslow(61);\ntrace("started");\n')


def start_long_run(tmp_path, mark: str) -> subprocess.Popen[str]:
    """`swiftcloud run -n 3` of two 60 s apps, in its own session (as a terminal's job)."""
    (tmp_path / "long.swift").write_text(LONG)
    env = {**os.environ, MARK: mark, "PYTHONPATH": str(REPO_ROOT)}
    run = subprocess.Popen(swiftcloud("run", "-n", "3", "--transport", "mpi", "long.swift"),
                           cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    assert run.stdout is not None and run.stdout.readline() == "trace: started\n"
    deadline = time.monotonic() + 10
    while len([p for p in marked(mark) if p.name() == "sleep"]) < 2:
        assert time.monotonic() < deadline, "the apps did not start"
        time.sleep(0.05)
    return run


def test_ctrl_c_interrupts_every_rank_and_app(tmp_path, mark) -> None:
    run = start_long_run(tmp_path, mark)
    os.killpg(run.pid, signal.SIGINT)  # what a terminal's Ctrl-C does to the foreground job
    _, stderr = run.communicate(timeout=15)
    assert run.returncode == 130
    assert "swiftcloud: interrupted" in stderr and "died" not in stderr


def test_sigterm_to_swiftcloud_stops_the_job(tmp_path, mark) -> None:
    run = start_long_run(tmp_path, mark)
    run.terminate()  # only the launching process, as `timeout` or a batch system does
    _, stderr = run.communicate(timeout=15)
    assert run.returncode == 128 + signal.SIGTERM
    assert "died" not in stderr
