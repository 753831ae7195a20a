"""S3 on the cluster: a MinIO server in the hub, reached by every node as `http://s3:9000`
(through its region's proxy outside the home region, as a cloud's S3 in another region),
with the bucket `swiftcloud`.

A cloud's object store is a service of the provider, not one of the workflow's hosts: its
aggregate bandwidth is not one host's link. So MinIO runs in the hub namespace, behind no
shaped link of its own, and each node reaches it over its own link, as it would S3. (The
other services are the workflow's own daemons and run on the first node, sharing its link.)
"""

from __future__ import annotations

import os
from typing import Any

from cluster import netns
from cluster.state import ClusterState, HUB_ADDRESS
from cluster.stores.common import Expose, services_dir, store_dir
from hostkit.processes import spawn, started, wait_until
from hostkit.program import module_environment
from hostkit.records import ServiceRecord, save_record
from storage_adapters.services import minio

NAME = "s3"
PORT, CONSOLE_PORT = 9000, 9001


def start(cluster: ClusterState, expose: Expose) -> None:
    directory = store_dir(cluster, minio.NAME)
    credentials = minio.new_credentials()
    log = os.path.join(directory, "server.log")
    argv = ["ip", "netns", "exec", cluster.hub,
            *minio.server_argv(minio.find_binary(), os.path.join(directory, "data"), HUB_ADDRESS, PORT, CONSOLE_PORT)]
    popen = spawn(argv, log, {**module_environment(), **minio.server_environment(credentials)})
    server = cluster.record_started(started("s3", popen, log, PORT, "hub"))
    wait_until(lambda: netns.in_namespace(cluster.hub, lambda: minio.healthy(PORT, HUB_ADDRESS)),
               popen, "MinIO", log, timeout=60, secrets=tuple(credentials.values()))
    address = f"{HUB_ADDRESS}:{PORT}"
    cluster.endpoints[NAME] = address
    expose(NAME, address)
    info: dict[str, Any] = {"endpoint_url": f"http://{NAME}:{PORT}", "port": PORT, "bucket": minio.DEFAULT_BUCKET,
                            "data_dir": os.path.join(directory, "data"), "log": log, "cluster": cluster.tag}
    record = ServiceRecord(minio.NAME, server.pid, server.create_time, info, credentials)
    netns.in_namespace(cluster.hub, lambda: minio.create_bucket(record, minio.DEFAULT_BUCKET, f"http://{address}"))
    save_record(services_dir(cluster), record)
