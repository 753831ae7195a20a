"""MosaStore on the cluster: the manager on the first node, a benefactor and a FUSE client on
every node.

Each node reaches the manager by the name `mosastore-manager` (node1's address, from every
region; between regions through the delay line) and the benefactors at their node
addresses. Every client mounts the store at the same path, inside its own node's mount
namespace only.
"""

from __future__ import annotations

import os
from dataclasses import asdict
from typing import Any

from cluster import netns
from cluster.nodes import Daemon, listening, mount_on_each, spawn_on
from cluster.state import ClusterState, Node
from cluster.stores.common import CLIENT, python_module, services_dir, store_dir
from hostkit.errors import ServiceError
from hostkit.processes import wait_until
from hostkit.records import ServiceRecord, save_record
from mosastore import deploy
from mosastore.auth import check_secret, new_secret, read_secret_file, write_secret_file

NAME = "mosastore"
MANAGER_NAME = "mosastore-manager"
MANAGER_PORT = 7000
BENEFACTOR_PORT = 7100


def daemon(cluster: ClusterState, role: str, node: Node) -> Daemon:
    """How `role` (manager, benefactor, client) starts on `node`."""
    directory = store_dir(cluster, NAME)
    secret_file = os.path.join(directory, "secret")
    named_manager = f"{MANAGER_NAME}:{MANAGER_PORT}"
    if role == "manager":
        return Daemon(role, python_module(
            "mosastore", "manager", "--listen", f"{node.address}:{MANAGER_PORT}",
            "--db", os.path.join(directory, "manager", "meta.db"), "--secret-file", secret_file),
            os.path.join(directory, "manager.log"), MANAGER_PORT)
    if role == "benefactor":
        return Daemon(role, python_module(
            "mosastore", "benefactor", "--node", node.name, "--dir", cluster.node_dir(node.name, "mosastore-chunks"),
            "--listen", f"{node.address}:{BENEFACTOR_PORT}", "--manager", named_manager,
            "--secret-file", secret_file), cluster.path("nodes", node.name, "benefactor.log"), BENEFACTOR_PORT)
    if role == CLIENT:
        return Daemon(role, python_module(
            "mosastore", "mount", "--mount", mountpoint(cluster), "--manager", named_manager,
            "--secret-file", secret_file, "--node", node.name,
            "--spool-dir", cluster.node_dir(node.name, "mosastore-spool")),
            cluster.path("nodes", node.name, "mosastore-client.log"))
    raise ServiceError(f"MosaStore has no daemon {role!r} (it has manager, benefactor, {CLIENT})")


def mountpoint(cluster: ClusterState) -> str:
    return cluster.path("mnt", NAME)


def start(cluster: ClusterState) -> None:
    directory = store_dir(cluster, NAME)
    secret_file = os.path.join(directory, "secret")
    if not os.path.exists(secret_file):
        write_secret_file(secret_file, new_secret())
    secret = read_secret_file(secret_file)
    head = cluster.nodes[0]
    manager_address = f"{head.address}:{MANAGER_PORT}"
    os.makedirs(os.path.join(directory, "manager"), mode=0o700, exist_ok=True)
    launch = daemon(cluster, "manager", head)
    manager, popen = spawn_on(head, launch)
    cluster.record_started(manager)
    wait_until(lambda: listening(head, MANAGER_PORT), popen, "the MosaStore manager", launch.log, timeout=30)
    cluster.endpoints[MANAGER_NAME] = manager_address
    started = [cluster.record_started(spawn_on(node, daemon(cluster, "benefactor", node))[0])
               for node in cluster.nodes]
    nodes = [node.name for node in cluster.nodes]
    netns.in_namespace(head.namespace, lambda: deploy.wait_for_benefactors(
        manager_address, check_secret(secret), nodes, timeout=60))
    os.makedirs(mountpoint(cluster), exist_ok=True)
    started += mount_on_each(cluster, lambda node: daemon(cluster, CLIENT, node), mountpoint(cluster), deploy.FSTYPE,
                             "the MosaStore client")
    info: dict[str, Any] = {
        "manager": f"{MANAGER_NAME}:{MANAGER_PORT}", "mountpoint": mountpoint(cluster), "nodes": ",".join(nodes),
        "log": directory, "cluster": cluster.tag,
        "processes": [asdict(manager), *(asdict(process) for process in started)],
    }
    save_record(services_dir(cluster), ServiceRecord(NAME, manager.pid, manager.create_time, info, {"secret": secret}))
