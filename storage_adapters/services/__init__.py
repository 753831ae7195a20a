"""Local servers for trying and testing backends: `swiftcloud services start|stop|status NAME`.

Each service module (`minio`, `sshd`, `s3fs_mount`, the Chirp and HDFS servers)
offers `start(state_dir) -> ServiceRecord`, `stop(state_dir) -> bool` and
`status(state_dir) -> ServiceRecord | None`; this package maps service names to
them, importing lazily. A package above the storage layer adds its own with
`register_service` (MosaStore's, and the trial Slurm of `batch`). Tests use the
same functions as fixtures.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING

from hostkit.errors import ServiceError

if TYPE_CHECKING:  # every command line imports this package: psutil and the records wait until used
    from hostkit.records import ServiceRecord

_SERVICE_MODULES = {
    "chirp": "storage_adapters.chirp.service",
    "hdfs": "storage_adapters.hdfs.service",
    "minio": "storage_adapters.services.minio",
    "s3fs": "storage_adapters.services.s3fs_mount",
    "sshd": "storage_adapters.services.sshd",
}


def register_service(name: str, module: str) -> None:
    """Add (or replace) service `name`, offered by `module` (of the package that registers it)."""
    _SERVICE_MODULES[name] = module


def known_services() -> list[str]:
    """Service names, sorted."""
    return sorted(_SERVICE_MODULES)


def _module(name: str) -> ModuleType:
    if name not in _SERVICE_MODULES:
        raise ServiceError(f"unknown service '{name}' (services: {', '.join(known_services())})")
    return importlib.import_module(_SERVICE_MODULES[name])


def start_service(name: str, state_dir: str, **options: object) -> ServiceRecord:
    """Start service `name` under `state_dir` (or return it if already running);
    `options` are the service's own (mosastore: `benefactors`, chirp: `servers`, hdfs: `datanodes`)."""
    return _module(name).start(state_dir, **options)


def stop_service(name: str, state_dir: str) -> bool:
    """Stop service `name`; False if it was not running."""
    return _module(name).stop(state_dir)


def service_status(name: str, state_dir: str) -> ServiceRecord | None:
    """The running service's record, or None."""
    return _module(name).status(state_dir)
