"""Storage daemons of an emulated cluster, laid out as on real hosts.

`--storage mosastore`: the manager on the first node, a benefactor on every node (its
chunks in the node's own directory) and a FUSE client on every node, mounted at the
same path in each node's own mount namespace. Each node reaches the manager by the
name `mosastore-manager` (directly in the home region, through its region's latency
proxy elsewhere) and the benefactors at their node addresses. The store's record is
written where `--storage mosastore` looks for a started store (the cluster's services
directory), so a run on the cluster uses it with no settings. Every daemon listens on
its node's own address; ports are fixed, since every node has a port space of its own.

`--storage local` needs no daemon: every node sees the host's directories.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from cluster import netns
from cluster.nodes import mount_on, spawn_on
from cluster.state import ClusterState
from storage_adapters.errors import ServiceError
from storage_adapters.fuse.mounting import Process
from storage_adapters.mosastore import deploy
from storage_adapters.mosastore.auth import check_secret, new_secret, read_secret_file, write_secret_file
from storage_adapters.services.common import ServiceRecord, port_open, save_record, wait_until

CLUSTER_STORES = ("local", "mosastore")
MANAGER_NAME = "mosastore-manager"
MANAGER_PORT = 7000
BENEFACTOR_PORT = 7100
SERVICE_NAMES = (MANAGER_NAME,)  # names every node's hosts file resolves
Expose = Callable[[str, str], None]


def services_dir(cluster: ClusterState) -> str:
    """Where the cluster's stores keep their records: `$SWIFTCLOUD_STATE_DIR` of runs on it."""
    return cluster.path("services")


def start(cluster: ClusterState, store: str, expose: Expose) -> None:
    """Start `store` on every node of the cluster (recording each process as it starts);
    `expose(name, address)` puts a service in reach of the remote regions."""
    if store not in CLUSTER_STORES:
        raise ServiceError(f"cannot start {store!r} on the cluster: it offers {', '.join(CLUSTER_STORES)}")
    if store == "mosastore":
        _start_mosastore(cluster, expose)
    cluster.storage.append(store)
    cluster.save()


def _mosa(role: str, *options: str) -> list[str]:
    return [sys.executable, "-m", "storage_adapters.mosastore", role, *options]


def _started(cluster: ClusterState, process: Process) -> Process:
    cluster.processes.append(asdict(process))
    cluster.save()
    return process


def _start_mosastore(cluster: ClusterState, expose: Expose) -> None:
    directory = os.path.join(services_dir(cluster), "mosastore")
    os.makedirs(directory, mode=0o700, exist_ok=True)
    secret_file = os.path.join(directory, "secret")
    if not os.path.exists(secret_file):
        write_secret_file(secret_file, new_secret())
    secret = read_secret_file(secret_file)
    head = cluster.nodes[0]
    manager_address = f"{head.address}:{MANAGER_PORT}"
    log = os.path.join(directory, "manager.log")
    os.makedirs(os.path.join(directory, "manager"), mode=0o700, exist_ok=True)
    manager, popen = spawn_on(head, "manager", _mosa(
        "manager", "--listen", manager_address, "--db", os.path.join(directory, "manager", "meta.db"),
        "--secret-file", secret_file), log, MANAGER_PORT)
    _started(cluster, manager)
    wait_until(lambda: netns.in_namespace(head.namespace, lambda: port_open(MANAGER_PORT, head.address)),
               popen, "the MosaStore manager", log, timeout=30)
    cluster.endpoints[MANAGER_NAME] = manager_address
    expose(MANAGER_NAME, manager_address)
    named_manager = f"{MANAGER_NAME}:{MANAGER_PORT}"
    for node in cluster.nodes:
        chunks = cluster.path("nodes", node.name, "mosastore-chunks")
        benefactor, _ = spawn_on(node, "benefactor", _mosa(
            "benefactor", "--node", node.name, "--dir", chunks, "--listen", f"{node.address}:{BENEFACTOR_PORT}",
            "--manager", named_manager, "--secret-file", secret_file),
            cluster.path("nodes", node.name, "benefactor.log"), BENEFACTOR_PORT)
        _started(cluster, benefactor)
    nodes = [node.name for node in cluster.nodes]
    netns.in_namespace(head.namespace, lambda: deploy.wait_for_benefactors(
        manager_address, check_secret(secret), nodes, timeout=60))
    mountpoint = cluster.path("mnt", "mosastore")
    os.makedirs(mountpoint, exist_ok=True)
    for node in cluster.nodes:
        spool = cluster.path("nodes", node.name, "mosastore-spool")
        os.makedirs(spool, mode=0o700, exist_ok=True)
        _started(cluster, mount_on(node, _mosa(
            "mount", "--mount", mountpoint, "--manager", named_manager, "--secret-file", secret_file,
            "--node", node.name, "--spool-dir", spool), mountpoint, deploy.FSTYPE, "the MosaStore client",
            cluster.path("nodes", node.name, "mosastore-client.log")))
    info: dict[str, Any] = {
        "manager": named_manager, "mountpoint": mountpoint, "nodes": ",".join(nodes),
        "processes": [entry for entry in cluster.processes if entry["role"] in ("manager", "benefactor", "client")],
        "log": directory, "cluster": cluster.tag,
    }
    save_record(services_dir(cluster), ServiceRecord("mosastore", manager.pid, manager.create_time, info,
                                                     {"secret": secret}))
