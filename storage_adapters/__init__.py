"""Pluggable storage: how a workflow's files reach its tasks, chosen with `--storage NAME`.

Runtime hook (what the engine calls):

    adapter = open_storage(name, config_path)   # before any task runs
    # raises StorageConfigError naming the backend and what is wrong:
    # server unreachable, bad credentials, bucket missing, FUSE unavailable,
    # bad or unknown settings, a backend dependency not installed.

    adapter.mode == "shared":   tasks use adapter.local_path(logical) directly;
                                adapter.mount_path is the store root on every node.
    adapter.mode == "staging":  on the worker, around each task:
        local = stage_in(adapter, logical_inputs, scratch_dir).paths   # {logical: local path}
        ... run the task on the local paths ...
        stage_out(adapter, {local_out: logical_out, ...}, succeeded=task_ok)
    (storage_adapters.staging's stage_in/stage_out work for shared stores too:
    no copies, mount paths.)

    adapter.locations(logical) -> list[str]   # node names, [] when unknown
    adapter.close()                           # at the end of the run

Logical paths are relative to the store root (`results/x.txt`); a path that
escapes the root (`..` above it, or absolute outside a shared mount) raises
StoragePathError. Missing files raise FileNotFoundError. An adapter may be
used from several threads; each worker process opens its own with
`open_storage` (cheap: a mount that exists is reused).

Backends: local (shared, the default), s3 (staging, boto3), scp (staging,
SSH/SFTP), s3fs (shared, s3fs-fuse mount). See docs/storage.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from hostkit.errors import MissingDependencyError, StorageConfigError, StorageError
from storage_adapters.errors import StoragePathError, StorageTransferError
from storage_adapters.registry import adapter_class, known_backends, register

if TYPE_CHECKING:
    from storage_adapters.base import FileInfo, StorageAdapter

# Loaded at first use: the adapters' base class and the configuration reader cost every
# command that opens no store (`swiftcloud run` on local paths, `--help`, a worker rank)
# about 15 ms of start-up, which the command line would otherwise pay on its first import.
_LAZY = {"FileInfo": "storage_adapters.base", "StorageAdapter": "storage_adapters.base"}

__all__ = [
    "FileInfo",
    "MissingDependencyError",
    "StorageAdapter",
    "StorageConfigError",
    "StorageError",
    "StoragePathError",
    "StorageTransferError",
    "known_backends",
    "open_storage",
    "register",
]


def __getattr__(name: str) -> Any:
    """The names of `_LAZY`, imported when first asked for."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'storage_adapters' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def open_storage(name: str = "local", config_path: str | None = None, *, checked: bool = False) -> StorageAdapter:
    """Build the adapter for `--storage name` and validate it against the real store, unless
    `checked`: a run's worker opens the store its driver validated, and must not fail fast
    (checks make one quick attempt) when the server is restarting; its first transfer
    retries as every transfer does."""
    from storage_adapters.config import load_settings  # deferred: see _LAZY

    settings = load_settings(name, config_path)
    adapter = adapter_class(settings.backend).from_settings(settings)
    if checked:
        return adapter
    try:
        adapter.check()
    except BaseException:
        adapter.close()
        raise
    return adapter
