"""A run's workers get the implementations of the worker builtins its program calls, and
nothing of the library when it calls none (`engine.runtime.engine.task_runner`): a worker
rank then starts without importing the library."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from engine.lang.ir import Program
from engine.runtime.engine import task_runner
from engine.script import compile_script

ROOT = Path(__file__).resolve().parents[2]

APPS_ONLY = 'app (file o) touch () { "touch" o }\nfile f <"f.txt"> = touch();\n'
CALLS_LIBRARY = ('import io;\nimport python;\nimport string;\n'
                 'string s = python("x = 2", "repr(x)");\nprintf("%s %i", strcat(s, "!"), strlen(s));\n')


@pytest.fixture(autouse=True)
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def compiled(tmp_path: Path, text: str) -> Program:
    script = tmp_path / "script.swift"
    script.write_text(text)
    return compile_script(str(script))


def test_a_program_lists_the_library_functions_it_calls(tmp_path: Path) -> None:
    assert compiled(tmp_path, APPS_ONLY).library_calls == frozenset()
    assert compiled(tmp_path, CALLS_LIBRARY).library_calls == {"python", "printf", "strcat", "strlen"}


def test_workers_get_only_the_worker_builtins_called(tmp_path: Path) -> None:
    runner = task_runner(compiled(tmp_path, CALLS_LIBRARY).library_calls)
    assert set(pickle.loads(pickle.dumps(runner)).__getstate__()["builtins"]) == {"python"}


def in_a_new_process(probe: str, runner: object) -> list[str]:
    """The words `probe` prints, run in a new process with `runner` pickled on its stdin."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", probe], input=pickle.dumps(runner), env=env,
                          capture_output=True, check=True).stdout.decode().split()


def load_in_a_new_process(runner: object) -> set[str]:
    """The modules of ours a new process imports to unpickle `runner`, as a worker rank does."""
    probe = ("import pickle, sys\nbefore = set(sys.modules)\npickle.loads(sys.stdin.buffer.read())\n"
             "print(' '.join(sorted(set(sys.modules) - before)))\n")
    return {name for name in in_a_new_process(probe, runner) if name.startswith("engine.")}


def test_a_program_of_apps_alone_sends_nothing_of_the_library(tmp_path: Path) -> None:
    apps_only = load_in_a_new_process(task_runner(compiled(tmp_path, APPS_ONLY).library_calls))
    assert "engine.task.run" in apps_only
    assert not any(name.startswith("engine.runtime") for name in apps_only)
    with_library = load_in_a_new_process(task_runner(compiled(tmp_path, CALLS_LIBRARY).library_calls))
    assert "engine.runtime.builtins" in with_library


def test_a_worker_rank_of_apps_imports_no_dataclasses(tmp_path: Path) -> None:
    """`dataclasses` (with the `inspect` it brings) and a dataclass's compiled methods cost a
    worker's start about 15 ms: nothing a worker rank loads to run apps is one."""
    probe = ("import pickle, sys\nfrom engine.scheduler.launch import worker_main\n"
             "import engine.scheduler.mpi, engine.scheduler.worker, engine.task.run\n"
             "pickle.loads(sys.stdin.buffer.read())\n"
             "print(' '.join(name for name in ('dataclasses', 'inspect') if name in sys.modules))\n")
    assert in_a_new_process(probe, task_runner(compiled(tmp_path, APPS_ONLY).library_calls)) == []
