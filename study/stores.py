"""The stores the study compares: every registered storage backend that the emulated cluster
can start, in the cluster's order (`local`, the reference, first)."""

from __future__ import annotations

from cluster.stores import CLUSTER_STORES
from storage_adapters.registry import known_backends


def study_stores() -> tuple[str, ...]:
    """The stores, once every package's backends are registered (the command line, or the
    entry point, registers them: `mosastore.plugin`)."""
    backends = set(known_backends())
    return tuple(store for store in CLUSTER_STORES if store in backends)
