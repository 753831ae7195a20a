"""Running things on an emulated node: its holder process, and `nsenter` into it.

A node is its holder's namespaces (see holder.py). `on_node(node, argv)` is the argv
that runs `argv` there: `nsenter` joins the holder's network, mount and UTS
namespaces and then execs the command, so the PID we record is the command's own and
it is stopped by that PID like any service process. Before nsenter, the process joins the
node's cgroups (`JOIN_CGROUPS`, a shell line that also execs in place): its CPU share
(cpulimit.py) and, on a host with cgroup v2, the cluster's cgroup where its disk throttle holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from cluster import netns
from cluster.node_exec import JOIN_LOOP, nsenter_argv
from cluster.state import ClusterState, Node
from hostkit.errors import ServiceError
from hostkit.mounts import mounted_fstype
from hostkit.ports import port_open
from hostkit.processes import Process, spawn, started, wait_until
from hostkit.program import PROJECT_ROOT, module_environment

SHARED_SCRATCH = "scratch"  # under the cluster directory: each node sees its own behind it
# `sh -c JOIN_CGROUPS join-cgroups CGROUP_DIR... -- COMMAND...`: move into each cgroup, then
# become COMMAND (so it keeps the PID, and its children are born in the groups). A shell starts
# in 0.7 ms against 6 for Python with -S: every process started on a node pays it (MPI
# proxies, daemons, mounts).
JOIN_CGROUPS = JOIN_LOOP.format(who="", status=126) + '; exec "$@"'


@dataclass(frozen=True)
class Daemon:
    """One of a store's daemons as it starts on a node: command line, log, port (0: none, as a
    FUSE client) and what it needs in its environment beyond ours."""

    role: str
    argv: list[str]
    log: str
    port: int = 0
    env: dict[str, str] = field(default_factory=dict)


def on_node(node: Node, argv: list[str], cwd: str | None = None) -> list[str]:
    """`argv` run inside `node` (its network, mounts and host name), from `cwd`."""
    if not node.up():
        raise ServiceError(f"node {node.name} is not running: bring the cluster up again "
                           "('swiftcloud cluster down', then 'up')")
    # The cgroups are joined before nsenter: inside the node, /sys is the network namespace's
    # own (as `ip netns exec` mounts it) and holds no cgroup hierarchy.
    cgroups = node.cgroups()
    join = ["/bin/sh", "-c", JOIN_CGROUPS, "join-cgroups", *cgroups, "--"] if cgroups else []
    return [*join, *nsenter_argv(node.holder_pid, cwd or os.getcwd(), argv)]


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


def start_holder(cluster: ClusterState, node: Node, hosts_file: str) -> None:
    """Start the node's holder (recording its PID in `node`); returns once it is ready."""
    scratch = cluster.node_dir(node.name, "scratch")
    os.makedirs(cluster.path(SHARED_SCRATCH), mode=0o700, exist_ok=True)
    env = module_environment()
    argv = ["ip", "netns", "exec", node.namespace, "unshare", "--uts", "--",
            sys.executable, "-m", "cluster.holder", node.name, hosts_file, scratch, cluster.path(SHARED_SCRATCH),
            json.dumps(cgroup_mounts(node.cgroups()))]
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
