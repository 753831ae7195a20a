"""A skeleton task reads its inputs, then sleeps its computation, then writes: a slow read
adds to its time instead of hiding inside the sleep.

The slow store is a FIFO whose writer (a thread of this test) holds the bytes back for
DELAY seconds: the task's read blocks in the kernel exactly as a read through a slow
mount does, and the task cannot tell the two apart; the bytes it gets are real. The same
task on a regular file is the fast store. Only lower bounds are asserted (a loaded
machine can only make a task slower): the slow task lasts at least DELAY + COMPUTE, and
still sleeps well after its input's last byte arrived (COMPUTE less its own start-up, which
the recorded computation includes), which a sleep counted from the process's start (the
old order) would not: with DELAY > COMPUTE that sleep is over before the bytes come.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from apps.lmps import skeleton_chunk

COMPUTE = 1.0  # the recorded computation time the task sleeps
DELAY = 1.5  # how long the slow store holds the input back: longer, so a sleep from the start would be over
CONTENT = b"hour,factor\n4848,0.7\n" * 1000


def durations_file(path: Path) -> Path:
    path.write_text(json.dumps({
        "format": skeleton_chunk.DURATIONS_FORMAT, "tasks": [
            {"first": 7, "count": 1, "hours": [7], "seconds": COMPUTE + 0.3, "compute_s": COMPUTE,
             "read_s": 0.01, "write_s": 0.29, "output_bytes": 4096}]}))
    return path


def start_task(durations: Path, source: Path, out: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-S", "-E", skeleton_chunk.__file__, "solve", "--durations",
                             str(durations), "--first", "7", "--count", "1", "--out", str(out), str(source)],
                            stderr=subprocess.PIPE)


def test_a_slow_read_adds_to_the_task_time(tmp_path: Path) -> None:
    durations = durations_file(tmp_path / "durations.json")
    fast_input, slow_input = tmp_path / "fast.csv", tmp_path / "slow.csv"
    fast_input.write_bytes(CONTENT)
    os.mkfifo(slow_input)
    delivered: list[float] = []

    def slow_store() -> None:
        with open(slow_input, "wb") as pipe:  # blocks until the task opens its input
            time.sleep(DELAY)
            pipe.write(CONTENT)
        delivered.append(time.monotonic())

    feeder = threading.Thread(target=slow_store)
    feeder.start()
    began = time.monotonic()
    slow = start_task(durations, slow_input, tmp_path / "slow.json")
    fast = start_task(durations, fast_input, tmp_path / "fast.json")
    fast_status, fast_err = fast.wait(timeout=60), fast.stderr.read() if fast.stderr else b""
    fast_end = time.monotonic()
    slow_status, slow_err = slow.wait(timeout=60), slow.stderr.read() if slow.stderr else b""
    slow_end = time.monotonic()
    feeder.join(timeout=60)
    assert fast_status == 0, fast_err.decode()
    assert slow_status == 0, slow_err.decode()

    assert fast_end - began >= COMPUTE
    assert slow_end - began >= DELAY + COMPUTE  # the read is not inside the sleep
    assert slow_end - delivered[0] >= COMPUTE / 2  # the computation came after the last input byte
    headers = {name: json.loads((tmp_path / f"{name}.json").read_bytes().split(b"\n", 1)[0])
               for name in ("fast", "slow")}
    assert headers["slow"]["read_s"] >= DELAY > headers["fast"]["read_s"]
    for header in headers.values():  # both read the same real bytes, and wrote the recorded size
        assert header["inputs"][0]["bytes"] == len(CONTENT) and header["compute_s"] == COMPUTE
    assert (tmp_path / "slow.json").stat().st_size == (tmp_path / "fast.json").stat().st_size == 4096
