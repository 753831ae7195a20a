"""A CPU share of its own for each node: a cgroup per node whose quota a run can set.

All nodes share the host's cores. A part of the study that runs real applications on many
nodes (BLAST, EnergyPlus) would otherwise keep every core busy, and then the host, not the
nodes, sets the pace: the store daemons outside the nodes (MinIO, the delay line) wait for
a core, and which store wins depends on the scheduler. Mininet-HiFi's answer, used here:
give each node a fixed CPU bandwidth (CFS quota) that together leaves the host headroom,
and check at every measurement that it had it (cpuwatch.py).

Each node gets a cgroup at `up` (no quota: a node may use any idle core), and every process
started on the node joins it (node_exec.on_node joins its cgroups first): its daemons, FUSE
clients, MPI proxy, workers and their apps, so a node's FUSE client competes with its tasks
for the node's share as on a real host. `set_cores` gives every node a quota (or lifts it).

- cgroup v1 (this machine): `cpu.cfs_quota_us` / `cpu.cfs_period_us` in
  `/sys/fs/cgroup/cpu/swiftcloud-TAG/NODE`.
- cgroup v2 with the cpu controller: `cpu.max` ("QUOTA PERIOD" or "max PERIOD") in
  `<cgroup2>/swiftcloud-cpu-TAG/NODE`.
"""

from __future__ import annotations

import os

from hostkit.errors import ServiceError
from hostkit.mounts import cgroup2_root

V1_CPU = "/sys/fs/cgroup/cpu"
PERIOD_US = 100_000
PREFIX = "swiftcloud-cpu-"


def parent_dir(tag: str) -> str:
    """The cluster's cgroup holding one cgroup per node (v1 preferred, as for disks)."""
    if os.path.isfile(os.path.join(V1_CPU, "cpu.cfs_quota_us")):
        return os.path.join(V1_CPU, PREFIX + tag)
    root = cgroup2_root("cpu")
    if root is None:
        raise ServiceError("no CPU bandwidth control on this host (neither cgroup v1 cpu nor cgroup v2 cpu): "
                           "the cluster cannot give its nodes a CPU share")
    return os.path.join(root, PREFIX + tag)


def _v2(directory: str) -> bool:
    return not directory.startswith(V1_CPU + os.sep)


def make(parent: str, node: str) -> str:
    """Node `node`'s cgroup under `parent` (made if missing), with no quota; its directory."""
    if _v2(parent) and not os.path.isdir(parent):
        os.makedirs(parent)
        with open(os.path.join(parent, "cgroup.subtree_control"), "w", encoding="ascii") as control:
            control.write("+cpu")
    directory = os.path.join(parent, node)
    os.makedirs(directory, exist_ok=True)
    set_quota(directory, None)
    return directory


def set_quota(directory: str, cores: float | None) -> None:
    """Limit the cgroup at `directory` to `cores` cores (None: no limit)."""
    quota = -1 if cores is None else max(1000, int(cores * PERIOD_US))
    if _v2(directory):
        with open(os.path.join(directory, "cpu.max"), "w", encoding="ascii") as limit:
            limit.write(f"{'max' if quota < 0 else quota} {PERIOD_US}")
        return
    with open(os.path.join(directory, "cpu.cfs_period_us"), "w", encoding="ascii") as period:
        period.write(str(PERIOD_US))
    with open(os.path.join(directory, "cpu.cfs_quota_us"), "w", encoding="ascii") as limit:
        limit.write(str(quota))


def quota(directory: str) -> float | None:
    """The cores the cgroup at `directory` may use (None: no limit)."""
    if _v2(directory):
        with open(os.path.join(directory, "cpu.max"), encoding="ascii") as limit:
            value, period = limit.read().split()
        return None if value == "max" else int(value) / int(period)
    with open(os.path.join(directory, "cpu.cfs_quota_us"), encoding="ascii") as limit:
        value = int(limit.read())
    with open(os.path.join(directory, "cpu.cfs_period_us"), encoding="ascii") as period:
        return None if value < 0 else value / int(period.read())


def remove(parent: str) -> None:
    """Remove the nodes' cgroups and the cluster's (once their processes have ended); quiet
    when they are gone."""
    if not parent or not os.path.isdir(parent):
        return
    for entry in os.scandir(parent):
        if entry.is_dir(follow_symlinks=False):
            try:
                os.rmdir(entry.path)
            except FileNotFoundError:
                pass
            except OSError as error:
                raise ServiceError(f"cannot remove the CPU cgroup {entry.path}: {error.strerror}") from None
    os.rmdir(parent)
