"""Bringing an emulated cluster up and taking it down.

`up` makes, in order: the hub namespace, forwarding between one bridge and subnet per
region (and one for S3), the hosts file, per node a namespace, a veth pair shaped to
the region's rate in both directions, the node's own throttled disk (see disks.py), its
CPU cgroup (cpulimit.py) and a holder process (see holder.py), S3's
namespace with its link shaped to S3's cap, the delay line between the subnets
(wan.py), the launcher script for mpiexec, and the requested stores. Each step
is recorded before it is taken. `down` works from the record alone: it ends every
process inside the cluster's namespaces (daemons, mpiexec, ranks and their apps; a
node's mounts go with its last process), deletes the namespaces (their links go with
them), unmounts and detaches the nodes' disks and lifts their throttles, and deletes the
cluster's directories, so it also cleans up after a crash.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import time
from collections.abc import Callable
from dataclasses import asdict

from cluster import cpulimit, disks, netns, node_exec, stores, wan
from cluster.nodes import start_holder
from cluster.regions import DEFAULT_REGIONS, DEFAULT_S3_MBIT, Region, WanPath, place
from cluster.state import (PREFIX, S3_ADDRESS, S3_OCTET, SUBNET, ClusterState, Node, cluster_dir, forget, gateway,
                           launch_entries, load, region_octet, tag_for)
from hostkit.errors import ServiceError
from hostkit.processes import is_running
from hostkit.records import forget_record

TAG_PATTERN = re.compile(r"swc[0-9a-f]{4}")  # state.tag_for
NODE_PATTERN = re.compile(r"node[0-9]+")
DISKS = "disks"  # the nodes' disk images
Report = Callable[[str], None]


def node_address(index: int, octet: int) -> str:
    """Node `index` (1-based) of the region with subnet octet `octet` lives at SUBNET.octet.(10 + index)."""
    return f"{SUBNET}.{octet}.{10 + index}"


def up(state_dir: str, nodes: int, regions: tuple[Region, ...] = DEFAULT_REGIONS,
       storage: tuple[str, ...] = (), report: Report = lambda line: None, paths: tuple[WanPath, ...] = (),
       s3_mbit: float = DEFAULT_S3_MBIT) -> ClusterState:
    """Bring up a cluster of `nodes` nodes (see the module docstring), with `paths` between
    remote regions and S3 capped at `s3_mbit`; on failure, take down whatever was made and raise."""
    directory = cluster_dir(state_dir)
    existing = load(directory)
    if existing is not None:
        if any(netns.exists(name) for name in existing.namespaces):
            raise ServiceError(f"a cluster is already up in {directory} ({len(existing.nodes)} nodes): "
                               "'swiftcloud cluster down' first")
        down(state_dir)  # a record left by a crash, with nothing of it left running
    for store in storage:
        if store not in stores.CLUSTER_STORES:
            raise ServiceError(f"--storage {store}: the cluster can start {', '.join(stores.CLUSTER_STORES)}")
    placed = place(nodes, regions)
    with_disks = [region for region in placed if region.disk_mbps > 0]
    if with_disks:  # refusals come before anything is made, the state directory included
        disks.mechanism()
        disks.check_space(directory, len(with_disks))
    os.makedirs(directory, mode=0o700, exist_ok=True)
    tag = tag_for(directory)
    used = [region for region in regions if region in placed]
    cluster = ClusterState(tag, directory, f"{tag}-hub", f"{tag}-s3", [asdict(region) for region in used],
                           [asdict(path) for path in paths], s3_mbit)
    octets = {region.name: region_octet(index) for index, region in enumerate(used)}
    cluster.nodes = [Node(f"node{index}", region.name, node_address(index, octets[region.name]), f"{tag}-node{index}",
                          f"{tag}-v{index}") for index, region in enumerate(placed, 1)]
    cluster.save()
    try:
        _build(cluster, used, placed, storage, report)
    except BaseException:
        report("failed: taking down what was made")
        down(state_dir)
        raise
    return cluster


def _build(cluster: ClusterState, used: list[Region], placed: list[Region], storage: tuple[str, ...],
           report: Report) -> None:
    started = time.monotonic()
    netns.add(cluster.hub)
    wan.enable_forwarding(cluster.hub)
    octets = wan.octets(cluster)
    for octet in octets.values():
        netns.add_bridge(cluster.hub, wan.bridge(octet), [f"{gateway(octet)}/{PREFIX}"])
    hosts = _write_hosts(cluster)
    cluster.cpu_cgroup = cpulimit.parent_dir(cluster.tag)
    cluster.save()
    if any(region.disk_mbps > 0 for region in placed) and disks.mechanism() == "v2":
        cluster.cgroup = disks.cgroup_path(cluster.tag)
        cluster.save()
        disks.make_cgroup(cluster.cgroup)
    for node, region in zip(cluster.nodes, placed):
        octet = octets[region.name]
        netns.add(node.namespace)
        netns.connect(cluster.hub, wan.bridge(octet), node.namespace, node.hub_end, f"{node.address}/{PREFIX}",
                      gateway(octet))
        netns.shape(node.namespace, "eth0", region.node_mbit)  # what the node sends
        netns.shape(cluster.hub, node.hub_end, region.node_mbit)  # what it receives
        if region.disk_mbps > 0:
            _make_disk(cluster, node, region)
        node.cpu_cgroup = cpulimit.make(cluster.cpu_cgroup, node.name)
        if region.cpu_cores > 0:
            cpulimit.set_quota(node.cpu_cgroup, region.cpu_cores)
        start_holder(cluster, node, hosts, stores.MOUNT_TYPES)
        cluster.save()
    s3_end = f"{cluster.tag}-vs3"
    netns.add(cluster.s3_namespace)
    netns.connect(cluster.hub, wan.bridge(S3_OCTET), cluster.s3_namespace, s3_end, f"{S3_ADDRESS}/{PREFIX}",
                  gateway(S3_OCTET))
    netns.shape(cluster.s3_namespace, "eth0", cluster.s3_mbit)  # what S3 serves, all nodes together
    netns.shape(cluster.hub, s3_end, cluster.s3_mbit)  # what it takes in
    wan.start(cluster)
    report(f"{len(cluster.nodes)} nodes up in {time.monotonic() - started:.1f} s "
           f"({', '.join(f'{r.name}: {placed.count(r)}' for r in used)})")
    node_exec.install(cluster.directory, launch_entries(cluster))
    for store in storage:
        began = time.monotonic()
        stores.start(cluster, store)
        report(f"{store} started on every node in {time.monotonic() - began:.1f} s")
    cluster.phase = "up"
    cluster.save()


def _make_disk(cluster: ClusterState, node: Node, region: Region) -> None:
    """Mount the node's own disk over its directory, limited to the region's rate."""
    os.makedirs(cluster.path(DISKS), mode=0o700, exist_ok=True)
    disk = disks.Disk(node.name, cluster.path(DISKS, f"{node.name}.img"), cluster.path("nodes", node.name),
                      int(region.disk_mbps * 1e6))
    cluster.disks.append(asdict(disk))
    cluster.save()

    def record() -> None:
        cluster.disks[-1] = asdict(disk)
        cluster.save()

    disks.make(disk, cluster.cgroup, record)
    node.cgroup = cluster.cgroup


def _write_hosts(cluster: ClusterState) -> str:
    """The hosts file of every node: every node, and the services (on the first node; S3 in
    its own namespace; a service not started resolves but refuses)."""
    lines = ["127.0.0.1\tlocalhost"]
    lines += [f"{node.address}\t{node.name}" for node in cluster.nodes]
    lines += [f"{S3_ADDRESS if name == stores.S3_NAME else cluster.nodes[0].address}\t{name}"
              for name in stores.SERVICE_NAMES]
    path = cluster.path("hosts")
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    os.chmod(path, 0o644)  # read by every process of the node, as /etc/hosts
    return path


def down(state_dir: str, report: Report = lambda line: None) -> bool:
    """Take down the cluster recorded in `state_dir`; False if there was none."""
    directory = cluster_dir(state_dir)
    cluster = load(directory)
    if cluster is None:
        return False
    left = _end_processes(cluster.namespaces, _recorded(cluster))
    if left:
        raise ServiceError(f"processes {', '.join(map(str, left))} in the cluster's namespaces did not end")
    for namespace in cluster.namespaces:
        netns.delete(namespace)
    for disk in cluster.disks:
        disks.remove(disks.Disk(**disk))
    disks.remove_cgroup(cluster.cgroup)
    cpulimit.remove(cluster.cpu_cgroup)
    for store in stores.RECORDS:
        forget_record(stores.services_dir(cluster), store)
    stores.purge(cluster)
    for part in ("nodes", DISKS, "services", "mnt", "scratch", node_exec.ZYGOTES, node_exec.LAUNCHER,
                 node_exec.LAUNCH_TABLE, "hosts", "delayline.json", "delayline.log"):
        path = cluster.path(part)
        if os.path.isdir(path):
            shutil.rmtree(path, ignore_errors=True)
        elif os.path.exists(path):
            os.remove(path)
    forget(directory)
    report(f"cluster of {len(cluster.nodes)} nodes taken down")
    return True


def orphans() -> dict[str, list[str]]:
    """Namespaces of clusters whose record is gone (its state directory was deleted), by tag."""
    found: dict[str, list[str]] = {}
    for name in netns.names():
        tag, _, part = name.partition("-")
        if TAG_PATTERN.fullmatch(tag) and (part in ("hub", "s3") or NODE_PATTERN.fullmatch(part)):
            found.setdefault(tag, []).append(name)
    return found


def down_orphan(tag: str, report: Report = lambda line: None) -> bool:
    """Take down what is left of a cluster whose record is gone: every process in its
    namespaces, then the namespaces (with their links and mounts). False if none is left."""
    namespaces = orphans().get(tag, [])
    if not namespaces:
        return False
    left = _end_processes(namespaces, [])
    if left:
        raise ServiceError(f"processes {', '.join(map(str, left))} in the namespaces of {tag} did not end")
    for namespace in sorted(namespaces, key=lambda name: name.endswith("-hub")):
        netns.delete(namespace)
    removed = disks.remove_orphans(lambda directory: tag_for(directory) == tag)
    disks.remove_cgroup(disks.orphan_cgroup(tag))
    cpulimit.remove(cpulimit.parent_dir(tag))
    report(f"removed {len(namespaces)} namespaces and {removed} node disks of cluster {tag} (its record was gone)")
    return True


def _recorded(cluster: ClusterState) -> list[tuple[int, float]]:
    """(pid, start time) of every process the cluster's record lists."""
    return ([(node.holder_pid, node.holder_create_time) for node in cluster.nodes]
            + [(entry["pid"], entry["create_time"]) for entry in cluster.processes])


def _end_processes(namespaces: list[str], recorded: list[tuple[int, float]], patience: float = 5.0) -> list[int]:
    """SIGTERM, then SIGKILL, every process in `namespaces` and every recorded one still
    running; those still there. A recorded process is waited for until it has ended, not only
    left the namespaces: a process leaves them early in its exit, while it may still be closing
    its files (a delay line its TUN device). Those that are children of this process are reaped
    (a dead process would stay a zombie until its parent waits)."""
    def everyone() -> list[int]:
        return [pid for namespace in namespaces for pid in netns.pids(namespace)]

    def still_running() -> list[int]:
        return [pid for pid, create_time in recorded if is_running(pid, create_time)]

    for number in (signal.SIGTERM, signal.SIGKILL):
        signalled = set(everyone() + still_running())
        for pid in signalled:
            try:
                os.kill(pid, number)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + patience
        # What a process forks as it exits is not waited for (a chirp_server's fork signals its
        # group for 3 s), but ended by the next round.
        while (signalled.intersection(everyone()) or still_running()) and time.monotonic() < deadline:
            time.sleep(0.05)
        for pid, _ in recorded:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        if not everyone() and not still_running():
            return []
    return everyone() + still_running()
