"""What a cluster is made of, on disk: `<state_dir>/cluster/cluster.json` (mode 600).

The record is written before each thing it names is made (namespaces, holders,
daemons), so `down` finds everything also after `up` or a run crashed halfway. Names
of namespaces and links carry a tag derived from the state directory, so clusters of
two checkouts never collide and nothing outside the record is ever touched.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any

from hostkit.errors import ServiceError
from hostkit.processes import Process, is_running

STATE_FILE = "cluster.json"
SUBNET = "10.231"  # a /16 that exists only inside the cluster's own namespaces
HUB_ADDRESS = f"{SUBNET}.0.1"  # the bridge in the hub: the proxies, and services of no node (S3)
PREFIX = 16


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
    bridge: str
    regions: list[dict[str, Any]]
    nodes: list[Node] = field(default_factory=list)
    storage: list[str] = field(default_factory=list)
    processes: list[dict[str, Any]] = field(default_factory=list)
    endpoints: dict[str, str] = field(default_factory=dict)
    disks: list[dict[str, Any]] = field(default_factory=list)
    cgroup: str = ""
    phase: str = "starting"

    @property
    def namespaces(self) -> list[str]:
        """Every namespace of the cluster, the hub last (the nodes' links end there)."""
        return [node.namespace for node in self.nodes] + [self.hub]

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
