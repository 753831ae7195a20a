"""Errors raised by the storage layer, and the redaction every message goes through.

They are the user's to fix, and whoever shows them prints the message without a
traceback: a bad `[storage.NAME]` table, an unreachable server, a path that
escapes the store. The storage layer stands on its own (it imports nothing of
the engine); the engine's CLI maps `StorageConfigError` to exit status 2 like its
own usage errors, and any other `StorageError` to 1. Missing files are reported
with the builtin `FileNotFoundError`, as fsspec does, so callers can catch them
the usual way.
"""

from __future__ import annotations

from collections.abc import Iterable

REDACTED = "***"


class StorageError(Exception):
    """Base of the storage layer's user-facing errors."""


class StorageConfigError(StorageError):
    """The storage configuration cannot work: bad settings, server unreachable,
    bad credentials, bucket missing, FUSE unavailable. Raised before any task runs."""


class MissingDependencyError(StorageConfigError, ImportError):
    """A backend needs a package or program that is not installed; the message says what to install."""


class StoragePathError(StorageError, ValueError):
    """A logical path is not acceptable (it escapes the store root, or is empty where a file is needed)."""


class StorageTransferError(StorageError):
    """A transfer between the store and local disk failed (after the backend's own retries)."""


class ServiceError(StorageError):
    """A local test server (MinIO, sshd, an s3fs mount) could not be started or stopped."""


def redact(text: str, secrets: Iterable[str]) -> str:
    """Return `text` with every secret value replaced by `***` (longest first, so
    a secret that contains another is hidden whole)."""
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text
