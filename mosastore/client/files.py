"""Open files of the FUSE client: chunked readers of committed files, and files being written.

A `ChunkReader` serves reads of a committed file from its chunk list (got
once at open): it asks the chunk cache for the chunks a read covers and
reads ahead when access is sequential.

A `PendingFile` is a file being written. Its bytes go to an anonymous local
spool file (any write pattern works: appends, overwrites, holes,
truncation). As soon as a chunk is complete and sequentially written it is
uploaded in the background to the benefactors its placement plan names (asked
of the manager before the first upload: an empty file never asks); a later
write into an uploaded chunk marks it dirty. `commit()` (on close)
uploads what is left, then asks the manager to publish the file in one
transaction: until then no other client can see it, so a file is never
visible half-written. `discard()` drops a write (its writer was killed) and
hands the uploaded chunks to the manager's garbage collector.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

import trio

from storage_adapters.fuse.edits import Edits
from mosastore.benefactor import chunk_key, new_write_id
from mosastore.client.cache import ChunkCache
from mosastore.client.link import ManagerLink
from mosastore.client.netem import LinkEmulator
from mosastore.client.plans import Plans
from mosastore.client.store import SpoolRange, StoreClient
from mosastore.placement import PLACEMENT_XATTR, Plan, chunk_nodes

PARALLEL_UPLOADS = 8
# Inode numbers reserved at the manager at once: a file created here then costs it no request.
INODE_BLOCK = 256


@dataclass
class Context:
    """What open files share: the store, the chunk cache, the plans kept, the task nursery,
    local settings."""

    client: StoreClient
    manager: ManagerLink
    cache: ChunkCache
    plans: Plans
    nursery: trio.Nursery
    links: LinkEmulator
    spool_dir: str
    readahead: int = 8
    upload_limiter: trio.CapacityLimiter = field(default_factory=lambda: trio.CapacityLimiter(16))
    inodes: range = range(0)  # reserved at the manager, not used yet

    async def call(self, op: str, payload: bytes = b"", **fields: Any) -> tuple[dict[str, Any], bytearray]:
        """A manager request."""
        return await self.manager.call(op, payload, **fields)

    async def new_inode(self) -> int:
        """A fresh inode number for a file created here. Numbers are never reused, so two
        creates that both reserve a block at once only leave numbers unused."""
        if not self.inodes:
            reply, _ = await self.call("reserve", count=INODE_BLOCK)
            self.inodes = range(reply["ino"], reply["ino"] + reply["count"])
        ino, self.inodes = self.inodes[0], self.inodes[1:]
        return ino


class ChunkReader:
    """Reads of one committed file version."""

    def __init__(self, context: Context, opened: dict[str, Any], reader: str) -> None:
        self._context = context
        self.size: int = opened["size"]
        self.version: int = opened["version"]
        self._chunk_size: int = opened["chunk_size"] or 1
        self._chunks: list[list[Any]] = opened["chunks"]
        self.node = reader
        self._next_offset = 0

    async def read(self, offset: int, size: int) -> bytes:
        end = min(offset + size, self.size)
        if offset >= end:
            return b""
        first, last = offset // self._chunk_size, (end - 1) // self._chunk_size
        cache = self._context.cache
        ahead = self._context.readahead if offset in (0, self._next_offset) else 0
        for index in range(first, min(last + 1 + ahead, len(self._chunks))):
            key, nodes, length = self._chunks[index]
            cache.prefetch(key, nodes, length, self.node)
        self._next_offset = end
        parts = []
        for index in range(first, last + 1):
            key, nodes, length = self._chunks[index]
            data = await cache.get(key, nodes, length, self.node)
            base = index * self._chunk_size
            parts.append(memoryview(data)[max(offset, base) - base:min(end, base + length) - base])
        return parts[0] if len(parts) == 1 else b"".join(parts)  # type: ignore[return-value]


class PendingFile(Edits):
    """A file being written through this mount, invisible elsewhere until `commit()`."""

    def __init__(self, context: Context, ino: int, parent: int, name: str, attrs: dict[str, int],
                 writer: str, chunk_size: int, xattrs: dict[str, str], committed: bool) -> None:
        self._context = context
        self.ino, self.parent, self.name = ino, parent, name
        self.attrs = dict(attrs)  # mode, uid, gid, mtime_ns
        self.writer = writer
        self.plan: Plan | None = None  # see `placement`
        self.chunk_size = chunk_size
        self.xattrs = dict(xattrs)
        self.committed = committed  # the inode exists at the manager (an in-place rewrite)
        self.discarded = False  # never to be published (see fuse.frontend.Pending)
        self.edits, self.published = 1, 0  # a new file is a change (see Edits)
        self.opens = 0
        self._contiguous = 0  # bytes [0, _contiguous) were written in order
        self._scheduled = 0  # chunks below this index were handed to background upload
        self._uploaded: dict[int, list[Any]] = {}
        self._inflight: dict[int, trio.Event] = {}
        self._dirty: set[int] = set()
        self._committed_keys: set[str] = set()
        self._superseded: list[list[Any]] = []
        self._error: OSError | None = None
        self._write_id = new_write_id()
        self._sequence = 0
        self._lock = trio.Lock()
        self.spool = _spool(context.spool_dir, ino)
        self.version: int | None = None  # the manager's, once published

    # ----- local I/O -----

    def notice_direct_writes(self) -> None:
        """A change the kernel wrote to the spool itself may touch any chunk uploaded before."""
        edits = self.edits
        super().notice_direct_writes()
        if self.edits != edits:
            self._dirty.update(self._uploaded, self._inflight)
            self.attrs["mtime_ns"] = time.time_ns()

    def entry_attrs(self) -> dict[str, int]:
        now = time.time_ns()
        return {"ino": self.ino, "size": self.size, "version": 0, "nlink": 1, "ctime_ns": now, **self.attrs}

    def read(self, offset: int, size: int) -> bytes:
        return os.pread(self.spool, size, offset)

    async def write(self, offset: int, data: bytes) -> int:
        os.pwrite(self.spool, data, offset)
        end = offset + len(data)
        self.changed = True
        self.attrs["mtime_ns"] = time.time_ns()
        if offset <= self._contiguous:
            self._contiguous = max(self._contiguous, end)
        for index in range(offset // self.chunk_size, (end - 1) // self.chunk_size + 1 if data else 0):
            if index in self._uploaded or index in self._inflight:
                self._dirty.add(index)
        complete = self._contiguous // self.chunk_size
        while self._scheduled < complete:
            plan = await self.placement()
            while len(self._inflight) >= PARALLEL_UPLOADS:
                await next(iter(self._inflight.values())).wait()
            index = self._scheduled
            self._scheduled += 1
            if index not in self._uploaded and index not in self._inflight:
                self._start_upload(index, plan)
        return len(data)

    def truncate(self, size: int) -> None:
        if size < self.size:
            self._dirty.update(index for index in self._uploaded if (index + 1) * self.chunk_size > size)
            self._contiguous = min(self._contiguous, size)
            self._scheduled = min(self._scheduled, size // self.chunk_size)
        os.ftruncate(self.spool, size)
        self.changed = True
        self.attrs["mtime_ns"] = time.time_ns()

    def replan(self) -> None:
        """Its hint or writer changed: a new placement is asked for, and everything uploaded
        goes again at commit."""
        self.plan = None
        self._dirty.update(self._uploaded)
        self.changed = True

    async def placement(self) -> Plan:
        """Where the chunks go: the file's own hint, or its directory's nearest, for its writer.
        Asked once, of the plans kept or else of the manager (two callers at once may both ask:
        the plans are equally good)."""
        if self.plan is None:
            own = self.xattrs.get(PLACEMENT_XATTR)
            hint = bytes.fromhex(own).decode() if own else ""
            plans = self._context.plans
            plan = plans.get(self.parent, hint, self.writer)
            if plan is None:
                reply, _ = await self._context.call("plan", start=self.parent, writer=self.writer, hint=hint)
                plan = Plan.from_json(reply["plan"])
                plans.put(self.parent, hint, self.writer, plan)
            self.plan = plan
        return self.plan

    async def planned_nodes(self) -> list[str]:
        """Nodes that hold (or will hold) this file's chunks."""
        plan = await self.placement()
        count = max(1, -(-self.size // self.chunk_size))
        seen: dict[str, None] = {}
        for index in range(count):
            for node in (self._uploaded[index][1] if index in self._uploaded and index not in self._dirty
                         else chunk_nodes(plan, index)):
                seen.setdefault(node)
        return list(seen)

    # ----- uploads -----

    def _start_upload(self, index: int, plan: Plan) -> None:
        self._dirty.discard(index)
        self._inflight[index] = trio.Event()
        self._context.nursery.start_soon(self._upload, index, plan)

    async def _upload(self, index: int, plan: Plan) -> None:
        try:
            offset = index * self.chunk_size
            length = max(0, min(self.chunk_size, self.size - offset))
            key = chunk_key(self.ino, self._write_id, self._sequence)
            self._sequence += 1
            targets = chunk_nodes(plan, index)
            nodes: list[str] = []
            chunk = SpoolRange(self.spool, offset, length)
            try:
                async with trio.open_nursery() as copies:
                    for node in targets:
                        copies.start_soon(self._put_copy, node, key, chunk, targets, nodes)
            finally:
                chunk.close()
            nodes = list(dict.fromkeys(nodes))  # two failed copies may have found the same spare
            previous = self._uploaded.get(index)
            if previous is not None and previous[0] not in self._committed_keys:
                self._superseded.append(previous)
            self._uploaded[index] = [key, nodes, length]
        except* OSError as failures:  # a copy that found no node, out of the copies' nursery
            self._error = _first(failures)
        finally:
            self._inflight.pop(index).set()

    async def _put_copy(self, node: str, key: str, chunk: SpoolRange, targets: list[str],
                        placed: list[str]) -> None:
        """Store one copy on `node`, or, if it fails, on a live node that holds no copy yet."""
        client = self._context.client
        try:
            await trio.to_thread.run_sync(client.put, node, key, chunk, limiter=self._context.upload_limiter)
        except OSError as failure:
            spares = await trio.to_thread.run_sync(client.spare_nodes, set(targets) | set(placed))
            for spare in spares:
                try:
                    await trio.to_thread.run_sync(client.put, spare, key, chunk, limiter=self._context.upload_limiter)
                except OSError:
                    continue
                node = spare
                break
            else:
                raise failure
        placed.append(node)
        await self._context.links.transfer(self.writer, node, chunk.length)

    async def _drain(self) -> None:
        while self._inflight:
            await next(iter(self._inflight.values())).wait()

    # ----- publication -----

    async def commit(self) -> dict[str, Any] | None:
        """Upload what is missing and publish the file; returns the manager's reply: its
        attributes (`attrs`) and, for a new file, its directory's (`parent`); None if there
        was nothing to do."""
        async with self._lock:
            if self.discarded or not self.changed:
                return None
            await self._drain()
            count = -(-self.size // self.chunk_size)
            missing = [index for index in range(count) if index not in self._uploaded or index in self._dirty
                       or self._uploaded[index][2] != min(self.chunk_size, self.size - index * self.chunk_size)]
            for index in missing:
                plan = await self.placement()
                while len(self._inflight) >= PARALLEL_UPLOADS:
                    await next(iter(self._inflight.values())).wait()
                self._start_upload(index, plan)
            await self._drain()
            if self._error is not None:
                error, self._error = self._error, None
                raise error
            for index in [index for index in self._uploaded if index >= count]:
                chunk = self._uploaded.pop(index)
                if chunk[0] not in self._committed_keys:
                    self._superseded.append(chunk)
            chunks = [self._uploaded[index] for index in range(count)]
            # What this commit publishes: a write that arrives while it is on its way (an app
            # writing after its parent closed the same file) leaves the file changed.
            edits = self.edits
            reply, _ = await self._context.call(
                "commit", ino=self.ino, parent=self.parent, name=self.name, size=self.size,
                chunk_size=self.chunk_size, chunks=chunks, xattrs=self.xattrs, **self.attrs)
            self.committed = True
            self.published = max(self.published, edits)
            self._committed_keys = {chunk[0] for chunk in chunks}
            await self._collect(self._superseded)
            self._superseded = []
            return reply

    async def discard(self) -> None:
        """Abandon the write: nothing more is published; uploaded chunks are collected."""
        async with self._lock:
            self.discarded = True
            await self._drain()
            leftovers = [c for c in self._uploaded.values() if c[0] not in self._committed_keys] + self._superseded
            self._uploaded, self._superseded = {}, []
            await self._collect(leftovers)

    async def _collect(self, chunks: list[list[Any]]) -> None:
        if chunks:
            await self._context.call("discard", chunks=chunks)


def _first(failures: BaseExceptionGroup[OSError]) -> OSError:
    """The first error of a group (of groups) of them."""
    error: BaseException = failures
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    assert isinstance(error, OSError)
    return error


def _spool(directory: str, ino: int) -> int:
    """An anonymous local file (unlinked at once, so nothing is left behind by a crash)."""
    path = os.path.join(directory, f"spool-{ino}-{new_write_id()}")
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    os.unlink(path)
    return descriptor
