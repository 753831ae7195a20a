"""Faults on a running cluster: one of a store's daemons killed with SIGKILL, then started again.

The injection half of the storage fault matrix (`cluster/fault_matrix.py`). A daemon is named as its
store's service record lists it: the record (`mosastore`, `hdfs`, `chirp`, `minio`), the
process's role there (`manager`, `benefactor`, `namenode`, `datanode`, `chirp`, `s3`, and
`client` for a node's FUSE client) and its node. `restart` starts it again as its store
started it (`cluster.stores`), on the same node, ports and data, as a crashed host's init
would. A FUSE client's mount stays dead after its kill, as on a real host (`Transport
endpoint is not connected`); `restart` detaches it inside the node and mounts again.

The new process goes into the cluster's record (so `down` ends it) and takes the dead one's
place in the store's record.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass

from cluster import netns
from cluster.node_exec import on_node
from cluster.nodes import fstype_on, listening, mounted_here, spawn_on
from cluster.state import S3_ADDRESS, ClusterState
from cluster.stores import DAEMONS, hdfs, s3, services_dir
from cluster.stores.common import CLIENT
from hostkit.errors import ServiceError
from hostkit.mounts import detach_argv, recorded_processes
from hostkit.ports import port_open
from hostkit.processes import Process, spawn, wait_until
from hostkit.records import ServiceRecord, load_record, replace_process
from storage_adapters.services import minio


@dataclass(frozen=True)
class Killed:
    """A daemon `kill` ended: its store's record, its process, and for a FUSE client its mount
    and the file system type it had ("" for a server)."""

    record: str
    process: Process
    mountpoint: str = ""
    fstype: str = ""

    def __str__(self) -> str:
        return f"{self.record} {self.process.role} on {self.process.node}"


def daemons(cluster: ClusterState, record: str) -> list[Process]:
    """The processes `record` lists (MinIO's record names only its server)."""
    found = _record(cluster, record)
    if "processes" in found.info:
        return recorded_processes(found)
    return [Process(s3.NAME, found.pid, found.create_time, str(found.info.get("log", "")), s3.PORT, s3.NAME)]


def find(cluster: ClusterState, record: str, role: str, node: str) -> Process:
    """The daemon of `record` with `role` on `node` (`s3` for MinIO, which is on no node)."""
    listed = daemons(cluster, record)
    for process in listed:
        if process.role == role and process.node == node:
            return process
    have = ", ".join(sorted({f"{process.role} on {process.node}" for process in listed}))
    raise ServiceError(f"{record} has no {role} on {node} (it has: {have})")


def kill(cluster: ClusterState, record: str, role: str, node: str) -> Killed:
    """SIGKILL `record`'s `role` on `node` and wait until it is gone."""
    process = find(cluster, record, role, node)
    if not process.running():
        raise ServiceError(f"{record} {role} on {node} (pid {process.pid}) is not running")
    mountpoint = str(_record(cluster, record).info["mountpoint"]) if role == CLIENT else ""
    fstype = (fstype_on(cluster.node(node), mountpoint) or "") if mountpoint else ""
    os.kill(process.pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while process.running():  # a zombie counts as gone: the daemon is not our child
        if time.monotonic() > deadline:
            raise ServiceError(f"{record} {role} on {node} (pid {process.pid}) did not end after SIGKILL")
        time.sleep(0.02)
    return Killed(record, process, mountpoint, fstype)


def restart(cluster: ClusterState, killed: Killed, timeout: float = 120.0) -> Process:
    """Start `killed` again where it ran; returns once it serves (listens on its port, or its
    mount is back)."""
    old = killed.process
    record = _record(cluster, killed.record)
    began = time.monotonic()
    if killed.record == minio.NAME:
        new, popen = s3.spawn_server(cluster, record.secrets)
    else:
        node = cluster.node(old.node)
        daemon = DAEMONS[killed.record](cluster, old.role, node)
        if killed.mountpoint:
            spawn(on_node(node, detach_argv(killed.mountpoint)), daemon.log).wait(timeout=30)
        started, popen = spawn_on(node, daemon)
        new = cluster.record_started(started)
    replace_process(services_dir(cluster), record, old, new)
    wait_until(lambda: _serves(cluster, killed, time.monotonic() - began), popen, str(killed), new.log,
               timeout=timeout)
    return new


def _serves(cluster: ClusterState, killed: Killed, started_s: float) -> bool:
    """Is the daemon back: listening on its port, or mounted; a DataNode, heard from by its
    NameNode since it was started `started_s` seconds ago?"""
    old = killed.process
    if killed.record == minio.NAME:
        return netns.in_namespace(cluster.s3_namespace, lambda: port_open(old.port, S3_ADDRESS))
    node = cluster.node(old.node)
    if killed.mountpoint:
        return mounted_here(node, killed.mountpoint, killed.fstype)
    if not listening(node, old.port):
        return False
    return killed.record != "hdfs" or old.role != "datanode" or hdfs.datanode_back(cluster, node, started_s)


def _record(cluster: ClusterState, name: str) -> ServiceRecord:
    found = load_record(services_dir(cluster), name)
    if found is None:
        raise ServiceError(f"the cluster runs no {name} (it runs: {', '.join(cluster.storage) or 'no store'})")
    return found
