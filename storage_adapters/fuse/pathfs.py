"""A FUSE file system over a path-based remote store (Chirp, HDFS): POSIX calls turned into
whole-file transfers and streamed reads.

The kernel speaks in inodes, the stores in paths: `Names` numbers every path
the kernel has looked up and follows renames. Reads stream from the store
through a reader owned by the open file, `READ_BLOCK` bytes at a time with
the rest of the block kept for the next sequential read. Writes are spooled
to a local file (`PendingFile`), which makes random writes, rewrites and
truncation cheap and correct even on a write-once store, and are published
when the file is closed: `Remote.upload` makes the new content appear whole
under its name (a hidden temporary name, then a rename), so a reader
anywhere sees the old file or the whole new one and never a part. Open
files, when a file is published, and the discarding of a file whose writer a
signal killed are the shared front end's (`fuse.frontend`).

A store plugs in by implementing `Remote` (blocking calls, run in worker
threads by `trio.to_thread`); the file system's own tables are touched only
by the trio thread.
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import posixpath
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Protocol, TypeVar

import trio

from hostkit.private_names import is_private, is_store_temporary
from storage_adapters.fuse import ops
from storage_adapters.fuse.callers import thread_group
from storage_adapters.fuse.edits import Edits
from storage_adapters.fuse.copies import LocalCopy
from storage_adapters.fuse.frontend import FrontEnd, Handle, local_copies_budget, serve_mounted
from storage_adapters.fuse.handlers import decode_name, translated

log = logging.getLogger("fuse.pathfs")
Result = TypeVar("Result")
READ_BLOCK = 1024 * 1024
RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2


@dataclass(frozen=True, slots=True)
class RemoteStat:
    """What the file system needs to know of a remote entry."""

    mode: int
    size: int
    mtime_ns: int

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)


class RemoteReader(Protocol):
    """An open remote file; used by one thread at a time."""

    def read(self, offset: int, size: int) -> bytes: ...

    def close(self) -> None: ...


class Remote(Protocol):
    """A store's namespace by absolute paths inside the mount (`/` is the mount's root).
    Every call blocks; failures are OSErrors with the errno the caller should see."""

    def stat(self, path: str) -> RemoteStat: ...

    def listdir(self, path: str) -> list[tuple[str, RemoteStat]]: ...

    def mkdir(self, path: str, mode: int) -> None: ...

    def rmdir(self, path: str) -> None: ...

    def unlink(self, path: str) -> None: ...

    def rename(self, source: str, target: str) -> None:
        """Move a file or directory, replacing a file at `target`."""

    def chmod(self, path: str, mode: int) -> None: ...

    def statfs(self) -> tuple[int, int, int, int, int]:
        """(block size, blocks, blocks available, files, files free)."""

    def open_reader(self, path: str) -> RemoteReader: ...

    def download(self, path: str, sink: BinaryIO) -> int:
        """Write the file's whole content to `sink`; returns its size."""

    def upload(self, spool: int, size: int, mode: int, path: str) -> None:
        """Publish the first `size` bytes of descriptor `spool` as the whole new content of
        `path`, atomically: readers see the old content or the new one."""


class BlockReader:
    """A remote reader that fetches whole blocks and serves sequential reads from the last one."""

    def __init__(self, reader: RemoteReader) -> None:
        self._reader = reader
        self._lock = threading.Lock()
        self._offset = 0
        self._block = b""

    def read(self, offset: int, size: int) -> bytes:
        with self._lock:
            start = offset - self._offset
            if 0 <= start and offset + size <= self._offset + len(self._block):
                return self._block[start:start + size]
            self._offset, self._block = offset, self._reader.read(offset, max(size, READ_BLOCK))
            return self._block[:size]

    def close(self) -> None:
        self._reader.close()


