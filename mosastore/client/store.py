"""The client's blocking view of the store: manager calls and chunk transfers with failover.

`StoreClient` holds one connection pool to the manager (patient: it rides
out a manager restart) and one per benefactor (impatient: a dead benefactor
is skipped within a fraction of a second). Benefactor addresses come from
the manager once and are refreshed only when a node is unknown or failed, so
a chunk read costs one round trip to one benefactor, never one to the
manager. `fetch` tries a chunk's replicas, healthy ones first, and checks the
length it gets back; a node that just failed is tried last for a while.
Used from trio worker threads by the FUSE file system, whose own manager
requests (names, attributes, commits) go through `link` on its event loop.
"""

from __future__ import annotations

import errno
import logging
import threading
import time
from typing import Any

from mosastore.protocol import Header
from mosastore.rpc import Pool, PoolSet

log = logging.getLogger("mosastore.client")
REFRESH_INTERVAL = 0.5
SUSPECT_FOR = 10.0


class StoreClient:
    """Thread-safe access to one store's manager and benefactors."""

    def __init__(self, manager_address: str, secret: bytes, manager_retry: float = 60.0) -> None:
        self.manager = Pool(manager_address, secret, retry_for=manager_retry)
        # One connection attempt per benefactor: when it fails, another replica is tried at once.
        self._benefactors = PoolSet(secret, retry_for=0.0)
        self._addresses: dict[str, str] = {}
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

    def put(self, node: str, key: str, data: bytes | bytearray | memoryview) -> None:
        """Store one chunk copy on `node`."""
        try:
            self._benefactors.get(self.address(node)).call("put", data, key=key)
        except OSError as error:
            self._failed(node)
            self.refresh()
            raise OSError(errno.EIO, f"cannot store chunk {key} on {node}: {error.strerror or error}") from error

    def close(self) -> None:
        self.manager.close()
        self._benefactors.close()
