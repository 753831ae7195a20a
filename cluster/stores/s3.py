"""S3 on the cluster: a MinIO server on the first node, reached by every node as
`http://s3:9000` (through its region's proxy outside the home region, as a cloud's S3 in
another region), with the bucket `swiftcloud`."""

from __future__ import annotations

import os
from typing import Any

from cluster import netns
from cluster.nodes import spawn_on
from cluster.state import ClusterState
from cluster.stores.common import Expose, services_dir, store_dir
from storage_adapters.services import minio
from storage_adapters.services.common import ServiceRecord, save_record, wait_until

NAME = "s3"
PORT, CONSOLE_PORT = 9000, 9001


def start(cluster: ClusterState, expose: Expose) -> None:
    directory = store_dir(cluster, minio.NAME)
    credentials = minio.new_credentials()
    head = cluster.nodes[0]
    log = os.path.join(directory, "server.log")
    argv = minio.server_argv(minio.find_binary(), os.path.join(directory, "data"), head.address, PORT, CONSOLE_PORT)
    server, popen = spawn_on(head, "s3", argv, log, PORT, minio.server_environment(credentials))
    cluster.record_started(server)
    wait_until(lambda: netns.in_namespace(head.namespace, lambda: minio.healthy(PORT, head.address)),
               popen, "MinIO", log, timeout=60, secrets=tuple(credentials.values()))
    address = f"{head.address}:{PORT}"
    cluster.endpoints[NAME] = address
    expose(NAME, address)
    info: dict[str, Any] = {"endpoint_url": f"http://{NAME}:{PORT}", "port": PORT, "bucket": minio.DEFAULT_BUCKET,
                            "data_dir": os.path.join(directory, "data"), "log": log, "cluster": cluster.tag}
    record = ServiceRecord(minio.NAME, server.pid, server.create_time, info, credentials)
    netns.in_namespace(head.namespace, lambda: minio.create_bucket(record, minio.DEFAULT_BUCKET, f"http://{address}"))
    save_record(services_dir(cluster), record)
