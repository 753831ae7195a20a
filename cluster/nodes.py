"""Running things on an emulated node: its holder process, the daemons started on it, and
what it mounts and listens on.

A node is its holder's namespaces (see holder.py). A daemon runs there by the argv of
`node_exec.on_node`, so the PID we record is the daemon's own and it is stopped by that PID
like any service process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from cluster import netns
from cluster.node_exec import SHARED_SCRATCH, on_node
from cluster.state import ClusterState, Node
from hostkit.errors import ServiceError
from hostkit.mounts import mounted_fstype
from hostkit.ports import port_open
from hostkit.processes import Process, spawn, started, wait_until
from hostkit.program import PROJECT_ROOT, module_environment


@dataclass(frozen=True)
class Daemon:
    """One of a store's daemons as it starts on a node: command line, log, port (0: none, as a
    FUSE client) and what it needs in its environment beyond ours."""

    role: str
    argv: list[str]
    log: str
    port: int = 0
    env: dict[str, str] = field(default_factory=dict)


def cgroup_mounts(directories: list[str]) -> list[list[str]]:
    """The host's cgroup mounts holding `directories`, as [type, options, target]: the holder
    mounts them again inside the node, whose /sys (mounted anew by `ip netns exec`) has none,
    so a process started from inside the node (mpiexec's node-exec) can join a node's cgroups."""
    found = []
    with open("/proc/mounts", encoding="ascii") as mounts:
        for line in mounts:
            _, target, kind, options = line.split()[:4]
            if kind in ("cgroup", "cgroup2") and any(d.startswith(target.rstrip("/") + "/") for d in directories):
                found.append([kind, options, target])
    return found


def start_holder(cluster: ClusterState, node: Node, hosts_file: str, host_mount_types: tuple[str, ...]) -> None:
    """Start the node's holder (recording its PID in `node`); returns once it is ready. The
    host's mounts of `host_mount_types` are detached in the node."""
    scratch = cluster.node_dir(node.name, "scratch")
    os.makedirs(cluster.path(SHARED_SCRATCH), mode=0o700, exist_ok=True)
    env = module_environment()
    argv = ["ip", "netns", "exec", node.namespace, "unshare", "--uts", "--",
            sys.executable, "-m", "cluster.holder", node.name, hosts_file, scratch, cluster.path(SHARED_SCRATCH),
            json.dumps(cgroup_mounts(node.cgroups())), json.dumps(host_mount_types)]
    log = cluster.path("nodes", node.name, "holder.log")
    with open(log, "ab") as errors:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors,
                                   env=env, cwd=PROJECT_ROOT, start_new_session=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    process.stdout.close()
    if line.strip() != b"ready":
        process.wait()
        with open(log, errors="replace") as text:
            raise ServiceError(f"node {node.name} did not start: {text.read().strip()[-500:]}")
    record = started("holder", process, log, node=node.name)
    node.holder_pid, node.holder_create_time = record.pid, record.create_time


def spawn_on(node: Node, daemon: Daemon) -> tuple[Process, subprocess.Popen[bytes]]:
    """Start `daemon` on `node`, its output appended to its log, in our environment plus its own."""
    process = spawn(on_node(node, daemon.argv, PROJECT_ROOT), daemon.log, {**module_environment(), **daemon.env})
    return started(daemon.role, process, daemon.log, daemon.port, node.name), process


def mount_on_each(cluster: ClusterState, client: Callable[[Node], Daemon], mountpoint: str, fstype: str,
                  what: str) -> list[Process]:
    """Start a FUSE client on every node (`client(node)`), each mounting `mountpoint` in its
    node's own mount namespace, and wait for every mount. The clients start side by side (one
    after another, 16 Python clients took most of a minute of `cluster up`); each is in the
    cluster's record from its start, so `down` finds it whatever happens next."""
    spawned = []
    for node in cluster.nodes:
        daemon = client(node)
        record, process = spawn_on(node, daemon)
        spawned.append((node, cluster.record_started(record), process, daemon.log))
    for node, _, process, log in spawned:
        wait_until(lambda node=node: mounted_here(node, mountpoint, fstype), process, f"{what} on {node.name}", log,
                   timeout=30)
    return [record for _, record, _, _ in spawned]


def mounted_here(node: Node, mountpoint: str, fstype: str) -> bool:
    """Is a file system of type `fstype` mounted at `mountpoint` inside `node`?"""
    return fstype_on(node, mountpoint) == fstype


def fstype_on(node: Node, mountpoint: str) -> str | None:
    """The type of the file system mounted at `mountpoint` inside `node`, or None."""
    return mounted_fstype(mountpoint, f"/proc/{node.holder_pid}/mountinfo")


def listening(node: Node, port: int) -> bool:
    """Does something accept connections on `port` at `node`'s address, inside the node?"""
    return netns.in_namespace(node.namespace, lambda: port_open(port, node.address))
