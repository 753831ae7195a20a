"""Blocking RPC clients for the manager and the benefactors: authenticated, pooled, retrying.

`Pool(address, secret)` keeps idle authenticated connections to one server
(`HOST:PORT`, or `@NAME`: its local socket on this host, over which a request can pass an
open file);
`call(op, payload, **fields)` borrows one, sends the request and returns the
success reply and its payload, or raises `RemoteError` (an `OSError` with the
server's errno). A broken connection is dropped and the call is tried again
on a fresh one; while the server cannot be reached the call keeps trying with
backoff for `retry_for` seconds (long for the manager, so that a manager
restart is ridden out; short for benefactors, so that a read moves on to
another replica at once). Pools are thread-safe; the FUSE client calls the
benefactors' from trio worker threads (its manager requests go through
`client.link`, on its event loop, under the same rules: `Retry`).
"""

from __future__ import annotations

import errno
import socket
import threading
import time
from typing import Any

from mosastore.auth import AuthenticationError, client_handshake
from mosastore.protocol import Channel, CorruptPayload, Header, ProtocolError, raise_for, send_descriptor

CALL_TIMEOUT = 120.0
CONNECT_TIMEOUT = 5.0


class Unreachable(ConnectionError):
    """The server could not be reached (or kept dropping the connection) within the retry window."""


def parse_address(address: str) -> tuple[str, int]:
    """`host:port` → (host, port)."""
    host, separator, port = address.rpartition(":")
    if not separator or not host or not port.isdigit():
        raise ValueError(f"bad address {address!r}: expected HOST:PORT")
    return host.strip("[]"), int(port)


def _connect(address: str) -> socket.socket:
    """A connection to `HOST:PORT`, or to the local socket `@NAME` (`protocol.local_socket`)."""
    if address.startswith("@"):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(CONNECT_TIMEOUT)
            sock.connect("\0" + address[1:])
        except BaseException:
            sock.close()
            raise
        return sock
    sock = socket.create_connection(parse_address(address), timeout=CONNECT_TIMEOUT)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


class Retry:
    """What a call does after a failed attempt: a broken idle connection is replaced at once;
    a server that cannot be reached is tried again with backoff until `retry_for` seconds
    have passed; a refused secret or corrupt data is not tried again."""

    def __init__(self, address: str, retry_for: float) -> None:
        self._address = address
        self._deadline = time.monotonic() + retry_for
        self._delay = 0.05

    def after(self, error: Exception, fresh: bool) -> float:
        """Seconds to wait before the next attempt, after `error` on a `fresh` connection (or
        an idle one); raises what the caller should see when there is none."""
        if isinstance(error, AuthenticationError):
            raise error
        if isinstance(error, CorruptPayload):
            # The server answered, with bytes that fail their digest: not a reason to call it
            # unreachable, nor to ask again (a chunk altered at rest comes back the same).
            raise OSError(errno.EIO, f"{self._address} sent data that failed its integrity check"
                                     f" ({error})") from error
        if not isinstance(error, (OSError, ProtocolError)):
            raise error
        if not fresh:
            return 0.0  # a stale idle connection (the server restarted): a new one at once
        if time.monotonic() + self._delay > self._deadline:
            raise Unreachable(errno.EHOSTUNREACH, f"cannot reach {self._address}: {error}") from error
        delay, self._delay = self._delay, min(self._delay * 2, 1.0)
        return delay


class Connection:
    """One authenticated connection; not thread-safe (a pool hands it to one thread at a time)."""

    def __init__(self, address: str, secret: bytes, timeout: float = CALL_TIMEOUT) -> None:
        sock = _connect(address)
        try:
            self.role, key = client_handshake(sock, secret)
            sock.settimeout(timeout)
        except BaseException:
            sock.close()
            raise
        self.channel = Channel(sock, key, client=True)

    def call(self, header: Header, payload: bytes | bytearray | memoryview = b"",
             descriptor: int | None = None) -> tuple[Header, bytearray]:
        self.channel.send(header, payload)
        if descriptor is not None:
            send_descriptor(self.channel.sock, descriptor)
        message = self.channel.recv()
        if message is None:
            raise ProtocolError("the server closed the connection")
        return message

    def close(self) -> None:
        self.channel.close()


class Pool:
    """Idle connections to one server, reused across calls and threads."""

    def __init__(self, address: str, secret: bytes, retry_for: float = 60.0, max_idle: int = 16) -> None:
        self.address = address
        self._secret = secret
        self._retry_for = retry_for
        self._max_idle = max_idle
        self._idle: list[Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def call(self, op: str, payload: bytes | bytearray | memoryview = b"", *, descriptor: int | None = None,
             **fields: Any) -> tuple[Header, bytearray]:
        """Run one request; returns the success reply and its payload. `descriptor`: an open
        file passed with it (to a server's local socket)."""
        header = {"op": op, **fields}
        retry = Retry(self.address, self._retry_for)
        while True:
            connection, fresh = self._borrow()
            try:
                if connection is None:
                    connection = Connection(self.address, self._secret)
                    fresh = True
                reply, data = connection.call(header, payload, descriptor)
            except Exception as error:  # noqa: BLE001 - `Retry` re-raises what is not retried
                if connection is not None:
                    connection.close()
                time.sleep(retry.after(error, fresh))
                continue
            self._give_back(connection)
            return raise_for(reply), data

    def ping(self) -> Header:
        """One round trip (also proves the secret): the server's `ping` reply."""
        return self.call("ping")[0]

    def close(self) -> None:
        """Close every idle connection; later calls open new ones."""
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()

    def _borrow(self) -> tuple[Connection | None, bool]:
        with self._lock:
            if self._idle:
                return self._idle.pop(), False
        return None, True

    def _give_back(self, connection: Connection) -> None:
        with self._lock:
            if len(self._idle) < self._max_idle:
                self._idle.append(connection)
                return
        connection.close()


class PoolSet:
    """One pool per server address, created on first use."""

    def __init__(self, secret: bytes, retry_for: float) -> None:
        self._secret = secret
        self._retry_for = retry_for
        self._pools: dict[str, Pool] = {}
        self._lock = threading.Lock()

    def get(self, address: str) -> Pool:
        with self._lock:
            pool = self._pools.get(address)
            if pool is None:
                pool = self._pools[address] = Pool(address, self._secret, self._retry_for)
            return pool

    def close(self) -> None:
        with self._lock:
            pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            pool.close()
