"""Backend names (`--storage s3`) mapped to adapter classes, imported only when used.

As in fsspec's registry, each entry is a dotted path plus an install hint, so
naming a backend whose dependencies are missing fails with a message that says
what to install instead of an import traceback. The storage layer's own backends
are listed here; a package above it that provides one registers it with
`register` (MosaStore: `mosastore.plugin`, called by the command line).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, NamedTuple

from hostkit.errors import MissingDependencyError, StorageConfigError

if TYPE_CHECKING:
    from storage_adapters.base import StorageAdapter


class BackendEntry(NamedTuple):
    """Where a backend's adapter class lives and how to install what it needs. (A named tuple:
    every command registers backends, and `dataclasses` would add 6 ms to its start.)"""

    target: str
    install_hint: str


_BACKENDS: dict[str, BackendEntry] = {
    "chirp": BackendEntry(
        "storage_adapters.chirp.adapter:ChirpAdapter",
        "apt-get install coop-computing-tools; for mode \"shared\" also apt-get install fuse3 and pip install trio (see setup.d/35-chirp.sh)",
    ),
    "hdfs": BackendEntry(
        "storage_adapters.hdfs.adapter:HdfsAdapter",
        "pip install hdfs-native; the servers need Java and Hadoop's jars (see setup.d/40-hdfs.sh)",
    ),
    "local": BackendEntry("storage_adapters.local:LocalAdapter", "nothing (built in)"),
    "s3": BackendEntry("storage_adapters.s3:S3Adapter", "pip install boto3"),
    "s3fs": BackendEntry(
        "storage_adapters.s3fs:S3fsAdapter",
        "pip install boto3, and apt-get install s3fs fuse3 (see setup.d/20-storage.sh)",
    ),
    "scp": BackendEntry("storage_adapters.scp:ScpAdapter", "pip install paramiko"),
}


def known_backends() -> list[str]:
    """Registered backend names, sorted."""
    return sorted(_BACKENDS)


def register(name: str, target: str, install_hint: str) -> None:
    """Add (or replace) a backend: `target` is "package.module:ClassName", a module of the
    package that registers it."""
    _BACKENDS[name] = BackendEntry(target, install_hint)


def adapter_class(name: str) -> type[StorageAdapter]:
    """Import and return the adapter class of backend `name`."""
    entry = _BACKENDS.get(name)
    if entry is None:
        raise StorageConfigError(f"unknown storage backend '{name}' (backends: {', '.join(known_backends())})")
    module_name, _, class_name = entry.target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        missing = getattr(error, "name", None) or str(error)
        raise MissingDependencyError(
            f"storage backend '{name}' needs the Python package '{missing}', which is not installed; "
            f"install: {entry.install_hint}"
        ) from error
    return getattr(module, class_name)
