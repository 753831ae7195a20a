"""Chirp on the cluster as the study deployed it: a chirp_server on every node, together one
multi-server volume (storage_adapters/chirp/volume.py). The first node's server
(`chirp-server:9094`) holds the directory tree of stubs; every node's server holds data,
each new file on one chosen at random. Our FUSE client mounts the volume on every node,
and staging (`--storage chirp`) uses the same volume. Unix authentication works here
because the nodes share the host's users and /tmp; real hosts would use Chirp's hostname
or ticket authentication.

Each server keeps its data in its node's own directory (`nodes/NODE/chirp`, on the node's
disk), owned by the unprivileged user root's chirp_server switches to, mode 700. That user
cannot pass the private directories above it, so inside the node only (its own mount
namespace) the directory is bound at a path it can reach,
`/var/lib/swiftcloud/chirp/<digest>/NODE`; the binding goes with the node, and `purge`
removes the empty mount points the host keeps.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import asdict
from typing import Any

from cluster.node_exec import on_node
from cluster.nodes import Daemon, listening, mount_on_each, spawn_on
from cluster.state import ClusterState, Node
from cluster.stores.common import CLIENT, services_dir
from hostkit.errors import ServiceError
from hostkit.processes import wait_until
from hostkit.records import ServiceRecord, save_record
from storage_adapters.chirp import service as chirp

NAME = "chirp-server"
PORT = 9094


def node_data(cluster: ClusterState, node: str) -> str:
    """Where node `node`'s chirp_server keeps its files, on the node's own directory."""
    return cluster.node_dir(node, "chirp")


def _bind_on(node: Node, source: str, target: str) -> None:
    """Bind `source` at `target` inside `node`'s mount namespace only."""
    os.makedirs(target, mode=0o755, exist_ok=True)
    bound = subprocess.run(on_node(node, ["mount", "--bind", source, target]), capture_output=True, text=True)
    if bound.returncode != 0:
        raise ServiceError(f"cannot bind the Chirp data of {node.name} at {target}: {bound.stderr.strip()}")


def daemon(cluster: ClusterState, role: str, node: Node) -> Daemon:
    """How `role` (chirp, the node's chirp_server; client) starts on `node`."""
    state = services_dir(cluster)
    if role == "chirp":
        directory = os.path.join(state, chirp.NAME, node.name)
        os.makedirs(directory, mode=0o700, exist_ok=True)
        log = os.path.join(directory, "server.log")
        return Daemon(role, chirp.server_command(chirp.data_directory(state, node.name), node.name, node.address,
                                                 PORT, log, chirp.server_user()), log, PORT)
    if role == CLIENT:
        # Data servers by node name: every node's hosts file names every node, and node-to-node
        # traffic crosses the links, and the delay line between regions, like any other.
        return Daemon(role, chirp.mount_argv(mountpoint(cluster), f"{NAME}:{PORT}",
                                             cluster.node_dir(node.name, "chirp-spool"), "/", "multi",
                                             data_servers(cluster)),
                      cluster.path("nodes", node.name, "chirp-client.log"))
    raise ServiceError(f"Chirp has no daemon {role!r} (it has chirp, {CLIENT})")


def data_servers(cluster: ClusterState) -> list[str]:
    return [f"{node.name}:{PORT}" for node in cluster.nodes]


def mountpoint(cluster: ClusterState) -> str:
    return cluster.path("mnt", chirp.NAME)


def start(cluster: ClusterState) -> None:
    state = services_dir(cluster)
    subjects = chirp.default_subjects()
    user = chirp.server_user()
    servers, waiting = [], []
    for node in cluster.nodes:  # all servers start, then we wait for each: side by side
        data = node_data(cluster, node.name)
        chirp.prepare_data(data, subjects, user)
        _bind_on(node, data, chirp.data_directory(state, node.name))
        launch = daemon(cluster, "chirp", node)
        server, popen = spawn_on(node, launch)
        servers.append(cluster.record_started(server))
        waiting.append((node, popen, launch.log))
    for node, popen, log in waiting:
        wait_until(lambda node=node: listening(node, PORT), popen, f"chirp_server on {node.name}", log, timeout=30)
    head = cluster.nodes[0]
    cluster.endpoints[NAME] = f"{head.address}:{PORT}"
    os.makedirs(mountpoint(cluster), exist_ok=True)
    clients = mount_on_each(cluster, lambda node: daemon(cluster, CLIENT, node), mountpoint(cluster), chirp.FSTYPE,
                            "the Chirp client")
    info: dict[str, Any] = {
        "server": f"{NAME}:{PORT}", "mountpoint": mountpoint(cluster),
        "nodes": ",".join(node.name for node in cluster.nodes), "volume": "multi",
        "servers": ",".join(data_servers(cluster)), "subjects": ",".join(subjects),
        "log": os.path.join(state, chirp.NAME), "cluster": cluster.tag,
        "processes": [asdict(process) for process in servers + clients],
    }
    save_record(state, ServiceRecord(chirp.NAME, servers[0].pid, servers[0].create_time, info))


def purge(cluster: ClusterState) -> None:
    """Delete the mount points of the servers' data, which the host keeps outside the
    cluster's directory (the data itself is in the nodes' directories)."""
    if os.path.isdir(os.path.join(services_dir(cluster), chirp.NAME)):
        chirp.purge(services_dir(cluster))
