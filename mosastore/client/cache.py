"""The client's chunk cache: parallel fetches, read-ahead, LRU eviction by bytes.

A read asks for the chunks it covers and, when it reads sequentially, starts
fetching the next `readahead` chunks too; every fetch runs in a worker
thread (blocking sockets release the GIL, so several chunks arrive at once)
and a second reader of a chunk in flight waits for the same fetch. Chunks of
write-once files never change under their key, so a cached chunk is always
valid. Replicas on the reader's own node are tried first. With the network
emulation on, each emulated node has its own cache, as separate hosts would.
"""

from __future__ import annotations

from collections import OrderedDict

import trio

from mosastore.client.netem import LinkEmulator
from mosastore.client.store import StoreClient


class _Slot:
    __slots__ = ("done", "data", "error")

    def __init__(self) -> None:
        self.done = trio.Event()
        self.data: bytearray | None = None
        self.error: OSError | None = None


class ChunkCache:
    """Chunks by key, fetched at most once while cached."""

    def __init__(self, client: StoreClient, capacity: int, nursery: trio.Nursery, links: LinkEmulator,
                 parallel_fetches: int = 16) -> None:
        self._client = client
        self._capacity = capacity
        self._nursery = nursery
        self._links = links
        self._limiter = trio.CapacityLimiter(parallel_fetches)
        self._slots: OrderedDict[tuple[str, str], _Slot] = OrderedDict()
        self._used = 0

    def prefetch(self, key: str, nodes: list[str], length: int, reader: str) -> None:
        """Start fetching a chunk unless it is cached or on its way."""
        cache_key = (reader if self._links.enabled else "", key)
        if cache_key in self._slots:
            self._slots.move_to_end(cache_key)
            return
        slot = _Slot()
        self._slots[cache_key] = slot
        self._nursery.start_soon(self._fetch, cache_key, slot, nodes, length, reader)

    async def get(self, key: str, nodes: list[str], length: int, reader: str) -> bytearray:
        """The bytes of a chunk (fetching it if needed)."""
        self.prefetch(key, nodes, length, reader)
        slot = self._slots[(reader if self._links.enabled else "", key)]
        await slot.done.wait()
        if slot.error is not None:
            raise slot.error
        assert slot.data is not None
        return slot.data

    async def _fetch(self, cache_key: tuple[str, str], slot: _Slot, nodes: list[str], length: int, reader: str) -> None:
        ordered = sorted(nodes, key=lambda node: node != reader)
        try:
            data, source = await trio.to_thread.run_sync(
                self._client.fetch, cache_key[1], ordered, length, limiter=self._limiter)
            await self._links.transfer(source, reader, len(data))
            slot.data = data
            self._used += len(data)
            self._evict()
        except OSError as error:
            slot.error = error
            if self._slots.get(cache_key) is slot:
                del self._slots[cache_key]  # a later read tries again
        finally:
            slot.done.set()

    def _evict(self) -> None:
        if self._used <= self._capacity:
            return
        for cache_key in list(self._slots):
            slot = self._slots[cache_key]
            if slot.data is None:
                continue  # still in flight
            del self._slots[cache_key]
            self._used -= len(slot.data)
            if self._used <= self._capacity:
                return
