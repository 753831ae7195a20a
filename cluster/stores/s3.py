"""S3 on the cluster: a MinIO server in S3's own namespace and subnet, reached by every node
as `http://s3:9000`, with the bucket `swiftcloud`.

A cloud's object store is a service of the provider, not one of the workflow's hosts: its
aggregate bandwidth is not one host's link, and every request pays a round trip to it, in
its own region too. So MinIO runs in a namespace of its own whose link is shaped both ways
to S3's aggregate cap (`[s3] mbit`), and every region's path to it goes through the delay
line with the region's `s3_rtt_ms` (wan.py). (The other services are the workflow's own
daemons and run on the first node, sharing its link.)
"""

from __future__ import annotations

import os
import subprocess
from typing import Any

from cluster import netns
from cluster.nodes import Daemon
from cluster.state import S3_ADDRESS, ClusterState
from cluster.stores.common import services_dir, store_dir
from hostkit.processes import Process, spawn, started, wait_until
from hostkit.program import module_environment
from hostkit.records import ServiceRecord, save_record
from storage_adapters.services import minio

NAME = "s3"
PORT, CONSOLE_PORT = 9000, 9001


def daemon(cluster: ClusterState, credentials: dict[str, str]) -> Daemon:
    """How MinIO starts in S3's namespace (its argv enters the namespace itself), with `credentials`."""
    directory = store_dir(cluster, minio.NAME)
    argv = netns.inside(cluster.s3_namespace, minio.server_argv(minio.find_binary(), os.path.join(directory, "data"),
                                                               S3_ADDRESS, PORT, CONSOLE_PORT))
    return Daemon(NAME, argv, os.path.join(directory, "server.log"), PORT, minio.server_environment(credentials))


def spawn_server(cluster: ClusterState, credentials: dict[str, str]) -> tuple[Process, subprocess.Popen[bytes]]:
    """Start MinIO (recorded in the cluster's record at once)."""
    launch = daemon(cluster, credentials)
    popen = spawn(launch.argv, launch.log, {**module_environment(), **launch.env})
    return cluster.record_started(started(NAME, popen, launch.log, PORT, NAME)), popen


def start(cluster: ClusterState) -> None:
    credentials = minio.new_credentials()
    server, popen = spawn_server(cluster, credentials)
    wait_until(lambda: netns.in_namespace(cluster.s3_namespace, lambda: minio.healthy(PORT, S3_ADDRESS)),
               popen, "MinIO", server.log, timeout=60, secrets=tuple(credentials.values()))
    address = f"{S3_ADDRESS}:{PORT}"
    cluster.endpoints[NAME] = address
    directory = store_dir(cluster, minio.NAME)
    info: dict[str, Any] = {"endpoint_url": f"http://{NAME}:{PORT}", "port": PORT, "bucket": minio.DEFAULT_BUCKET,
                            "data_dir": os.path.join(directory, "data"), "log": server.log, "cluster": cluster.tag}
    record = ServiceRecord(minio.NAME, server.pid, server.create_time, info, credentials)
    netns.in_namespace(cluster.s3_namespace,
                       lambda: minio.create_bucket(record, minio.DEFAULT_BUCKET, f"http://{address}"))
    save_record(services_dir(cluster), record)