class Names:
    """Inode numbers for the paths the kernel knows, with the kernel's lookup counts."""

    def __init__(self) -> None:
        self._path: dict[int, str] = {ops.ROOT_INODE: "/"}
        self._inode: dict[str, int] = {"/": ops.ROOT_INODE}
        self._lookups: dict[int, int] = {}
        self._next = ops.ROOT_INODE + 1

    def path(self, inode: int) -> str:
        try:
            return self._path[inode]
        except KeyError:
            raise ops.FUSEError(errno.ESTALE) from None

    def child(self, parent: int, name: bytes, missing: bool = False) -> str:
        return posixpath.join(self.path(parent), decode_name(name, missing))

    def known(self, path: str) -> int | None:
        """The inode of `path`, if the kernel knows one."""
        return self._inode.get(path)

    def inode(self, path: str, looked_up: bool = True) -> int:
        """The inode of `path` (numbered now if new); `looked_up` counts one kernel reference."""
        inode = self._inode.get(path)
        if inode is None:
            inode = self._next
            self._next += 1
            self._inode[path], self._path[inode] = inode, path
        if looked_up:
            self._lookups[inode] = self._lookups.get(inode, 0) + 1
        return inode

    def forget(self, inode: int, count: int) -> None:
        left = self._lookups.get(inode, 0) - count
        if left > 0:
            self._lookups[inode] = left
            return
        self._lookups.pop(inode, None)
        path = self._path.get(inode)
        if path is not None and inode != ops.ROOT_INODE:
            del self._path[inode]
            if self._inode.get(path) == inode:
                del self._inode[path]

    def moved(self, old: str, new: str) -> None:
        """`old` (and everything under it) is now called `new`; a name it replaced is gone."""
        self.removed(new)
        prefix = old.rstrip("/") + "/"
        for path in [p for p in self._inode if p == old or p.startswith(prefix)]:
            inode = self._inode.pop(path)
            renamed = new + path[len(old):]
            self._inode[renamed], self._path[inode] = inode, renamed

    def removed(self, path: str) -> None:
        """`path` no longer names anything; its inode (if the kernel holds it) stays valid but unnamed."""
        inode = self._inode.pop(path, None)
        if inode is not None:
            self._path[inode] = f"{path}\x00deleted"  # any further request on it fails with ENOENT


@dataclass
class PendingFile(Edits):
    """A file being written on this mount: its bytes in a local spool file until close."""

    ino: int
    path: str
    spool: int  # descriptor of the spool file, already unlinked
    mode: int
    edits: int = 0  # changes so far; those up to `published` are in the store (see Edits)
    published: int = 0
    opens: int = 0
    discarded: bool = False
    # One upload at a time: two flushes close together (a worker's close, then its app's exit)
    # started two uploads, and the older, shorter one could finish last and win.
    uploading: trio.Lock = field(default_factory=trio.Lock)

    def write(self, offset: int, data: bytes) -> int:
        written = os.pwrite(self.spool, data, offset)
        self.changed = True
        return written

    def read(self, offset: int, size: int) -> bytes:
        return os.pread(self.spool, size, offset)

    def truncate(self, size: int) -> None:
        os.ftruncate(self.spool, size)
        self.changed = True


@dataclass(frozen=True, slots=True)
class PublishedTemporary:
    """What the local copy of a temporary holds (see `PathFS._published_version`): the file
    this mount published under that name, with that mode."""

    path: str
    mode: int


