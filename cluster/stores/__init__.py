"""Storage daemons of an emulated cluster, laid out as on real hosts (one module per store).

Each store's record is written where `--storage NAME` looks for a started store (the
cluster's services directory), so a run on the cluster uses it with no settings. Every
daemon listens on its node's own address; ports are fixed, since every node has a port
space of its own. Services run on the first node and are known to every node by name
(its hosts file), at the same address from every region: distance comes from the delay
line between the regions' subnets. `local` needs no daemon: every node sees the host's
directories. `s3fs` mounts the bucket of `s3` on every node (starting `s3` first if needed).
"""

from __future__ import annotations

from collections.abc import Iterable

from cluster.state import ClusterState
from cluster.stores import chirp, hdfs, mosastore, s3, s3fs
from cluster.stores.common import services_dir
from hostkit.errors import ServiceError
from mosastore import deploy
from storage_adapters.chirp import service as chirp_service
from storage_adapters.hdfs import service as hdfs_service
from storage_adapters.services import s3fs_mount

__all__ = ["CLUSTER_STORES", "DAEMONS", "MOUNT_TYPES", "RECORDS", "S3_NAME", "SERVICE_NAMES", "purge", "services_dir", "start",
           "with_daemons"]

# How each store's record names a daemon's restart: record name -> daemon(cluster, role, node).
DAEMONS = {"mosastore": mosastore.daemon, "hdfs": hdfs.daemon, "chirp": chirp.daemon}
STARTERS = {"mosastore": mosastore.start, "s3": s3.start, "hdfs": hdfs.start, "chirp": chirp.start,
            "s3fs": s3fs.start}
CLUSTER_STORES = ("local", *STARTERS)
SERVICE_NAMES = (mosastore.MANAGER_NAME, s3.NAME, hdfs.NAME, chirp.NAME)  # what every hosts file names
S3_NAME = s3.NAME  # the one service of no node: in a namespace of its own
RECORDS = ("mosastore", "minio", "hdfs", "chirp", "s3fs")  # the service records the stores write
# The file system types of the stores' mounts: a node detaches the host's mounts of these (a
# node mounts its own), lest a copy in the node keep the host's client serving once unmounted.
MOUNT_TYPES = (deploy.FSTYPE, chirp_service.FSTYPE, hdfs_service.FSTYPE, s3fs_mount.S3FS_FSTYPE)


def with_daemons(stores: Iterable[str]) -> tuple[str, ...]:
    """The stores to start among `stores`, each once: all but `local`, which needs no daemon
    (`start` brings up what one needs first, as s3 for s3fs)."""
    return tuple(dict.fromkeys(store for store in stores if store != "local"))


def start(cluster: ClusterState, store: str) -> None:
    """Start `store` on the cluster's nodes (each process recorded as it starts)."""
    if store not in CLUSTER_STORES:
        raise ServiceError(f"cannot start {store!r} on the cluster: it offers {', '.join(CLUSTER_STORES)}")
    if store in cluster.storage:
        return  # started already, as s3 is by s3fs
    if store in STARTERS:
        STARTERS[store](cluster)
    cluster.storage.append(store)
    cluster.save()


def purge(cluster: ClusterState) -> None:
    """Delete what the stores keep outside the cluster's directory."""
    chirp.purge(cluster)
