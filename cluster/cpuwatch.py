"""CPU headroom during a measurement: was this machine, not the store, the bottleneck?

All nodes of an emulated cluster share the host's cores, so a measurement taken while the
host was saturated says more about the host than about the store. `CpuWatch` is a context
manager put around one measured quantity (an I/O round, a workflow run, an LMP point): it
reads the host's CPU counters (/proc/stat) and the CPU time of every daemon and client
the cluster recorded (MosaStore benefactors and manager, DataNodes and NameNode,
chirp_servers, FUSE clients, MinIO, s3fs, with their child processes) at the start and at
the end, and reports the host's busy fraction, whether it passed the threshold, and the
CPU seconds each role used on each node. Time spent waiting for I/O counts as idle: a core
waiting for a throttled disk could have run something else.

The host's counters tick 100 times a second per core, so a window of a few milliseconds (a
1 MB round on a fast store) holds a tick or none and its busy fraction is noise (0 or 1). A
sampler thread reads the counters every 100 ms, and a measurement shorter than a second is
judged over the last second before its end: the host's load around it.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import psutil

from cluster.state import ClusterState

# Above this busy fraction over a measurement the host, not the store, may have set the pace
# (the threshold Mininet-HiFi-style emulators use to flag a run; docs/study.md).
SATURATED_ABOVE = 0.85
MIN_WINDOW = 1.0  # seconds: shorter measurements are judged over the last second before their end
SAMPLE_EVERY = 0.1


@dataclass(frozen=True)
class HostCounters:
    """The host's CPU time counters (all cores), in clock ticks."""

    busy: int
    total: int


def host_counters() -> HostCounters:
    """/proc/stat's first line: busy is everything but idle and iowait."""
    with open("/proc/stat", encoding="ascii") as handle:
        fields = [int(word) for word in handle.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    total = sum(fields[:8])  # guest time is already inside user and nice
    return HostCounters(total - idle, total)


class _Sampler:
    """The host's counters every SAMPLE_EVERY seconds, the last minute of them."""

    def __init__(self) -> None:
        self.samples: deque[tuple[float, HostCounters]] = deque(maxlen=int(60 / SAMPLE_EVERY))
        self.lock = threading.Lock()
        threading.Thread(target=self._run, name="cpuwatch-sampler", daemon=True).start()

    def _run(self) -> None:
        while True:
            reading = (time.monotonic(), host_counters())
            with self.lock:
                self.samples.append(reading)
            time.sleep(SAMPLE_EVERY)

    def at_or_before(self, moment: float) -> HostCounters | None:
        """The latest reading taken at or before `moment` (None: none that old)."""
        with self.lock:
            found = [counters for taken, counters in self.samples if taken <= moment]
        return found[-1] if found else None


_sampler: _Sampler | None = None
_sampler_lock = threading.Lock()


def _the_sampler() -> _Sampler:
    global _sampler
    with _sampler_lock:
        if _sampler is None:
            _sampler = _Sampler()
        return _sampler


def busy_between(before: HostCounters, after: HostCounters) -> float:
    """The host's busy fraction between two readings (0 when no tick passed)."""
    ticks = after.total - before.total
    return (after.busy - before.busy) / ticks if ticks > 0 else 0.0


def _children_map() -> dict[int, list[int]]:
    """Every process's children, from one pass over /proc (psutil's children() makes a pass
    per call: 1.6 s for a cluster's 59 daemons on a loaded 2-core host, at every reading)."""
    children: dict[int, list[int]] = {}
    for process in psutil.process_iter(["ppid"]):
        children.setdefault(process.info["ppid"], []).append(process.pid)
    return children


def _cpu_seconds(process: psutil.Process, children: dict[int, list[int]]) -> float:
    """CPU seconds of a process and its living descendants (reaped children included)."""
    total, todo = 0.0, [process.pid]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            times = process.cpu_times() if pid == process.pid else psutil.Process(pid).cpu_times()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


def daemon_cpu(cluster: ClusterState) -> dict[tuple[str, str, int], float]:
    """CPU seconds so far of each recorded daemon, keyed by (node, role, pid)."""
    seconds: dict[tuple[str, str, int], float] = {}
    children = _children_map()
    for entry in cluster.processes:
        try:
            process = psutil.Process(entry["pid"])
            if abs(process.create_time() - entry["create_time"]) > 1.0:
                continue  # the PID was reused: not ours any more
            seconds[(entry.get("node") or "hub", entry["role"], entry["pid"])] = _cpu_seconds(process, children)
        except psutil.NoSuchProcess:
            continue
    return seconds


@dataclass
class CpuWindow:
    """What one measurement used: wall seconds, host busy fraction, CPU seconds per node and role."""

    seconds: float
    host_busy: float
    threshold: float
    by_node: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def saturated(self) -> bool:
        return self.host_busy > self.threshold

    def as_dict(self) -> dict[str, Any]:
        return {"seconds": round(self.seconds, 3), "host_busy": round(self.host_busy, 3),
                "saturated": self.saturated, "threshold": self.threshold,
                "daemon_cpu_s": {node: {role: round(value, 2) for role, value in roles.items()}
                                 for node, roles in sorted(self.by_node.items())}}


class CpuWatch:
    """`with CpuWatch(cluster) as watch: measure()`; then `watch.window` says what it cost."""

    def __init__(self, cluster: ClusterState | None, threshold: float = SATURATED_ABOVE) -> None:
        self.cluster = cluster
        self.threshold = threshold
        self.window: CpuWindow | None = None

    def __enter__(self) -> CpuWatch:
        self._sampler = _the_sampler()
        self._daemons = daemon_cpu(self.cluster) if self.cluster else {}
        self._host = host_counters()
        self._began = time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        host, ended = host_counters(), time.monotonic()
        start = self._host
        if ended - self._began < MIN_WINDOW:
            start = self._sampler.at_or_before(ended - MIN_WINDOW) or self._host
        after = daemon_cpu(self.cluster) if self.cluster else {}
        by_node: dict[str, dict[str, float]] = {}
        for key, value in after.items():
            node, role, _ = key
            used = value - self._daemons.get(key, 0.0)  # a daemon started meanwhile counts from zero
            by_node.setdefault(node, {})
            by_node[node][role] = by_node[node].get(role, 0.0) + used
        self.window = CpuWindow(ended - self._began, busy_between(start, host), self.threshold, by_node)
