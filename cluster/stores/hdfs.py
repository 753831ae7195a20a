"""HDFS on the cluster: the NameNode on the first node (clients name it `hdfs-namenode:8020`,
WebHDFS on 9870), a DataNode on every node registered under the node's name (so block
locations name nodes), and our FUSE mount on every node.

As Hadoop deploys it by default ("a default setup mimicking that of Hadoop applications", as
the study ran it): each block on min(3, nodes) DataNodes and 128 MiB blocks. In HDFS the
client that creates a file decides both, so the mounts are started with them and the record
names them for the adapter's clients.

Every node reaches the NameNode and the DataNodes at their own addresses; between regions,
through the delay line.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import asdict
from typing import Any

from cluster import netns
from cluster.nodes import Daemon, mount_on_each, spawn_on
from cluster.state import ClusterState, Node
from cluster.stores.common import CLIENT, python_module, services_dir, store_dir
from hostkit.errors import ServiceError
from hostkit.processes import wait_until
from hostkit.records import ServiceRecord, load_record, save_record
from storage_adapters.hdfs import service as hdfs

NAME = "hdfs-namenode"
PORT, HTTP_PORT = 8020, 9870
DATANODE_PORTS = (9866, 9864, 9867)  # data, HTTP, IPC


def daemon(cluster: ClusterState, role: str, node: Node, replication: int | None = None,
           block_size: int | None = None) -> Daemon:
    """How `role` (namenode, datanode, client) starts on `node`, with each block on
    `replication` DataNodes and of `block_size` bytes (as recorded at start when None). The
    NameNode's metadata is formatted only if it has none."""
    directory = store_dir(cluster, hdfs.NAME)
    if replication is None or block_size is None:
        recorded = load_record(services_dir(cluster), hdfs.NAME)
        if recorded is None:
            raise ServiceError("HDFS was not started on this cluster")
        replication, block_size = int(recorded.info["replication"]), int(recorded.info["block_size"])
    head = cluster.nodes[0]
    core, common = hdfs.properties(directory, f"{head.address}:{PORT}", head.address, HTTP_PORT, replication,
                                   block_size)
    if role == "namenode":
        return Daemon(role, hdfs.namenode_command(directory, core, common), os.path.join(directory, "namenode.log"),
                      PORT, hdfs.environment())
    if role == "datanode":
        data = cluster.node_dir(node.name, "hdfs")
        return Daemon(role, hdfs.datanode_command(data, node.name, node.address, DATANODE_PORTS, core, common),
                      os.path.join(data, "datanode.log"), DATANODE_PORTS[0], hdfs.environment())
    if role == CLIENT:
        return Daemon(role, python_module(
            "storage_adapters.hdfs", "mount", "--mount", mountpoint(cluster), "--namenode", f"{NAME}:{PORT}",
            "--root", "/", "--spool-dir", cluster.node_dir(node.name, "hdfs-spool"), "--replication",
            str(replication), "--block-size", str(block_size)), cluster.path("nodes", node.name, "hdfs-client.log"))
    raise ServiceError(f"HDFS has no daemon {role!r} (it has namenode, datanode, {CLIENT})")


def datanode_back(cluster: ClusterState, node: Node, started_s: float) -> bool:
    """Has the NameNode heard from `node`'s DataNode since it was started again `started_s`
    seconds ago? Until then it may not place blocks there (a DataNode down 30 s is dead to
    it), or it may still take the node for the old, dead process."""
    head = cluster.nodes[0]
    return netns.in_namespace(head.namespace, lambda: hdfs.heard_from(
        HTTP_PORT, f"{node.address}:{DATANODE_PORTS[0]}", started_s, head.address))


def mountpoint(cluster: ClusterState) -> str:
    return cluster.path("mnt", hdfs.NAME)


def start(cluster: ClusterState, replication: int | None = None,
          block_size: int = hdfs.DEFAULT_BLOCK_SIZE) -> None:
    """Start HDFS on the cluster, with fresh metadata; `replication` defaults to min(3, nodes)."""
    replication = hdfs.default_replication(len(cluster.nodes)) if replication is None else replication
    if not 1 <= replication <= len(cluster.nodes):
        raise ServiceError(f"HDFS replication must be between 1 and the number of nodes ({len(cluster.nodes)})")
    directory = store_dir(cluster, hdfs.NAME)
    shutil.rmtree(os.path.join(directory, "name"), ignore_errors=True)
    head = cluster.nodes[0]
    launch = daemon(cluster, "namenode", head, replication, block_size)
    namenode, popen = spawn_on(head, launch)
    cluster.record_started(namenode)

    def ready(datanodes: int) -> bool:
        def ask() -> bool:
            if datanodes == 0:
                return hdfs.namenode_state(HTTP_PORT, head.address) is not None
            return hdfs.ready(HTTP_PORT, datanodes, head.address)
        return netns.in_namespace(head.namespace, ask)

    wait_until(lambda: ready(0), popen, "the HDFS NameNode", launch.log, timeout=120)
    for port in (PORT, HTTP_PORT):
        cluster.endpoints[f"{NAME}:{port}"] = f"{head.address}:{port}"
    started = [namenode]
    for node in cluster.nodes:
        started.append(cluster.record_started(spawn_on(node, daemon(cluster, "datanode", node, replication,
                                                                    block_size))[0]))
    wait_until(lambda: ready(len(cluster.nodes)), popen, "HDFS (all DataNodes live, safe mode off)", launch.log,
               timeout=180)
    os.makedirs(mountpoint(cluster), exist_ok=True)
    started += mount_on_each(cluster, lambda node: daemon(cluster, CLIENT, node, replication, block_size),
                             mountpoint(cluster), hdfs.FSTYPE, "the HDFS client")
    info: dict[str, Any] = {
        "namenode": f"{NAME}:{PORT}", "http": f"{NAME}:{HTTP_PORT}", "mountpoint": mountpoint(cluster),
        "nodes": ",".join(node.name for node in cluster.nodes), "replication": replication,
        "block_size": block_size, "log": directory, "cluster": cluster.tag,
        "processes": [asdict(process) for process in started],
    }
    save_record(services_dir(cluster), ServiceRecord(hdfs.NAME, namenode.pid, namenode.create_time, info))
