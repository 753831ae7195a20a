"""What the cluster's stores share: the services directory, a store's own directory, and the
argv of a Python daemon."""

from __future__ import annotations

import os
import sys

from cluster.state import ClusterState, services_dir

CLIENT = "client"  # the role of a node's FUSE client, in every store's record


def store_dir(cluster: ClusterState, name: str) -> str:
    """A store's own directory under the services directory, private to the user."""
    directory = os.path.join(services_dir(cluster), name)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    return directory


def python_module(module: str, *args: str) -> list[str]:
    return [sys.executable, "-m", module, *args]
