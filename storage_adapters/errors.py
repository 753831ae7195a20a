"""The storage layer's own errors, beside the shared family of `hostkit.errors`.

Like those, they are the user's to fix and are printed without a traceback: a
path that escapes the store, a transfer that failed. Missing files are reported
with the builtin `FileNotFoundError`, as fsspec does, so callers can catch them
the usual way.
"""

from __future__ import annotations

from hostkit.errors import StorageError


class StoragePathError(StorageError, ValueError):
    """A logical path is not acceptable (it escapes the store root, or is empty where a file is needed)."""


class StorageTransferError(StorageError):
    """A transfer between the store and local disk failed (after the backend's own retries)."""


class StorageUnavailableError(StorageTransferError):
    """The store's server could not be reached (refused, reset, timed out, or answered that it is
    not ready): a fault that a restart of the server ends, worth retrying for a while."""
