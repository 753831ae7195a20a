"""The client's blocking view of the store: manager calls and chunk transfers with failover.

`StoreClient` holds one connection pool to the manager (patient: it rides
out a manager restart) and one per benefactor (impatient: a dead benefactor
is skipped within a fraction of a second). Benefactor addresses come from
the manager once and are refreshed only when a node is unknown or failed, so
a chunk read costs one round trip to one benefactor, never one to the
manager. A chunk stored on a benefactor of this host and network is not sent: the client
passes its spool over the benefactor's local socket and the kernel copies the range (as
HDFS's short-circuit reads pass a block's file the other way). `fetch` tries a chunk's
replicas, healthy ones first, and checks the length it gets back; a node that just failed is
tried last for a while.
Used from trio worker threads by the FUSE file system, whose own manager
requests (names, attributes, commits) go through `link` on its event loop.
"""

from __future__ import annotations

import errno
import logging
import os
import threading
import time
from typing import Any

from mosastore.protocol import Header, local_socket
from mosastore.rpc import Pool, PoolSet, Unreachable

log = logging.getLogger("mosastore.client")
REFRESH_INTERVAL = 0.5
SUSPECT_FOR = 10.0


class SpoolRange:
    """One chunk of a local file (a spool), open for reading for as long as its copies are
    stored (the spool itself may be closed meanwhile): passed as it is to a benefactor of this
    host, read at most once for the others (whose copies then hold the same bytes). Close it."""

    __slots__ = ("descriptor", "offset", "length", "_data", "_lock")

    def __init__(self, spool: int, offset: int, length: int) -> None:
        # Read-only: all a benefactor may do with it is read.
        self.descriptor = os.open(f"/proc/self/fd/{spool}", os.O_RDONLY | os.O_CLOEXEC)
        self.offset, self.length = offset, length
        self._data: bytes | None = None
        self._lock = threading.Lock()

    def data(self) -> bytes:
        with self._lock:
            if self._data is None:
                self._data = os.pread(self.descriptor, self.length, self.offset)
            return self._data

    def close(self) -> None:
        os.close(self.descriptor)


class StoreClient:
    """Thread-safe access to one store's manager and benefactors."""

    def __init__(self, manager_address: str, secret: bytes, manager_retry: float = 60.0) -> None:
        self.manager = Pool(manager_address, secret, retry_for=manager_retry)
        # One connection attempt per benefactor: when it fails, another replica is tried at once.
        self._benefactors = PoolSet(secret, retry_for=0.0)
        self._addresses: dict[str, str] = {}
        self._locals: dict[str, str] = {}  # node -> its local socket (protocol.local_socket)
        self._out_of_reach: set[str] = set()  # local sockets of another host or network
        self._alive: set[str] = set()
        self._failed_at: dict[str, float] = {}
        self._lock = threading.Lock()
        self._refreshed_at = 0.0

    def call(self, op: str, payload: bytes | bytearray | memoryview = b"", **fields: Any) -> tuple[Header, bytearray]:
        """One manager request."""
        return self.manager.call(op, payload, **fields)

    def refresh(self, force: bool = False) -> dict[str, dict[str, Any]]:
        """Re-read the benefactor registry from the manager (at most every half second)."""
        with self._lock:
            if not force and time.monotonic() - self._refreshed_at < REFRESH_INTERVAL:
                return {}
            self._refreshed_at = time.monotonic()
        nodes = self.call("benefactors")[0]["nodes"]
        with self._lock:
            self._addresses = {node: info["address"] for node, info in nodes.items()}
            self._locals = {node: local_socket(info["local"]) for node, info in nodes.items() if info.get("local")}
            self._alive = {node for node, info in nodes.items() if info["alive"]}
        return nodes

    def _suspect(self, node: str) -> bool:
        """Failed in the last few seconds, or reported dead by the manager: try it last."""
        with self._lock:
            return time.monotonic() - self._failed_at.get(node, -SUSPECT_FOR) < SUSPECT_FOR or (
                bool(self._alive) and node not in self._alive)

    def _failed(self, node: str) -> None:
        with self._lock:
            self._failed_at[node] = time.monotonic()

    def spare_nodes(self, exclude: set[str]) -> list[str]:
        """Live benefactors outside `exclude`, healthy ones first: where a copy goes when its node fails."""
        self.refresh()
        with self._lock:
            candidates = sorted(self._alive - exclude)
        return sorted(candidates, key=self._suspect)

    def address(self, node: str) -> str:
        with self._lock:
            address = self._addresses.get(node)
        if address is None:
            self.refresh(force=True)
            with self._lock:
                address = self._addresses.get(node)
        if address is None:
            raise OSError(errno.EHOSTUNREACH, f"unknown benefactor {node!r}")
        return address

    def fetch(self, key: str, nodes: list[str], length: int) -> tuple[bytearray, str]:
        """Chunk `key` (of `length` bytes) from the first replica that serves it; returns (data, node)."""
        failures = []
        for attempt in range(2):
            for node in sorted(nodes, key=self._suspect):
                try:
                    _, data = self._benefactors.get(self.address(node)).call("get", key=key)
                except OSError as error:
                    self._failed(node)
                    failures.append(f"{node}: {error.strerror or error}")
                    continue
                if len(data) == length:
                    return data, node
                failures.append(f"{node}: chunk has {len(data)} bytes, expected {length}")
            if attempt == 0:
                self.refresh()  # a benefactor may have moved (restarted on another port)
        log.error("chunk %s unavailable: %s", key, "; ".join(failures))
        raise OSError(errno.EIO, f"chunk {key} unavailable on every replica ({'; '.join(failures)})")

    def put(self, node: str, key: str, chunk: SpoolRange) -> None:
        """Store one chunk copy on `node`: copied by the kernel when `node`'s benefactor runs on
        this host and network (the file passed over its local socket), else sent."""
        try:
            address = self.address(node)
            with self._lock:
                local = self._locals.get(node)
                if local in self._out_of_reach:
                    local = None
            if local is not None:
                try:
                    self._benefactors.get(local).call("put_from", descriptor=chunk.descriptor, key=key,
                                                      offset=chunk.offset, length=chunk.length)
                    return
                except Unreachable:
                    # Another host's or network's socket (or a benefactor just gone: then the
                    # send below fails too).
                    with self._lock:
                        self._out_of_reach.add(local)
            self._benefactors.get(address).call("put", chunk.data(), key=key)
        except OSError as error:
            self._failed(node)
            self.refresh()
            raise OSError(errno.EIO, f"cannot store chunk {key} on {node}: {error.strerror or error}") from error

    def close(self) -> None:
        self.manager.close()
        self._benefactors.close()