class PathFS(FrontEnd[PendingFile, BlockReader]):
    """FUSE operations over the namespace of one `Remote` (the overlay is keyed by path)."""

    def __init__(self, remote: Remote, spool_dir: str, timeout: float = 1.0, threads: int = 16) -> None:
        super().__init__(local_copies_budget(spool_dir))
        self.remote = remote
        self._spool_dir = spool_dir
        self._timeout = timeout
        self._limiter = trio.CapacityLimiter(threads)
        self.names = Names()
        self._listings: dict[int, list[tuple[bytes, ops.EntryAttributes, int]]] = {}
        self._uid, self._gid = os.getuid(), os.getgid()

    # ----- plumbing -----

    async def _call(self, operation: Callable[..., Result], *args: Any) -> Result:
        """Run a blocking remote operation in a worker thread."""
        return await trio.to_thread.run_sync(operation, *args, limiter=self._limiter)

    async def _stat(self, path: str) -> RemoteStat:
        return await self._call(self.remote.stat, path)

    def _attributes(self, inode: int, mode: int, size: int, mtime_ns: int) -> ops.EntryAttributes:
        result = ops.EntryAttributes()
        result.st_ino = inode
        result.generation = 0
        result.st_mode = mode
        result.st_nlink = 2 if stat.S_ISDIR(mode) else 1
        result.st_uid, result.st_gid = self._uid, self._gid
        result.st_size = size
        result.st_blksize = READ_BLOCK
        result.st_blocks = -(-size // 512)
        result.st_atime_ns = result.st_mtime_ns = result.st_ctime_ns = mtime_ns
        # A file still being written may be discarded: the kernel must not cache its name.
        result.attr_timeout = result.entry_timeout = 0.0 if inode in self._pending else self._timeout
        return result

    def _entry(self, inode: int, status: RemoteStat) -> ops.EntryAttributes:
        pending = self._pending.get(inode)
        if pending is not None:
            return self._pending_entry(pending)
        return self._attributes(inode, status.mode, 0 if status.is_dir else status.size, status.mtime_ns)

    def _pending_entry(self, pending: PendingFile) -> ops.EntryAttributes:
        return self._attributes(pending.ino, pending.mode, pending.size, time.time_ns())

    # ----- names and attributes -----

    @translated
    async def lookup(self, parent_inode: int, name: bytes, ctx: ops.RequestContext) -> ops.EntryAttributes:
        path = self.names.child(parent_inode, name, missing=True)
        created = self._overlay.get(path)
        if created is not None:
            self.names.inode(path)
            return self._pending_entry(self._pending[created])
        known = self.names.known(path)
        temporary = self._temporary_entry(known) if known is not None else None
        if temporary is not None:
            self.names.inode(path)  # one more lookup the kernel holds
            return temporary
        try:
            status = await self._stat(path)
        except FileNotFoundError:
            return self._absent(path, self._timeout)
        return self._entry(self.names.inode(path), status)

    async def forget(self, inode_list: list[tuple[int, int]]) -> None:
        for inode, count in inode_list:
            if inode not in self._pending:
                self.names.forget(inode, count)

    @translated
    async def getattr(self, inode: int, ctx: ops.RequestContext | None = None) -> ops.EntryAttributes:
        pending = self._pending.get(inode)
        if pending is not None:
            return self._pending_entry(pending)
        return self._temporary_entry(inode) or self._entry(inode, await self._stat(self.names.path(inode)))

    @translated
    async def setattr(self, inode: int, attr: ops.EntryAttributes, fields: ops.SetattrFields,
                      fh: int | None, ctx: ops.RequestContext) -> ops.EntryAttributes:
        pending = self._pending.get(inode)
        path = self.names.path(inode)
        if fields.update_size:
            if pending is not None:
                pending.truncate(attr.st_size)
            else:
                # A published file changes only as a whole: truncating it publishes a new version.
                await self._truncate_published(inode, thread_group(ctx.pid), attr.st_size)
        if fields.update_mode:
            mode = attr.st_mode & 0o7777
            if pending is not None:
                pending.mode = stat.S_IFMT(pending.mode) | mode
            else:
                await self._call(self.remote.chmod, path, mode)
                copy = self._copies.get(inode)
                published = self._temporary(inode, copy)
                if copy is not None and published is not None:
                    copy.version = PublishedTemporary(published.path, stat.S_IFMT(published.mode) | mode)
        # Owners and times are the store's to keep.
        return await self.getattr(inode, ctx)

    @translated
    async def opendir(self, inode: int, ctx: ops.RequestContext) -> int:
        path = self.names.path(inode)
        listing = await self._call(self.remote.listdir, path)
        entries: list[tuple[bytes, ops.EntryAttributes, int]] = []
        seen = set()
        for name, status in sorted(listing):
            if is_store_temporary(name):
                # A transfer in flight, or what a client killed mid-transfer left: not a file
                # of the store (the adapters do not list them either).
                continue
            child = posixpath.join(path, name)
            seen.add(child)
            entries.append((name.encode(errors="surrogateescape"), self._entry(self.names.inode(child, False), status), child))
        for child, created in sorted(self._overlay.items()):
            if posixpath.dirname(child) == path and child not in seen:
                entries.append((posixpath.basename(child).encode(), self._pending_entry(self._pending[created]), child))
        for _, attrs, _ in entries:
            # The listing is served later, by then perhaps out of date (a file renamed or
            # removed meanwhile): the kernel must not take its names for fresh lookups.
            attrs.entry_timeout = attrs.attr_timeout = 0.0
        fh, self._next_handle = self._next_handle, self._next_handle + 1
        self._listings[fh] = [(name, attrs, index + 1) for index, (name, attrs, _) in enumerate(entries)]
        return fh

    @translated
    async def readdir(self, fh: int, start_id: int, token: ops.ReaddirToken) -> None:
        for name, attrs, next_id in self._listings.get(fh, [])[start_id:]:
            if not ops.readdir_reply(token, name, attrs, next_id):
                return
            # The kernel now holds a reference to this entry, as after a lookup.
            self.names.inode(self.names.path(attrs.st_ino), True)

    async def releasedir(self, fh: int) -> None:
        self._listings.pop(fh, None)

    @translated
    async def statfs(self, ctx: ops.RequestContext) -> ops.StatvfsData:
        block_size, blocks, available, files, files_free = await self._call(self.remote.statfs)
        data = ops.StatvfsData()
        data.f_bsize = data.f_frsize = block_size
        data.f_blocks, data.f_bfree, data.f_bavail = blocks, available, available
        data.f_files, data.f_ffree, data.f_favail = files, files_free, files_free
        data.f_namemax = 255
        return data

    # ----- namespace changes -----

    @translated
    async def mkdir(self, parent_inode: int, name: bytes, mode: int,
                    ctx: ops.RequestContext) -> ops.EntryAttributes:
        path = self.names.child(parent_inode, name)
        await self._call(self.remote.mkdir, path, mode & 0o777)
        status = await self._stat(path)
        return self._entry(self.names.inode(path), status)

    @translated
    async def rmdir(self, parent_inode: int, name: bytes, ctx: ops.RequestContext) -> None:
        path = self.names.child(parent_inode, name, missing=True)
        await self._call(self.remote.rmdir, path)
        self.names.removed(path)

    @translated
    async def unlink(self, parent_inode: int, name: bytes, ctx: ops.RequestContext) -> None:
        path = self.names.child(parent_inode, name, missing=True)
        created = self._overlay.pop(path, None)
        if created is None:
            await self._call(self.remote.unlink, path)
        self._forget_pending(self.names.inode(path, False) if created is None else created)
        self.names.removed(path)

    @translated
    async def rename(self, parent_inode_old: int, name_old: bytes, parent_inode_new: int, name_new: bytes,
                     flags: int, ctx: ops.RequestContext) -> None:
        if flags & RENAME_EXCHANGE:
            raise ops.FUSEError(errno.EINVAL)
        old = self.names.child(parent_inode_old, name_old, missing=True)
        new = self.names.child(parent_inode_new, name_new)
        if flags & RENAME_NOREPLACE and (new in self._overlay or await self._exists(new)):
            raise ops.FUSEError(errno.EEXIST)
        moving = self._overlay.get(old)
        if moving is None:
            await self._call(self.remote.rename, old, new)
        elif await self._is_directory(new):
            raise ops.FUSEError(errno.EISDIR)
        replaced = self._overlay.pop(new, None)
        if replaced is not None and replaced != moving:
            self._forget_pending(replaced)
        self._moved(old, new)

    def _moved(self, old: str, new: str) -> None:
        """Follow a rename in every table: inode names, and where pending files will be published."""
        self.names.moved(old, new)
        prefix = old.rstrip("/") + "/"

        def renamed(path: str) -> str | None:
            return new + path[len(old):] if path == old or path.startswith(prefix) else None

        for path in [p for p in self._overlay if renamed(p) is not None]:
            self._overlay[renamed(path)] = self._overlay.pop(path)  # type: ignore[index]
        for pending in self._pending.values():
            pending.path = renamed(pending.path) or pending.path

    async def _exists(self, path: str) -> bool:
        try:
            await self._stat(path)
        except FileNotFoundError:
            return False
        return True

    async def _is_directory(self, path: str) -> bool:
        try:
            return (await self._stat(path)).is_dir
        except FileNotFoundError:
            return False

    # ----- files -----

    def _new_pending(self, inode: int, path: str, mode: int) -> PendingFile:
        descriptor, spool = tempfile.mkstemp(dir=self._spool_dir, prefix="pending-")
        os.unlink(spool)  # only the descriptor keeps it: nothing to clean after a crash
        return PendingFile(inode, path, descriptor, mode)

    def _name_of(self, pending: PendingFile) -> str:
        return pending.path

    def _published_version(self, pending: PendingFile) -> PublishedTemporary | None:
        """A temporary's (`hostkit.private_names`): its spool stays as a local copy. The store
        names no versions, but a temporary is its writer's alone: an app's output, which its
        worker looks up and reads back for the output's digest right after the app closed it."""
        if not is_private(posixpath.basename(pending.path)):
            return None
        return PublishedTemporary(pending.path, pending.mode)

    def _reader_version(self, reader: BlockReader) -> Hashable:
        """The store names no versions: what a reader reads is its own, never a copy's (unless
        the kernel reads the copy at the time: it is then filled with what the reader reads)."""
        return object()

    def _current_without_asking(self, inode: int, copy: LocalCopy) -> bool:
        """The copy of a temporary that still has the name it was published under (a rename,
        to the output's own name, or a removal, ends it: then the store is asked as ever)."""
        return self._temporary(inode, copy) is not None

    def _temporary(self, inode: int, copy: LocalCopy | None) -> PublishedTemporary | None:
        """What `copy`, of `inode`, holds, if it is the current copy of a temporary."""
        version = copy.version if copy is not None else None
        if isinstance(version, PublishedTemporary) and version.path == self.names.path(inode):
            return version
        return None

    def _temporary_entry(self, inode: int) -> ops.EntryAttributes | None:
        """The attributes of a temporary this mount published, from its local copy (its mode
        as published, its size, its spool's time), or None: the store is asked."""
        copy = self._copies.get(inode)
        published = self._temporary(inode, copy)
        if copy is None or published is None:
            return None
        return self._attributes(inode, published.mode, copy.size, os.fstat(copy.spool).st_mtime_ns)

    @translated
    async def create(self, parent_inode: int, name: bytes, mode: int, flags: int,
                     ctx: ops.RequestContext) -> tuple[ops.FileInfo, ops.EntryAttributes]:
        path = self.names.child(parent_inode, name)
        self._forget_pending(self._overlay.get(path))
        self.names.removed(path)
        inode = self.names.inode(path)
        pending = self._new_pending(inode, path, stat.S_IFREG | (mode & 0o777))
        pending.changed = True  # even an empty file is published at close
        self._pass_through(pending)
        self._pending[inode] = pending
        self._overlay[path] = inode
        return self._opened(Handle(pending, None, thread_group(ctx.pid), True, inode)), self._pending_entry(pending)

    async def _open_reader(self, inode: int, tgid: int) -> tuple[BlockReader, ops.FileInfo]:
        return BlockReader(await self._call(self.remote.open_reader, self.names.path(inode))), ops.FileInfo()

    async def _read(self, reader: BlockReader, offset: int, size: int) -> bytes:
        return await self._call(reader.read, offset, size)

    async def _close_reader(self, reader: BlockReader) -> None:
        await self._call(reader.close)

    async def _write(self, pending: PendingFile, offset: int, data: bytes) -> int:
        return pending.write(offset, data)

    async def _new_version(self, inode: int, tgid: int, truncate: bool) -> PendingFile:
        """Start rewriting a published file: its current bytes are fetched unless truncated."""
        path = self.names.path(inode)
        status = await self._stat(path)
        pending = self._new_pending(inode, path, status.mode)
        if truncate:
            pending.truncate(0)
            return pending
        try:
            with os.fdopen(os.dup(pending.spool), "wb") as sink:
                await self._call(self.remote.download, path, sink)
        except BaseException:
            pending.close()
            raise
        return pending

    async def _publish(self, pending: PendingFile) -> None:
        """Publish the spool as the file's whole new content (the remote makes it atomic)."""
        async with pending.uploading:
            if not pending.changed:
                return
            # A write that arrives during the upload (an app writing after its parent closed the
            # same file) leaves the file changed, for the next flush or the release to publish.
            edits = pending.edits
            path = pending.path
            await self._call(self.remote.upload, pending.spool, pending.size, pending.mode & 0o777, path)
            if pending.path != path:
                # Renamed during the upload (a finished output moved to its mapped name): the
                # bytes went to the old name, and belong under the new one.
                await self._call(self.remote.rename, path, pending.path)
            pending.published = max(pending.published, edits)
            if not pending.changed:
                self._unlist(pending)


def mount_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """The options every PathFS client takes; the caller adds how to reach its store."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--mount", required=True, help="mount point (the same path on every node)")
    parser.add_argument("--root", default="/", help="directory of the store shown as the mount's root")
    parser.add_argument("--spool-dir", default=tempfile.gettempdir(), help="local directory for files being written")
    parser.add_argument("--timeout", type=float, default=1.0, help="seconds the kernel caches names and attributes")
    parser.add_argument("--verbose", action="store_true")
    return parser


def setup_logging(name: str, verbose: bool) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO, stream=sys.stderr,
                        format=f"%(asctime)s {name}-client %(levelname)s %(message)s")


def run_mount(remote: Remote, args: argparse.Namespace, name: str, where: str) -> int:
    """Mount `remote` at `args.mount` (file system type `fuse.NAME`) and serve it until unmounted."""
    os.makedirs(args.spool_dir, mode=0o700, exist_ok=True)
    log.info("mounting %s at %s", where, args.mount)
    serve_mounted(PathFS(remote, args.spool_dir, args.timeout), os.path.realpath(args.mount), name)
    log.info("unmounted %s", args.mount)
    return 0
