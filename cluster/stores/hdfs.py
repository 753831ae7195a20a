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
from dataclasses import asdict
from typing import Any

from cluster import netns
from cluster.nodes import mount_on_each, spawn_on
from cluster.state import ClusterState
from cluster.stores.common import python_module, services_dir, store_dir
from hostkit.errors import ServiceError
from hostkit.processes import wait_until
from hostkit.records import ServiceRecord, save_record
from storage_adapters.hdfs import service as hdfs

NAME = "hdfs-namenode"
PORT, HTTP_PORT = 8020, 9870
DATANODE_PORTS = (9866, 9864, 9867)  # data, HTTP, IPC


def start(cluster: ClusterState, replication: int | None = None,
          block_size: int = hdfs.DEFAULT_BLOCK_SIZE) -> None:
    """Start HDFS on the cluster; `replication` defaults to min(3, nodes)."""
    replication = hdfs.default_replication(len(cluster.nodes)) if replication is None else replication
    if not 1 <= replication <= len(cluster.nodes):
        raise ServiceError(f"HDFS replication must be between 1 and the number of nodes ({len(cluster.nodes)})")
    directory = store_dir(cluster, hdfs.NAME)
    head = cluster.nodes[0]
    core, common = hdfs.properties(directory, f"{head.address}:{PORT}", head.address, HTTP_PORT, replication,
                                   block_size)
    log = os.path.join(directory, "namenode.log")
    namenode, popen = spawn_on(head, "namenode", hdfs.namenode_command(directory, core, common, fresh=True), log,
                               PORT, hdfs.environment())
    cluster.record_started(namenode)

    def ready(datanodes: int) -> bool:
        def ask() -> bool:
            if datanodes == 0:
                return hdfs.namenode_state(HTTP_PORT, head.address) is not None
            return hdfs.ready(HTTP_PORT, datanodes, head.address)
        return netns.in_namespace(head.namespace, ask)

    wait_until(lambda: ready(0), popen, "the HDFS NameNode", log, timeout=120)
    for port in (PORT, HTTP_PORT):
        cluster.endpoints[f"{NAME}:{port}"] = f"{head.address}:{port}"
    started = [namenode]
    for node in cluster.nodes:
        data = cluster.node_dir(node.name, "hdfs")
        argv = hdfs.datanode_command(data, node.name, node.address, DATANODE_PORTS, core, common)
        started.append(cluster.record_started(spawn_on(
            node, "datanode", argv, os.path.join(data, "datanode.log"), DATANODE_PORTS[0], hdfs.environment())[0]))
    wait_until(lambda: ready(len(cluster.nodes)), popen, "HDFS (all DataNodes live, safe mode off)", log, timeout=180)
    mountpoint = cluster.path("mnt", hdfs.NAME)
    os.makedirs(mountpoint, exist_ok=True)
    named = f"{NAME}:{PORT}"
    started += mount_on_each(cluster, lambda node: python_module(
        "storage_adapters.hdfs", "mount", "--mount", mountpoint, "--namenode", named, "--root", "/",
        "--spool-dir", cluster.node_dir(node.name, "hdfs-spool"), "--replication", str(replication),
        "--block-size", str(block_size)), mountpoint, hdfs.FSTYPE, "the HDFS client",
        lambda node: cluster.path("nodes", node.name, "hdfs-client.log"))
    info: dict[str, Any] = {
        "namenode": named, "http": f"{NAME}:{HTTP_PORT}", "mountpoint": mountpoint,
        "nodes": ",".join(node.name for node in cluster.nodes), "replication": replication,
        "block_size": block_size, "log": directory, "cluster": cluster.tag,
        "processes": [asdict(process) for process in started],
    }
    save_record(services_dir(cluster), ServiceRecord(hdfs.NAME, namenode.pid, namenode.create_time, info))
