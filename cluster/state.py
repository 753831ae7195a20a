"""What a cluster is made of, on disk: `<state_dir>/cluster/cluster.json` (mode 600).

The record is written before each thing it names is made (namespaces, holders,
daemons), so `down` finds everything also after `up` or a run crashed halfway. Names
of namespaces and links carry a tag derived from the state directory, so clusters of
two checkouts never collide and nothing outside the record is ever touched.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any

from cluster import regions as layout
from cluster.regions import Region, WanPath
from hostkit.errors import ServiceError
from hostkit.processes import Process, is_running

STATE_FILE = "cluster.json"
SUBNET = "10.231"  # a /16 that exists only inside the cluster's own namespaces
PREFIX = 24  # region r (0 = home) is SUBNET.(r + 1).0/24; the hub is .1 on each
S3_OCTET = 200  # S3's own subnet, SUBNET.200.0/24, with MinIO at .10
S3_ADDRESS = f"{SUBNET}.{S3_OCTET}.10"


def region_octet(index: int) -> int:
    """The third octet of region `index`'s subnet (0 is the home region)."""
    return index + 1


def gateway(octet: int) -> str:
    """The hub's address on the subnet with third octet `octet`."""
    return f"{SUBNET}.{octet}.1"


@dataclass
class Node:
    """One emulated host: its namespace, address, region and the holder process keeping it."""

    name: str
    region: str
    address: str
    namespace: str
    hub_end: str
    holder_pid: int = 0
    holder_create_time: float = 0.0
    cgroup: str = ""  # cgroup v2 only: the cgroup its processes join, for its disk's throttle
    cpu_cgroup: str = ""  # the cgroup its processes join for its CPU share (cpulimit.py)

    def cgroups(self) -> list[str]:
        """The cgroups every process started on the node joins."""
        return [directory for directory in (self.cpu_cgroup, self.cgroup) if directory]

    def up(self) -> bool:
        return self.holder_pid > 0 and is_running(self.holder_pid, self.holder_create_time)


@dataclass
class ClusterState:
    """The whole record; `processes` are the daemons started on nodes (hostkit.processes.Process
    fields), `endpoints` the cluster's services as name -> address:port, `disks` the nodes' own
    disks (cluster.disks.Disk fields) and `cgroup` the cgroup v2 directory holding their throttles."""

    tag: str
    directory: str
    hub: str
    s3_namespace: str
    regions: list[dict[str, Any]]
    paths: list[dict[str, Any]] = field(default_factory=list)
    s3_mbit: float = layout.DEFAULT_S3_MBIT
    nodes: list[Node] = field(default_factory=list)
    storage: list[str] = field(default_factory=list)
    processes: list[dict[str, Any]] = field(default_factory=list)
    endpoints: dict[str, str] = field(default_factory=dict)
    disks: list[dict[str, Any]] = field(default_factory=list)
    cgroup: str = ""
    cpu_cgroup: str = ""  # the cluster's CPU cgroup, holding one per node (cpulimit.py)
    phase: str = "starting"

    @property
    def namespaces(self) -> list[str]:
        """Every namespace of the cluster, the hub last (the nodes' and S3's links end there)."""
        return [node.namespace for node in self.nodes] + [self.s3_namespace, self.hub]

    def region_list(self) -> list[Region]:
        """The regions that hold nodes, the home one first."""
        return [Region(**region) for region in self.regions]

    def wan_paths(self) -> list[WanPath]:
        return [WanPath(tuple(path["regions"]), path["rtt_ms"], path["wan_mbit"])  # type: ignore[arg-type]
                for path in self.paths]

    def round_trip_ms(self, a: str, b: str) -> float:
        """The configured round trip between regions `a` and `b` (regions.round_trip_ms)."""
        return layout.round_trip_ms(self.region_list(), self.wan_paths(), a, b)

    def wan_mbit(self, a: str, b: str) -> float:
        """The configured rate between regions `a` and `b`, 0 = unlimited (regions.wan_mbit)."""
        return layout.wan_mbit(self.region_list(), self.wan_paths(), a, b)

    def s3_round_trip_ms(self, region: str) -> float:
        """The configured round trip from `region`'s nodes to S3 (regions.s3_round_trip_ms)."""
        named = {item.name: item for item in self.region_list()}
        if region not in named:
            raise ServiceError(f"the cluster has no region {region!r} (regions: {', '.join(named)})")
        return layout.s3_round_trip_ms(named[region])

    def node(self, name: str) -> Node:
        for node in self.nodes:
            if node.name == name or node.address == name:
                return node
        raise ServiceError(f"the cluster has no node {name!r} (nodes: {', '.join(n.name for n in self.nodes)})")

    def path(self, *parts: str) -> str:
        return os.path.join(self.directory, *parts)

    def node_dir(self, node: str, *parts: str) -> str:
        """A directory of node `node`'s own, made private to the user."""
        path = self.path("nodes", node, *parts)
        os.makedirs(path, mode=0o700, exist_ok=True)
        return path

    def record_started(self, process: Process) -> Process:
        """Add a started daemon to the record at once, so `down` finds it after a crash."""
        self.processes.append(asdict(process))
        self.save()
        return process

    def save(self) -> None:
        path = self.path(STATE_FILE)
        descriptor = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            json.dump(asdict(self), handle, indent=2)
        os.replace(path + ".tmp", path)


def cluster_dir(state_dir: str) -> str:
    return os.path.join(os.path.abspath(state_dir), "cluster")


def tag_for(directory: str) -> str:
    """A short name part unique to this state directory (interface names hold 15 characters)."""
    import hashlib  # deferred: only `cluster up` names a cluster, and `run --cluster` starts without it

    return "swc" + hashlib.sha256(os.path.abspath(directory).encode()).hexdigest()[:4]


def load(directory: str) -> ClusterState | None:
    """The record in `directory`, or None when no cluster was brought up there."""
    path = os.path.join(directory, STATE_FILE)
    try:
        with open(path) as handle:
            data = json.load(handle)
        nodes = [Node(**node) for node in data.pop("nodes")]
        return ClusterState(nodes=nodes, **data)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, KeyError) as error:
        raise ServiceError(f"unreadable cluster state {path}: {error}") from error


def forget(directory: str) -> None:
    try:
        os.remove(os.path.join(directory, STATE_FILE))
    except FileNotFoundError:
        pass


def services_dir(cluster: ClusterState) -> str:
    """Where the cluster's stores keep their records: `$SWIFTCLOUD_STATE_DIR` of runs on it."""
    return cluster.path("services")


def launch_entries(cluster: ClusterState) -> dict[str, tuple[int, list[str]]]:
    """What the cluster's launcher (node_exec) needs of each node: its holder's PID and cgroups."""
    return {node.name: (node.holder_pid, node.cgroups()) for node in cluster.nodes}
