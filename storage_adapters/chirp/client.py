"""A thread-safe Chirp client: a pool of authenticated connections to one chirp_server.

`ChirpClient.call(fn)` lends a connection to `fn`. chirp_server closes a
connection that stayed idle too long (60 s by default), so a connection
taken from the pool may already be dead: when such a reused connection
breaks before the first answer arrives, the server never executed the
request, and the call is retried once on a fresh connection. A connection
that broke is never returned to the pool. A mount's client (`patient`) tries
again for a while to connect to a server that answered before and now refuses
(`connect`): it may be restarting.

A directory that another client has just created has no ACL for a moment
(chirp_server makes the directory, then writes its ACL), and a request on it
in that moment is refused as not authorized: a refusal is retried a few
times over about 0.15 s before it is reported.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

from storage_adapters.chirp.protocol import NOT_AUTHORIZED, Connection, is_refusal
from storage_adapters.retries import Patience

Result = TypeVar("Result")
# Reuse a connection only well inside the server's idle timeout (60 s by default).
MAX_IDLE_SECONDS = 45.0
REFUSAL_RETRY_DELAYS = (0.01, 0.02, 0.04, 0.08)


def parse_address(address: str) -> tuple[str, int]:
    """HOST:PORT as a (host, port) pair; ValueError when malformed."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"'{address}' is not HOST:PORT")
    return host, int(port)


class ChirpClient:
    """Connections to the chirp_server at `address`, each used by one thread at a time."""

    def __init__(self, address: str, timeout: float = 60.0, max_idle: int = 16, patient: bool = False) -> None:
        self.address = address
        self._host, self._port = parse_address(address)
        self._timeout = timeout
        self._max_idle = max_idle
        self._idle: list[tuple[float, Connection]] = []
        self._lock = threading.Lock()
        self._closed = False
        self._patience = Patience(f"chirp_server {address}", patient)

    def connect(self) -> Connection:
        """A new authenticated connection. For a `patient` client (a mount's), one the server
        refuses, resets or lets time out is tried again while it may be restarting
        (`retries.Patience`, 30 s)."""
        return self._patience(lambda: Connection(self._host, self._port, self._timeout))

    def _take(self) -> tuple[Connection, bool]:
        now = time.monotonic()
        with self._lock:
            while self._idle:
                since, connection = self._idle.pop()
                if now - since < MAX_IDLE_SECONDS:
                    return connection, True
                connection.close()
        return self.connect(), False

    def _give_back(self, connection: Connection) -> None:
        with self._lock:
            if not self._closed and len(self._idle) < self._max_idle:
                self._idle.append((time.monotonic(), connection))
                return
        connection.close()

    def call(self, operation: Callable[[Connection], Result]) -> Result:
        """Run `operation` on a pooled connection (see the module docstring for the retries)."""
        for delay in REFUSAL_RETRY_DELAYS:
            try:
                return self._call_once(operation)
            except PermissionError as error:
                if getattr(error, "chirp_code", None) != NOT_AUTHORIZED:
                    raise
            time.sleep(delay)
        return self._call_once(operation)

    def _call_once(self, operation: Callable[[Connection], Result]) -> Result:
        connection, reused = self._take()
        try:
            result = operation(connection)
        except ConnectionError:
            connection.close()
            if not reused:
                raise
            connection = self.connect()
            try:
                result = operation(connection)
            except BaseException:
                connection.close()
                raise
        except OSError as error:
            # A result code (file missing, not authorized, ...) leaves the connection usable;
            # a socket error does not.
            if is_refusal(error):
                self._give_back(connection)
            else:
                connection.close()
            raise
        except BaseException:
            connection.close()
            raise
        self._give_back(connection)
        return result

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for _, connection in idle:
            connection.close()
