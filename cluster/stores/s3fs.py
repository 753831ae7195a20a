"""s3fs on the cluster: the cluster's MinIO bucket mounted with s3fs-fuse on every node.

Each node runs its own `s3fs` (in the foreground, so its PID is recorded and `down` ends
it), mounting the bucket `swiftcloud` of `http://s3:9000` at the same path inside the
node's own mount namespace, as every host of a real cluster would mount the cloud's
bucket. The keys reach s3fs only through a passwd file of mode 600 in the store's
directory: never in argv, environment or logs. It needs the cluster's S3: when `s3` was
not started yet, it is started first.
"""

from __future__ import annotations

import os
from dataclasses import asdict
from typing import Any

from cluster.nodes import Daemon, mount_on_each
from cluster.state import ClusterState
from cluster.stores import s3
from cluster.stores.common import CLIENT, services_dir, store_dir
from hostkit.errors import ServiceError
from hostkit.records import ServiceRecord, load_record, save_record
from storage_adapters.services import minio, s3fs_mount

NAME = s3fs_mount.NAME
PASSWD_FILE = "passwd-s3fs"


def start(cluster: ClusterState) -> None:
    s3fs_mount.check_fuse()
    if "s3" not in cluster.storage:
        s3.start(cluster)
        cluster.storage.append("s3")
        cluster.save()
    server = load_record(services_dir(cluster), minio.NAME)
    if server is None:
        raise ServiceError("s3fs on the cluster needs its S3 store, which left no record: bring the cluster up "
                           "again with --storage s3,s3fs")
    directory = store_dir(cluster, NAME)
    passwd = os.path.join(directory, PASSWD_FILE)
    descriptor = os.open(passwd, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(f"{server.secrets['access_key']}:{server.secrets['secret_key']}\n")
    bucket, endpoint = server.info["bucket"], server.info["endpoint_url"]
    options = ",".join([
        f"passwd_file={passwd}", f"url={endpoint}", "use_path_request_style",
        # Other nodes change the bucket too: keep each node's cached metadata short-lived.
        "stat_cache_expire=1", "dbglevel=warn",
    ])
    mountpoint = cluster.path("mnt", NAME)
    os.makedirs(mountpoint, exist_ok=True)
    clients = mount_on_each(cluster, lambda node: Daemon(CLIENT, ["s3fs", bucket, mountpoint, "-f", "-o", options],
                                                         cluster.path("nodes", node.name, "s3fs-client.log")),
                            mountpoint, s3fs_mount.S3FS_FSTYPE, "s3fs")
    info: dict[str, Any] = {
        "mountpoint": mountpoint, "bucket": bucket, "endpoint_url": endpoint, "passwd_file": passwd,
        "log": directory, "nodes": ",".join(node.name for node in cluster.nodes), "cluster": cluster.tag,
        "processes": [asdict(process) for process in clients],
    }
    save_record(services_dir(cluster), ServiceRecord(NAME, clients[0].pid, clients[0].create_time, info))
