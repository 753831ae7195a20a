"""MosaStore's part in the product: the `--storage mosastore` backend and the `services start
mosastore` service, registered with the storage layer (by the command line, or by any
entry point that opens a store by name)."""

from __future__ import annotations

from storage_adapters.registry import register as register_backend
from storage_adapters.services import register_service

INSTALL_HINT = "pip install trio, and apt-get install fuse3 (see setup.d/30-mosastore.sh)"


def register() -> None:
    """Make `mosastore` a storage backend and a service (importing neither until used)."""
    register_backend("mosastore", "mosastore.adapter:MosaStoreAdapter", INSTALL_HINT)
    register_service("mosastore", "mosastore.service")
