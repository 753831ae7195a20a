"""The in-run references of the throughput benchmarks, each timed from its first task.

- `pool_noop`: `ProcessPoolExecutor(2)`, one `submit` per no-op task.
- `xargs_true`: `xargs -P2 -n1 /bin/true` over n arguments.
- `pool_fan`: a hand-written process pool with dependency release: each
  finished task submits its dependent from the completion callback, and the
  last dependent submits the reduce.
- `xargs_pipeline`: the file pipeline's stages with `xargs -P2`: `cp` the
  1 MB template n times, `sha256sum` the copies, merge the sums.

Each returns seconds; pools are created before the clock starts, as a
running system's are.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor, wait
from functools import partial
from pathlib import Path


def noop(value: object) -> object:
    """The no-op task of the Python references."""
    return value


def reduce_values(values: list[object]) -> int:
    """The reduce of the fan-out reference: touches every value, like ours."""
    return len(" ".join(str(value) for value in values).split())


def _warm(pool: ProcessPoolExecutor, workers: int) -> None:
    wait([pool.submit(noop, i) for i in range(workers * 4)])


def pool_noop(tasks: int, workers: int = 2) -> float:
    with ProcessPoolExecutor(workers) as pool:
        _warm(pool, workers)
        started = time.perf_counter()
        wait([pool.submit(noop, i) for i in range(tasks)])
        return time.perf_counter() - started


def pool_fan(width: int, workers: int = 2) -> float:
    """`width` tasks, each releasing one dependent, then one reduce over all dependents."""
    with ProcessPoolExecutor(workers) as pool:
        _warm(pool, workers)
        second: list[object] = [None] * width
        left = [width]
        lock = threading.Lock()
        finished = threading.Event()

        def on_second(index: int, future: Future) -> None:
            second[index] = future.result()
            with lock:
                left[0] -= 1
                last = left[0] == 0
            if last:
                pool.submit(reduce_values, second).add_done_callback(lambda _: finished.set())

        def on_first(index: int, future: Future) -> None:
            pool.submit(noop, future.result()).add_done_callback(partial(on_second, index))

        started = time.perf_counter()
        for index in range(width):
            pool.submit(noop, index).add_done_callback(partial(on_first, index))
        finished.wait()
        return time.perf_counter() - started


def xargs_true(tasks: int) -> float:
    numbers = "\n".join(str(i) for i in range(1, tasks + 1)) + "\n"
    started = time.perf_counter()
    subprocess.run(["xargs", "-P2", "-n1", "/bin/true"], input=numbers, text=True, check=True)
    return time.perf_counter() - started


def xargs_pipeline(files: int, workdir: Path) -> float:
    data = workdir / "xargs-data"
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    template = workdir / "template.dat"
    names = "\n".join(str(data / f"{i}.dat") for i in range(1, files + 1)) + "\n"
    started = time.perf_counter()
    subprocess.run(["xargs", "-P2", "-I{}", "cp", str(template), "{}"], input=names, text=True,
                   check=True)
    with open(workdir / "xargs-sums.txt", "w") as sums:
        subprocess.run(["xargs", "-P2", "-n1", "sha256sum"], input=names, text=True, check=True,
                       stdout=sums)
    with open(workdir / "xargs-merged.txt", "w") as merged:
        subprocess.run(["cat", str(workdir / "xargs-sums.txt")], check=True, stdout=merged)
    elapsed = time.perf_counter() - started
    shutil.rmtree(data)
    return elapsed


def make_template(workdir: Path, size: int = 1 << 20) -> None:
    """The 1 MB file every writer copies (incompressible, written once)."""
    workdir.mkdir(parents=True, exist_ok=True)
    with open("/dev/urandom", "rb") as source, open(workdir / "template.dat", "wb") as out:
        out.write(source.read(size))
