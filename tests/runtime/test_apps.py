"""App execution (spec §5.3) with real processes, through `run_leaf`."""

from __future__ import annotations

import contextlib
import os
import pickle
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from engine.task.contract import AppPhases, AppSpec, BuiltinCall, LeafError
from engine.task.run import TaskRunner


def _runner() -> TaskRunner:
    from engine.runtime.builtins import BUILTINS, SimpleContext

    return TaskRunner({name: builtin.impl for name, builtin in BUILTINS.items()}, SimpleContext)


run_leaf = _runner()

REPO = Path(__file__).resolve().parents[2]


def failure(spec: AppSpec) -> LeafError:
    with pytest.raises(LeafError) as caught:
        run_leaf(spec)
    return caught.value


def test_echo_inherits_stdout(capfd: pytest.CaptureFixture[str]) -> None:
    print("before", flush=False)  # must not be overtaken by the child's output
    phases = run_leaf(AppSpec(argv=("echo", "hello", "world")))
    assert isinstance(phases, AppPhases) and (phases.bytes_in, phases.bytes_out) == (0, 0)
    assert capfd.readouterr().out == "before\nhello world\n"


def test_argument_with_spaces_stays_one_entry(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    run_leaf(AppSpec(argv=("printf", "[%s]", "a b", "", "c"), stdout=str(target)))
    assert target.read_text() == "[a b][][c]"


def test_tr_with_stdin_and_stdout_redirection(tmp_path: Path) -> None:
    source = tmp_path / "note.txt"
    source.write_text("quiet words\n")
    target = tmp_path / "deep" / "er" / "loud.txt"  # parent directories are made
    run_leaf(AppSpec(argv=("tr", "a-z", "A-Z"), stdin=str(source), stdout=str(target)))
    assert target.read_text() == "QUIET WORDS\n"
    assert os.listdir(target.parent) == ["loud.txt"]


def test_stdout_target_appears_only_when_complete(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old contents\n")
    script = f"echo new; test \"$(cat {target})\" = 'old contents' || exit 3"
    run_leaf(AppSpec(argv=("sh", "-c", script), stdout=str(target)))
    assert target.read_text() == "new\n"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_failed_app_leaves_no_partial_files(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    half = tmp_path / "half.dat"
    script = f"echo partial; echo x > {half}; exit 4"
    error = failure(AppSpec(argv=("sh", "-c", script), stdout=str(target), outputs=(str(target), str(half))))
    assert error.message == f"<Child exited with code: 4>\ncommand: sh -c '{script}'"
    assert error.retriable is True
    assert os.listdir(tmp_path) == []


def test_false_failure_message() -> None:
    assert failure(AppSpec(argv=("false",))).message == "<Child exited with code: 1>\ncommand: false"


def test_killed_by_signal() -> None:
    error = failure(AppSpec(argv=("sh", "-c", "kill -KILL $$")))
    assert error.message == "<Child killed by signal: SIGKILL>\ncommand: sh -c 'kill -KILL $$'"


def test_program_not_found() -> None:
    error = failure(AppSpec(argv=("no-such-program-xyz", "a b")))
    assert error.message == (
        "<Could not start: No such file or directory: no-such-program-xyz>\n"
        "command: no-such-program-xyz 'a b'"
    )


def test_missing_stdin_file(tmp_path: Path) -> None:
    missing = tmp_path / "absent.txt"
    error = failure(AppSpec(argv=("cat",), stdin=str(missing), stdout=str(tmp_path / "o")))
    assert error.message == f"<Could not start: No such file or directory: {missing}>\ncommand: cat"
    assert os.listdir(tmp_path) == []


def test_stderr_tail_in_error_and_forwarded(capfd: pytest.CaptureFixture[str]) -> None:
    script = "for i in $(seq 1 30); do echo line$i >&2; done; printf 'no newline' >&2; exit 2"
    error = failure(AppSpec(argv=("sh", "-c", script)))
    expected_tail = [f"line{i}" for i in range(12, 31)] + ["no newline"]
    assert error.message == (
        f"<Child exited with code: 2>\ncommand: {shlex.join(['sh', '-c', script])}\nstderr (last lines):\n"
        + "\n".join(expected_tail)
    )
    forwarded = capfd.readouterr().err
    assert forwarded == "".join(f"line{i}\n" for i in range(1, 31)) + "no newline"


def test_stderr_redirection(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "err.txt"
    run_leaf(AppSpec(argv=("sh", "-c", "echo oops >&2; echo fine"), stderr=str(target)))
    assert target.read_text() == "oops\n"
    assert capfd.readouterr() == ("fine\n", "")


def test_cwd_and_environment(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    spec = AppSpec(
        argv=("sh", "-c", 'echo "$GREETING"; pwd'),
        stdout="out.txt",  # relative to cwd
        cwd=str(tmp_path),
        env=(("GREETING", "hi there"), ("PATH", os.environ["PATH"])),
    )
    run_leaf(spec)
    assert target.read_text() == f"hi there\n{tmp_path}\n"


def test_apps_never_see_secret_variables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Store credentials stay out of apps' environments (issue 16 item 9)."""
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s3-secret")
    monkeypatch.setenv("MY_STORE_TOKEN", "custom-secret")
    monkeypatch.setenv("HARMLESS", "visible")
    target = tmp_path / "env.txt"
    run_leaf(AppSpec(argv=("env",), stdout=str(target), hidden_env=("MY_STORE_TOKEN",)))
    seen = dict(line.split("=", 1) for line in target.read_text().splitlines() if "=" in line)
    assert seen["HARMLESS"] == "visible"
    assert "AWS_SECRET_ACCESS_KEY" not in seen and "MY_STORE_TOKEN" not in seen
    assert "s3-secret" not in target.read_text() and "custom-secret" not in target.read_text()


def test_a_long_stderr_line_keeps_its_start(capfd: pytest.CaptureFixture[str]) -> None:
    """stderr without newlines is kept by its first characters, not accumulated (issue 16 item 9)."""
    script = "head -c 3000000 /dev/zero | tr '\\0' 'x' >&2; printf '\\nend' >&2; exit 3"
    error = failure(AppSpec(argv=("sh", "-c", script)))
    tail = error.message.split("stderr (last lines):\n", 1)[1].split("\n")
    assert tail == ["x" * 1000, "end"]
    assert len(capfd.readouterr().err) == 3000000 + 4


def test_leaf_error_survives_pickling() -> None:
    error = pickle.loads(pickle.dumps(failure(AppSpec(argv=("false",)))))
    assert isinstance(error, LeafError) and error.retriable and error.message.startswith("<Child exited")


def test_specs_are_picklable() -> None:
    spec = AppSpec(argv=("a",), stdout="o", outputs=("o",), env=(("K", "V"),))
    assert pickle.loads(pickle.dumps(spec)) == spec


@pytest.mark.parametrize("app_stderr", ["kept", "closed"])  # worker in the stderr pump / in wait()
def test_sigterm_kills_the_apps_process_group(tmp_path: Path, app_stderr: str) -> None:
    pids = tmp_path / "pids"
    close = "exec 2>&-; " if app_stderr == "closed" else ""
    script = f"{close}sleep 60 & echo $$ $! > {pids}.tmp; mv {pids}.tmp {pids}; wait"
    worker_code = textwrap.dedent(
        f"""
        from engine.runtime.builtins import SimpleContext
        from engine.task.contract import AppSpec
        from engine.task.run import TaskRunner
        TaskRunner({{}}, SimpleContext)(AppSpec(argv=("sh", "-c", {script!r})))
        """
    )
    worker = subprocess.Popen([sys.executable, "-c", worker_code], cwd=REPO)
    try:
        deadline = time.monotonic() + 20
        while not pids.exists():
            assert time.monotonic() < deadline, "the app never started"
            time.sleep(0.05)
        app_pids = [int(p) for p in pids.read_text().split()]
        time.sleep(0.2)  # let the worker settle in its pump or wait
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=20) == -signal.SIGTERM
    finally:
        if worker.poll() is None:
            worker.kill()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in app_pids):
        assert time.monotonic() < deadline, "the app outlived its worker"
        time.sleep(0.05)


def test_an_attempt_whose_worker_died_never_publishes(tmp_path: Path) -> None:
    """kill -9 of the worker while its app runs: the app may finish, but its output never
    appears under the mapped name, so it cannot overwrite a retry's (issue 16 item 1)."""
    pid_file, target = tmp_path / "pid", tmp_path / "result.txt"
    script = f'echo $$ > {pid_file}.tmp; mv {pid_file}.tmp {pid_file}; sleep 1; echo late > "$1"'
    worker_code = ("from engine.runtime.builtins import SimpleContext\n"
                   "from engine.task.contract import AppSpec\nfrom engine.task.run import TaskRunner\n"
                   f"TaskRunner({{}}, SimpleContext)(AppSpec(argv=('sh', '-c', {script!r}, 'x', {str(target)!r}), outputs=({str(target)!r},)))\n")
    worker = subprocess.Popen([sys.executable, "-c", worker_code], cwd=REPO)
    try:
        deadline = time.monotonic() + 20
        while not pid_file.exists():
            assert time.monotonic() < deadline, "the app never started"
            time.sleep(0.05)
        app = psutil.Process(int(pid_file.read_text()))
        worker.kill()
        worker.wait(timeout=20)
        with contextlib.suppress(psutil.NoSuchProcess):
            app.wait(timeout=20)  # the orphaned attempt runs to its end...
    finally:
        if worker.poll() is None:
            worker.kill()
    assert not target.exists()  # ...and publishes nothing
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".result.")]  # its temporary, cleaned later


def test_app_written_outputs_appear_only_when_complete(tmp_path: Path) -> None:
    """A file the app writes itself (passed by path) is not visible under its name until the
    app succeeded, keeps its extension while written, and a failed app publishes nothing
    (issue 16 item 2)."""
    target = tmp_path / "result.csv"
    script = ('echo "$1" > "$1"; if [ -e "$2/$3" ]; then exit 9; fi')
    run_leaf(AppSpec(argv=("sh", "-c", script, "x", str(target), str(tmp_path), "result.csv"),
                     outputs=(str(target),)))
    written_as = target.read_text().strip()
    assert written_as.endswith(".csv") and os.path.basename(written_as).startswith(".result.")
    assert os.listdir(tmp_path) == ["result.csv"]

    failing = tmp_path / "half.txt"
    failure(AppSpec(argv=("sh", "-c", 'echo half > "$1"; exit 1', "x", str(failing)), outputs=(str(failing),)))
    assert os.listdir(tmp_path) == ["result.csv"]


def test_stale_temporaries_of_a_target_are_cleaned_when_it_is_published(tmp_path: Path) -> None:
    """What a crashed attempt left beside an output goes when the output is published."""
    target = tmp_path / "a01.txt"
    for stale in (".a01.0123456789ab.part.txt", ".a01.txt.0123456789ab.part"):
        (tmp_path / stale).write_text("half")
    (tmp_path / ".other.0123456789ab.part.txt").write_text("another target's")
    run_leaf(AppSpec(argv=("sh", "-c", 'echo done > "$1"', "x", str(target)), outputs=(str(target),)))
    assert target.read_text() == "done\n"
    assert sorted(os.listdir(tmp_path)) == [".other.0123456789ab.part.txt", "a01.txt"]


def test_walltime_ends_the_whole_process_group(tmp_path: Path) -> None:
    """An app past its walltime is killed with its children and fails, retriably (issue 16 item 4)."""
    pids = tmp_path / "pids"
    script = f"sleep 60 & echo $! > {pids}.tmp; mv {pids}.tmp {pids}; sleep 60"
    error = failure(AppSpec(argv=("sh", "-c", script), walltime=0.5))
    assert error.message.startswith("<Walltime exceeded: killed after 0.5 s>\ncommand: sh -c")
    assert error.retriable is True
    with contextlib.suppress(psutil.NoSuchProcess):  # already reaped: gone, as it should be
        psutil.Process(int(pids.read_text())).wait(timeout=20)  # the grandchild is gone too


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


# ------------------------------------------------------------------ other payloads


def test_builtin_call_on_a_worker() -> None:
    assert run_leaf(BuiltinCall("sleep", (0.01,))) is None
    assert run_leaf(BuiltinCall("argv", ("n",), script_args=("--n=5",))) == "5"


def test_builtin_errors_become_final_leaf_errors() -> None:
    with pytest.raises(LeafError) as caught:
        run_leaf(BuiltinCall("argv", ("n",)))
    assert caught.value.message == "argv(): The command line did not provide 'n'"
    assert caught.value.retriable is False


def test_internal_errors_never_escape() -> None:
    with pytest.raises(LeafError, match="internal error: unknown builtin 'nope'"):
        run_leaf(BuiltinCall("nope", ()))
    with pytest.raises(LeafError, match="internal error in a leaf task \\(TypeError"):
        run_leaf(BuiltinCall("strlen", (1, 2, 3)))
    with pytest.raises(LeafError, match="unknown leaf payload str"):
        run_leaf("echo hi")  # type: ignore[arg-type]


def _script(path: Path, says: str) -> None:
    """An executable at `path` that prints `says`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {says}\n")
    path.chmod(0o755)


def test_a_program_moved_after_it_was_found_is_looked_for_again(tmp_path: Path) -> None:
    """A worker finds a program in PATH once (`apps.ProgramPaths`); gone from there, it is searched again."""
    first, second = tmp_path / "first", tmp_path / "second"
    env = (("PATH", f"{first}:{second}:/usr/bin:/bin"),)
    _script(first / "prog", "first")
    run_leaf(AppSpec(argv=("prog",), env=env, stdout=str(tmp_path / "1.txt")))
    (first / "prog").unlink()
    _script(second / "prog", "second")
    run_leaf(AppSpec(argv=("prog",), env=env, stdout=str(tmp_path / "2.txt")))
    assert [(tmp_path / name).read_text() for name in ("1.txt", "2.txt")] == ["first\n", "second\n"]


def test_a_relative_directory_in_path_is_searched_from_the_apps_directory(tmp_path: Path) -> None:
    """`tools` comes first in PATH, relative to the app's directory: its `echo` wins over the
    system's, though the worker's own directory has none (a worker does not look such a PATH up)."""
    _script(tmp_path / "tools" / "echo", "mine")
    env = (("PATH", "tools:/usr/bin:/bin"),)
    run_leaf(AppSpec(argv=("echo", "system"), env=env, cwd=str(tmp_path), stdout="said.txt"))
    assert (tmp_path / "said.txt").read_text() == "mine\n"
