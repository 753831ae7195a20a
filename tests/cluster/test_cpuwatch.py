"""CpuWatch: the host's busy fraction and the recorded daemons' CPU seconds over a measurement."""

from __future__ import annotations

import multiprocessing
import multiprocessing.synchronize
import subprocess
import sys
import time
from dataclasses import asdict

import psutil

from cluster.cpuwatch import CpuWatch, HostCounters, busy_between, host_counters
from cluster.state import ClusterState
from hostkit.processes import Process


def test_busy_fraction_is_busy_ticks_over_all_ticks() -> None:
    assert busy_between(HostCounters(100, 1000), HostCounters(400, 1400)) == 0.75
    assert busy_between(HostCounters(5, 10), HostCounters(5, 10)) == 0.0


def test_counters_only_grow() -> None:
    first = host_counters()
    second = host_counters()
    assert 0 <= first.busy <= first.total
    assert second.total >= first.total and second.busy >= first.busy


def _burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_every_core_busy_is_saturated() -> None:
    cores = psutil.cpu_count() or 1
    with CpuWatch(None) as watch:
        # Longer than MIN_WINDOW: a shorter window is judged over the second before its end.
        workers = [multiprocessing.Process(target=_burn, args=(1.5,)) for _ in range(cores)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    assert watch.window is not None
    assert watch.window.host_busy > 0.9 and watch.window.saturated


def test_a_recorded_daemon_is_charged_its_cpu_seconds(tmp_path) -> None:
    daemon = subprocess.Popen([sys.executable, "-c", "import sys, time\nsys.stdin.readline()\n"
                               "end = time.process_time() + 0.5\nwhile time.process_time() < end: pass\n"
                               "print('burned', flush=True)\nsys.stdin.readline()"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        cluster = ClusterState("swc0000", str(tmp_path), "hub", "br0", [])
        cluster.processes.append(asdict(Process("benefactor", daemon.pid, psutil.Process(daemon.pid).create_time(),
                                                str(tmp_path / "log"), node="node3")))
        with CpuWatch(cluster) as watch:
            daemon.stdin.write("go\n")
            daemon.stdin.flush()
            # Its own word that it has used its half second. (Waiting for /proc to show 0.5 s
            # hung: the kernel reports CPU time in whole ticks, and showed 0.49 s for good.)
            assert daemon.stdout.readline() == "burned\n"
        used = watch.window.by_node["node3"]["benefactor"]
        assert 0.45 <= used <= 2.0
        assert watch.window.as_dict()["daemon_cpu_s"]["node3"]["benefactor"] == round(used, 2)
    finally:
        daemon.kill()
        daemon.wait()


def _burn_until_stopped(burned: multiprocessing.synchronize.Event, stop: multiprocessing.synchronize.Event,
                        seconds: float) -> None:
    """Burn CPU until `stop`, saying (`burned`) once `seconds` of it are burned."""
    start = time.process_time()
    while not stop.is_set():
        if not burned.is_set() and time.process_time() - start >= seconds:
            burned.set()


def test_a_short_measurement_is_judged_over_the_last_second() -> None:
    """A 10 ms window holds a tick of the counters or none; judged over the last second, a
    host that burned every core during that second is saturated, one idle in it is not. The
    measurement is taken while every core still burns, 1.5 s in: measured after the burners
    ended, the second it was judged over held their exits (busy 0.81 once, on a fresh clone)."""
    with CpuWatch(None):
        pass  # starts the sampler
    cores = psutil.cpu_count() or 1
    stop = multiprocessing.Event()
    burned = [multiprocessing.Event() for _ in range(cores)]
    workers = [multiprocessing.Process(target=_burn_until_stopped, args=(said, stop, 1.5)) for said in burned]
    for worker in workers:
        worker.start()
    try:
        for said in burned:
            assert said.wait(timeout=120)  # a hang guard: each burns 1.5 s of CPU
        with CpuWatch(None) as busy:
            time.sleep(0.01)
    finally:
        stop.set()
        for worker in workers:
            worker.join()
    assert busy.window is not None and busy.window.saturated and busy.window.seconds < 0.5
