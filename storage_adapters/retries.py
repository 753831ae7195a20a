"""Requests to a store whose server is down for a moment: retried with backoff, for a bounded time.

A store's server restarts (an upgrade, a crash and its supervisor, a node rebooting), and for
the seconds that takes every request to it is refused. A transfer that fails so (`transient`:
the connection refused, reset or timed out, or the server saying it is not ready) is tried
again after 0.25 s, then 0.5, 1, 2 and 4 s, then every 4 s, for at most `UNAVAILABLE_RETRY_S`
(30 s) in all. Then the error names the store and how long it was tried, and the task fails;
its own retries (`--retries`) apply from there. Anything else (a missing file, a refused
credential, a full disk) fails at once. Staging transfers, the opening of a streamed input and
the engine's own fetches and publishes go through `retrying`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from storage_adapters.errors import StorageUnavailableError

if TYPE_CHECKING:  # the engine imports this module on every run; the adapters' base costs 10 ms
    from storage_adapters.base import StorageAdapter

UNAVAILABLE_RETRY_S = 30.0
FIRST_DELAY_S = 0.25
MAX_DELAY_S = 4.0
T = TypeVar("T")


def transient(error: BaseException) -> bool:
    """Is `error` a failure to reach the server, which its restart ends?"""
    return isinstance(error, (StorageUnavailableError, ConnectionError, TimeoutError))


def retrying(adapter: StorageAdapter, action: Callable[[], T], window: float = UNAVAILABLE_RETRY_S,
             clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> T:
    """`action()`, tried again while it fails transiently, for at most `window` seconds."""
    deadline = clock() + window
    delay = FIRST_DELAY_S
    while True:
        try:
            return action()
        except Exception as error:
            if not transient(error):
                raise
            if clock() + delay > deadline:
                reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
                where = adapter.describe()
                message = reason if where in reason else f"{where}: {reason}"
                raise StorageUnavailableError(adapter.redact(
                    f"{message} (its server could not be reached for {window:g} s)")) from error
        sleep(delay)
        delay = min(2 * delay, MAX_DELAY_S)
