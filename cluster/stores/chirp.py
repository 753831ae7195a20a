"""Chirp on the cluster: a chirp_server on every node, each serving its own directory as each
host's own server would. The store runs use is the first node's (`chirp-server:9094`),
mounted with our FUSE client on every node. Unix authentication works here because the
nodes share the host's users and /tmp; real hosts would use Chirp's hostname or ticket
authentication."""

from __future__ import annotations

import os
from dataclasses import asdict
from typing import Any

from cluster import netns
from cluster.nodes import mount_on, spawn_on
from cluster.state import ClusterState
from cluster.stores.common import python_module, services_dir
from hostkit.ports import port_open
from hostkit.processes import wait_until
from hostkit.records import ServiceRecord, save_record
from storage_adapters.chirp import service as chirp

NAME = "chirp-server"
PORT = 9094


def start(cluster: ClusterState) -> None:
    state = services_dir(cluster)
    subjects = chirp.default_subjects()
    servers = []
    for node in cluster.nodes:
        argv, log = chirp.server_argv(state, node.name, subjects, node.address, PORT)
        server, popen = spawn_on(node, "chirp", argv, log, PORT)
        servers.append(cluster.record_started(server))
        wait_until(lambda: netns.in_namespace(node.namespace, lambda: port_open(PORT, node.address)),
                   popen, f"chirp_server on {node.name}", log, timeout=30)
    head = cluster.nodes[0]
    address = f"{head.address}:{PORT}"
    cluster.endpoints[NAME] = address
    named = f"{NAME}:{PORT}"
    mountpoint = cluster.path("mnt", chirp.NAME)
    os.makedirs(mountpoint, exist_ok=True)
    clients = [cluster.record_started(mount_on(node, python_module(
        "storage_adapters.chirp", "mount", "--mount", mountpoint, "--server", named, "--root", "/",
        "--spool-dir", cluster.node_dir(node.name, "chirp-spool")), mountpoint, chirp.FSTYPE, "the Chirp client",
        cluster.path("nodes", node.name, "chirp-client.log"))) for node in cluster.nodes]
    info: dict[str, Any] = {
        "server": named, "mountpoint": mountpoint, "nodes": ",".join(node.name for node in cluster.nodes),
        "servers": ",".join(f"{node.address}:{PORT}" for node in cluster.nodes), "subjects": ",".join(subjects),
        "log": os.path.join(state, chirp.NAME), "cluster": cluster.tag,
        "processes": [asdict(process) for process in servers + clients],
    }
    save_record(state, ServiceRecord(chirp.NAME, servers[0].pid, servers[0].create_time, info))


def purge(cluster: ClusterState) -> None:
    """Delete the servers' data, which root's chirp_servers keep outside the cluster's
    directory (where their unprivileged user can reach it)."""
    if os.path.isdir(os.path.join(services_dir(cluster), chirp.NAME)):
        chirp.purge(services_dir(cluster))
