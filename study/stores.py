"""The stores the study compares: every registered storage backend that the emulated cluster
can start, shown in the paper's order."""

from __future__ import annotations

from cluster.stores import CLUSTER_STORES
from storage_adapters.registry import known_backends

# The order of the study's figures and messages, not the list of its stores (which the
# registry and the cluster make): the reference, S3 and its mount, the workflow-aware
# store, the cluster file systems. A store it does not name comes last.
SHOWN_IN_ORDER = ("local", "s3", "s3fs", "mosastore", "hdfs", "chirp")


def study_stores() -> tuple[str, ...]:
    """The stores, once every package's backends are registered (the command line, or the
    entry point, registers them: `mosastore.plugin`)."""
    backends = set(known_backends())
    stores = [store for store in CLUSTER_STORES if store in backends]
    return tuple(sorted(stores, key=lambda store: SHOWN_IN_ORDER.index(store) if store in SHOWN_IN_ORDER
                        else len(SHOWN_IN_ORDER)))
