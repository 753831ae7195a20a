"""Requests to a store whose server is down for a moment: retried with backoff, for a bounded time.

A store's server restarts (an upgrade, a crash and its supervisor, a node rebooting), and for
the seconds that takes every request to it is refused. A transfer that fails so (`transient`:
the connection refused, reset or timed out, or the server saying it is not ready) is tried
again after 0.25 s, then 0.5, 1, 2 and 4 s, then every 4 s, for at most `UNAVAILABLE_RETRY_S`
(30 s) in all, or `$SWIFTCLOUD_RETRY_WINDOW_S` seconds. Then the error names the store and how
long it was tried, and the task fails; its own retries (`--retries`) apply from there.
Anything else (a missing file, a refused credential, a full disk) fails at once. Staging
transfers, the opening of a streamed input and the engine's own fetches and publishes go
through `retrying`; the store clients of our FUSE mounts (HDFS, Chirp) through `Patience`.
(Only one layer retries: the same clients used for staging do not, or the windows would add
up.)
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from hostkit.errors import StorageConfigError
from storage_adapters.errors import StorageUnavailableError

if TYPE_CHECKING:  # the engine imports this module on every run; the adapters' base costs 10 ms
    from storage_adapters.base import StorageAdapter

UNAVAILABLE_RETRY_S = 30.0
WINDOW_VARIABLE = "SWIFTCLOUD_RETRY_WINDOW_S"  # another window, in seconds (the fault tests shorten it)
FIRST_DELAY_S = 0.25
MAX_DELAY_S = 4.0
T = TypeVar("T")


def transient(error: BaseException) -> bool:
    """Is `error` a failure to reach the server, which its restart ends (or the server saying
    to try again, as a NameNode in safe mode after its restart)?"""
    return isinstance(error, (StorageUnavailableError, ConnectionError, TimeoutError)) or \
        (isinstance(error, OSError) and error.errno == errno.EAGAIN)


def retry_window() -> float:
    """How long a store's server may stay unreachable: `$SWIFTCLOUD_RETRY_WINDOW_S`, else 30 s."""
    given = os.environ.get(WINDOW_VARIABLE)
    if given is None:
        return UNAVAILABLE_RETRY_S
    try:
        window = float(given)
    except ValueError:
        window = -1.0
    if not window >= 0:
        raise StorageConfigError(f"{WINDOW_VARIABLE} must be a number of seconds, not {given!r}")
    return window


def retrying(adapter: StorageAdapter, action: Callable[[], T], window: float | None = None,
             clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> T:
    """`action()`, tried again while it fails transiently, for at most `window` seconds; the
    final error names the adapter's store (credentials redacted)."""
    return retried(action, adapter.describe(), window, clock, sleep, adapter.redact)


def retried(action: Callable[[], T], where: str, window: float | None = None,
            clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
            redact: Callable[[str], str] = str) -> T:
    """`action()`, tried again while it fails transiently, for at most `window` seconds from
    its first failure (an attempt may take long to fail, as a write whose pipeline lost a
    node); the final error names `where` (the server) and how long it was tried (`window`
    defaults to `retry_window()`)."""
    window = retry_window() if window is None else window
    deadline: float | None = None
    delay = FIRST_DELAY_S
    while True:
        try:
            return action()
        except Exception as error:
            if not transient(error):
                raise
            if deadline is None:
                deadline = clock() + window
            if clock() + delay > deadline:
                reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
                message = reason if where in reason else f"{where}: {reason}"
                raise StorageUnavailableError(redact(
                    f"{message} (its server could not be reached for {window:g} s)")) from error
        sleep(delay)
        delay = min(2 * delay, MAX_DELAY_S)


class Patience:
    """How a store client meets its server `where` going away. A `patient` one (a FUSE mount's,
    whose callers expect OSErrors) retries its requests (`retried`) once the server has
    answered, and then fails with an OSError carrying the last error's errno and `retried`'s
    message; before the server ever answered, an unreachable one is a wrong address, reported
    at once. One that is not patient (a staging client: staging retries whole transfers)
    makes one attempt."""

    def __init__(self, where: str, patient: bool) -> None:
        self.where = where
        self.patient = patient
        self._reached = False  # has the server ever answered?

    def __call__(self, action: Callable[[], T]) -> T:
        if not (self.patient and self._reached):
            result = action()
            self._reached = True
            return result
        try:
            return retried(action, self.where)
        except StorageUnavailableError as error:
            cause = error.__cause__
            raise OSError(getattr(cause, "errno", None) or errno.EIO, str(error)) from cause
