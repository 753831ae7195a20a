"""A process of ours ends after its exit handlers, without the interpreter's teardown, unless a
thread that is not a daemon still runs (hostkit.process_end)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# An object whose finalizer runs only in the interpreter's teardown, and output still buffered.
PROLOGUE = """
import atexit, sys, threading
from hostkit.process_end import end_command, exit_without_teardown
class TornDown:
    def __del__(self):
        print("torn down", flush=True)
kept = TornDown()
atexit.register(lambda: print("handler ran"))
sys.stdout.write("buffered, ")
"""


def run(program: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", PROLOGUE + program], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": ""})


def test_an_exit_without_teardown_runs_the_exit_handlers_and_keeps_the_status() -> None:
    ended = run("exit_without_teardown(3)\nprint('after the exit')\n")
    assert ended.returncode == 3
    assert ended.stdout == "buffered, handler ran\n"


def test_a_command_ends_without_teardown_when_no_other_thread_runs() -> None:
    ended = run("threading.Thread(target=lambda: None, daemon=True).start()\n"
                "end_command(4)\nprint('after the exit')\n")
    assert ended.returncode == 4
    assert ended.stdout == "buffered, handler ran\n"


def test_a_command_that_left_a_thread_running_ends_as_usual_once_it_is_done() -> None:
    # The thread waits for the main thread to pass `end_command`: were the process ended there,
    # neither line would be printed.
    ended = run("passed = threading.Event()\n"
                "threading.Thread(target=lambda: (passed.wait(60), print('thread done'))).start()\n"
                "status = end_command(5)\nprint('returned')\npassed.set()\nsys.exit(status)\n")
    assert ended.returncode == 5
    assert ended.stdout.splitlines() == ["buffered, returned", "thread done", "handler ran", "torn down"]
