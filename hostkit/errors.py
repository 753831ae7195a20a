"""What a user is told when something fails: the errors every floor shares, the exit
statuses of every command, and the redaction every message goes through.

The errors are the user's to fix, and whoever shows them prints the message without a
traceback: a bad `[storage.NAME]` table, an unreachable server, a missing program,
FUSE unavailable. Every floor raises them (a server of the emulated cluster or of a
batch job fails as a local test server does); the command line maps
`StorageConfigError` to exit status 2 like a usage error, and any other `StorageError`
to 1. The storage layer adds its own kinds (`storage_adapters.errors`), the engine its
user-error families (`engine.errors`).
"""

from __future__ import annotations

from collections.abc import Iterable

# As in Swift/T: 0 success, 1 a run-time error (or a failed operation), 2 a compile-time
# error or bad usage; 130 (128 + SIGINT, as a shell reports Ctrl-C) interrupted.
EXIT_OK = 0
EXIT_RUNTIME = 1
EXIT_COMPILE = 2
EXIT_INTERRUPTED = 130
REDACTED = "***"


class StorageError(Exception):
    """Base of the storage layer's user-facing errors."""


class StorageConfigError(StorageError):
    """The storage configuration cannot work: bad settings, server unreachable,
    bad credentials, bucket missing, FUSE unavailable. Raised before any task runs."""


class MissingDependencyError(StorageConfigError, ImportError):
    """A backend needs a package or program that is not installed; the message says what to install."""


class ServiceError(StorageError):
    """A local server (MinIO, sshd, an s3fs mount, a cluster's daemon) could not be started or stopped."""


def redact(text: str, secrets: Iterable[str]) -> str:
    """Return `text` with every secret value replaced by `***` (longest first, so
    a secret that contains another is hidden whole)."""
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text
