"""One FUSE front end for every store we mount (MosaStore, HDFS, Chirp): the table of open
files, open/read/write/flush/fsync/release, the files being written here and not yet
published, a killed writer's file discarded instead of published, and the serve loop.

A store's file system subclasses `FrontEnd` and supplies only what differs: how a file is
opened for reading (`_open_reader`, `_read`), how a new version of a published file starts
(`_new_version`), how a written file is published (`_publish`) or cleaned up when it never
will be (`_abandon`), and what names a file being written (`_name_of`). Names, attributes and
directories stay the store's own.

A file being written is a `Pending` (its bytes in a local spool): visible on this mount only,
under the name `_overlay` maps to it, until it is published. Its writer's close publishes it
(`flush`); a close by a process a signal killed forgets it instead; the last handle's release
publishes what a later write changed, or drops a file that lost its name.

Where the kernel offers passthrough (`fuse.session`), every open of a pending file hands the
kernel its spool, so its reads and writes never reach us: a change then shows in the spool's
own attributes (`edits.Edits.notice_direct_writes`). Once published, the spool stays as a local
copy of that version (`copies`, for stores that name their versions), which the kernel reads
directly while the store still names the same version, or, for a file nobody else can have
changed (a store says which: `_current_without_asking`), without asking the store. The kernel
lets an inode's open files be all read through its page cache or all passed through to one file
(`iomodes`): a file rewritten while this mount reads it through the page cache goes through us
(direct I/O), and one rewritten while it is read from its local copy is written in the copy. An
open for reading while a file is being written here reads the file being written, never the
page cache.
"""

from __future__ import annotations

import errno
import logging
import os
import signal
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import trio

from hostkit.mount_report import FAILURES_XATTR, FailureLog
from hostkit.mounts import detach
from hostkit.private_names import is_private
from storage_adapters.fuse import ops, session
from storage_adapters.fuse.callers import killed_by_signal, thread_group
from storage_adapters.fuse.copies import LocalCopies, LocalCopy
from storage_adapters.fuse.handlers import translated
from storage_adapters.fuse.iomodes import IoModes, Mode

log = logging.getLogger("fuse")
# Four 1 MiB requests ahead of a sequential reader (see `serve_mounted`).
READAHEAD_KB = 4096
LOCAL_COPIES_BYTES = 1 << 30
REFRESH_BYTES = 1 << 20


class Pending(Protocol):
    """A file being written on this mount (see `edits.Edits` for `changed`, `size` and
    `notice_direct_writes`)."""

    ino: int
    opens: int  # handles that hold it
    discarded: bool  # it will never be published: its name was removed, or its writer killed
    spool: int  # descriptor of the local spool
    backing: int | None  # its passthrough id, when the kernel reads and writes it itself

    @property
    def changed(self) -> bool: ...

    @property
    def size(self) -> int: ...

    def notice_direct_writes(self) -> None: ...

    def read(self, offset: int, size: int) -> bytes: ...

    def truncate(self, size: int) -> None: ...

    def close(self) -> None:
        """Drop the local spool (once no handle holds the file)."""


P = TypeVar("P", bound=Pending)
R = TypeVar("R")


@dataclass
class Handle(Generic[P, R]):
    """One open file: a pending file (being written, or read before it is published) or a reader."""

    pending: P | None
    reader: R | None
    tgid: int
    writable: bool
    inode: int
    mode: Mode = Mode.CACHED  # how the kernel reads and writes it (see `iomodes`)
    backing: int | None = None  # the local file it is passed through to


class FrontEnd(ops.Operations, Generic[P, R]):
    """File operations common to our stores; see the module docstring."""

    enable_passthrough = True

    def __init__(self, local_copies_bytes: int = 0) -> None:
        super().__init__()
        self._pending: dict[int, P] = {}
        # Name of a file created here and not yet published -> its inode.
        self._overlay: dict[Hashable, int] = {}
        # Inodes whose new version is being filled with their current bytes: a second open
        # for writing waits for it rather than starting another (see `_writable`).
        self._opening: dict[int, trio.Lock] = {}
        self._handles: dict[int, Handle[P, R]] = {}
        self._modes = IoModes()
        # Inodes written since the page cache last held them, past it (passed through, or with
        # direct I/O): their cached pages hold an older version.
        self._stale_pages: set[int] = set()
        self._next_handle = 1
        self.passthrough = session.Passthrough(-1)  # the session's, once serving
        self._copies = LocalCopies(local_copies_bytes, lambda backing: self.passthrough.unregister(backing),
                                   lambda inode, copy: self._modes.passed_through(inode, copy.backing))
        self.failures = FailureLog()  # the store's recent failures (`translated` notes them)

    # ----- names -----

    @staticmethod
    def _absent(name: str, timeout: float) -> ops.EntryAttributes:
        """What a lookup that found no `name` answers. Another node may create a name at any
        moment, so its absence is an error, asked again at every look; but a temporary
        (`hostkit.private_names.is_private`: a store's or an app output's, a random name that
        only its writer uses, created, written and renamed by it through this mount) is
        answered as an absence the kernel keeps for `timeout`, so that its writer's next looks
        (a stat, then the open that creates it) do not ask the store again. The kernel
        replaces the absence when this mount creates it."""
        if is_private(name):
            return ops.EntryAttributes(st_ino=0, entry_timeout=timeout)
        raise ops.FUSEError(errno.ENOENT)

    # ----- what a store supplies -----

    async def _open_reader(self, inode: int, tgid: int) -> tuple[R, ops.FileInfo]:
        """A reader of the published file, and how the kernel may cache it (`fh` is set here)."""
        raise NotImplementedError

    async def _read(self, reader: R, offset: int, size: int) -> bytes:
        raise NotImplementedError

    async def _close_reader(self, reader: R) -> None:
        """Release what a reader holds (nothing, unless a store says otherwise)."""

    async def _write(self, pending: P, offset: int, data: bytes) -> int:
        raise NotImplementedError

    async def _new_version(self, inode: int, tgid: int, truncate: bool) -> P:
        """A new version of the published file `inode`, holding its current bytes unless `truncate`."""
        raise NotImplementedError

    async def _publish(self, pending: P) -> None:
        """Make the file's current content its published content, whole (nothing if unchanged)."""
        raise NotImplementedError

    async def _abandon(self, pending: P) -> None:
        """Clean up after a file that will never be published (its last close, or its writer's
        death); by default there is nothing beyond the spool."""

    def _name_of(self, pending: P) -> Hashable:
        """The key `_overlay` lists the file under."""
        raise NotImplementedError

    def _published_version(self, pending: P) -> Hashable | None:
        """The store's name for the version a published file's spool holds, if it has one: the
        spool is then kept as a local copy (see `copies`)."""
        return None

    def _reader_version(self, reader: R) -> Hashable | None:
        """The store's name for the version a reader reads."""
        return None

    def _current_without_asking(self, inode: int, copy: LocalCopy) -> bool:
        """Is a local copy known to hold the file's current version without asking the store?
        (Never, unless a store knows that nobody else can have changed the file.)"""
        return False

    # ----- the table of files and handles -----

    def _handle(self, fh: int) -> Handle[P, R]:
        handle = self._handles.get(fh)
        if handle is None:
            raise ops.FUSEError(errno.EBADF)
        return handle

    def _pass_through(self, pending: P) -> None:
        """Hand a new pending file's spool to the kernel, unless the kernel reads the inode
        through its page cache. Where it has files of the inode passed through to the local
        copy of the version before, the kernel allows no other file: the new version is
        written in the copy's file (its readers see it change, as on a local disk)."""
        copy = self._copies.get(pending.ino)
        if copy is not None and self._modes.passed_through(pending.ino, copy.backing):
            self._copies.take(pending.ino)
            _transplant(pending.spool, copy.spool)
            pending.close()
            pending.spool, pending.backing = copy.spool, copy.backing
        else:
            self._copies.drop(pending.ino)  # a new version: the copy of the old one is no use now
            if self._modes.can_pass_through(pending.ino, None):
                pending.backing = self.passthrough.register(pending.spool)
        if self.passthrough.enabled:  # passed through or direct (`_opened`): past the page cache
            self._stale_pages.add(pending.ino)
        pending.notice_direct_writes()  # the spool as it starts

    def _opened(self, handle: Handle[P, R]) -> ops.FileInfo:
        """The answer to an open of a pending file. One not passed through, on a mount that
        passes others through, bypasses the page cache: without the writeback cache, pages
        the kernel caches while a writer appends may hold less than the size it reports."""
        pending = handle.pending
        assert pending is not None
        if pending.backing is not None:
            handle.mode, handle.backing = Mode.PASSTHROUGH, pending.backing
        elif self.passthrough.enabled:
            handle.mode = Mode.DIRECT
        return ops.FileInfo(fh=self._add_handle(handle), backing_id=pending.backing,
                            direct_io=handle.mode is Mode.DIRECT)

    def _add_handle(self, handle: Handle[P, R]) -> int:
        fh, self._next_handle = self._next_handle, self._next_handle + 1
        self._handles[fh] = handle
        self._modes.opened(handle.inode, handle.mode, handle.backing)
        if handle.pending is not None:
            handle.pending.opens += 1
        return fh

    def _unlist(self, pending: P) -> None:
        """Take the file off the overlay, if its name still denotes it there."""
        key = self._name_of(pending)
        if self._overlay.get(key) == pending.ino:
            del self._overlay[key]

    def _forget_pending(self, ino: int | None) -> None:
        """A file being written here lost its name or its writer: it will never be published."""
        pending = self._pending.get(ino) if ino is not None else None
        if pending is not None:
            pending.discarded = True
            self._unlist(pending)

    def _drop_if_unused(self, pending: P) -> None:
        """Forget a file no handle holds. One that an open() took up again while a publication
        was awaited stays, spool and all, for that handle (closing the spool under it would
        hand its descriptor number to the next file or socket opened here)."""
        if pending.opens == 0:
            if pending.backing is not None:
                version = self._published_version(pending)
                if version is not None and not pending.discarded and not pending.changed and pending.size:
                    # Published whole: the kernel may read this version from the spool.
                    self._copies.keep(pending.ino, LocalCopy(version, pending.spool, pending.backing, pending.size))
                    pending.spool = -1
                else:
                    self.passthrough.unregister(pending.backing)
                pending.backing = None
            pending.close()
            if self._pending.get(pending.ino) is pending:
                del self._pending[pending.ino]
            self._unlist(pending)

    async def _writable(self, inode: int, tgid: int, truncate: bool) -> P:
        """The file being written here (emptied if `truncate`), or a new version of the
        published file. A new version is registered only once it holds the current bytes: a
        handler that found it half filled could read it, or release it and close its spool
        while it is still being filled (the descriptor's number then went to a socket)."""
        lock = self._opening.setdefault(inode, trio.Lock())
        try:
            async with lock:
                pending = self._pending.get(inode)
                if pending is None:
                    pending = await self._new_version(inode, tgid, truncate)
                    self._pass_through(pending)
                    self._pending[inode] = pending
                elif truncate:
                    pending.truncate(0)
                return pending
        finally:
            if not lock.locked():
                self._opening.pop(inode, None)

    async def _truncate_published(self, inode: int, tgid: int, size: int) -> None:
        """Truncate a file nobody here is writing: publish a new version of it at once."""
        rewrite = await self._writable(inode, tgid, truncate=size == 0)
        rewrite.truncate(size)
        try:
            await self._publish(rewrite)
        finally:
            self._drop_if_unused(rewrite)

    # ----- file operations -----

    @translated
    async def open(self, inode: int, flags: int, ctx: ops.RequestContext) -> ops.FileInfo:
        tgid = thread_group(ctx.pid)
        if flags & os.O_ACCMODE in (os.O_WRONLY, os.O_RDWR):
            pending = await self._writable(inode, tgid, truncate=bool(flags & os.O_TRUNC))
            return self._opened(Handle(pending, None, tgid, True, inode))
        reader = None
        pending = self._pending.get(inode)
        if pending is None:
            copy = self._copies.get(inode)
            if (copy is not None and self._current_without_asking(inode, copy)
                    and self._modes.can_pass_through(inode, copy.backing)):
                handle = Handle(None, None, tgid, False, inode, Mode.PASSTHROUGH, copy.backing)
                return ops.FileInfo(fh=self._add_handle(handle), backing_id=copy.backing)
            reader, info = await self._open_reader(inode, tgid)
            pending = self._pending.get(inode)
        if pending is not None:
            # Read from the file being written here, whose size the kernel now knows, even when
            # its writer started while the store was asked: a file read through the page cache
            # beside one that grows the file past the cache (passed through, or direct I/O)
            # can read zeros where the kernel's size ran ahead of its cached pages.
            opened = self._opened(Handle(pending, None, tgid, False, inode))
            if reader is not None:
                await self._close_reader(reader)
            return opened
        handle: Handle[P, R] = Handle(None, reader, tgid, False, inode)
        copy = self._copies.get(inode)
        version = self._reader_version(reader)
        if copy is not None and copy.version != version and self._modes.passed_through(inode, copy.backing):
            # A newer version (another node's), while files of the inode are passed through to
            # the copy of an older one: the kernel allows no other file, so the copy takes it.
            await self._refresh(copy, reader)
            copy.version = version
        if copy is not None and copy.version == version and self._modes.can_pass_through(inode, copy.backing):
            handle.mode, handle.backing = Mode.PASSTHROUGH, copy.backing
            info = ops.FileInfo(backing_id=copy.backing)
        elif inode in self._stale_pages:
            self._stale_pages.discard(inode)
            info.keep_cache = False
        info.fh = self._add_handle(handle)
        return info

    async def _refresh(self, copy: LocalCopy, reader: R) -> None:
        """Write the version `reader` reads into a local copy."""
        offset = 0
        while data := await self._read(reader, offset, REFRESH_BYTES):
            os.pwrite(copy.spool, data, offset)
            offset += len(data)
        os.ftruncate(copy.spool, offset)
        self._copies.resized(copy, offset)

    @translated
    async def read(self, fh: int, off: int, size: int) -> bytes:
        handle = self._handle(fh)
        pending = handle.pending or self._pending.get(handle.inode)
        if pending is not None:
            # A reader of the published version, while this mount writes a newer one: the
            # kernel's size of the file is the newer one's, so are the bytes.
            return pending.read(off, size)
        assert handle.reader is not None
        return await self._read(handle.reader, off, size)

    @translated
    async def write(self, fh: int, off: int, buf: bytes) -> int:
        handle = self._handle(fh)
        if not handle.writable or handle.pending is None:
            raise ops.FUSEError(errno.EBADF)
        return await self._write(handle.pending, off, buf)

    @translated
    async def flush(self, fh: int) -> None:
        handle = self._handle(fh)
        pending = handle.pending
        if pending is None or not handle.writable or pending.discarded:
            return
        pending.notice_direct_writes()
        if killed_by_signal(handle.tgid):
            log.warning("the writer (process %d) of inode %d was killed: its file is discarded",
                        handle.tgid, pending.ino)
            self._forget_pending(pending.ino)
            await self._abandon(pending)
            return
        await self._publish(pending)

    @translated
    async def fsync(self, fh: int, datasync: bool) -> None:
        handle = self._handle(fh)
        if handle.pending is not None and handle.writable and not handle.pending.discarded:
            handle.pending.notice_direct_writes()
            await self._publish(handle.pending)

    @translated
    async def release(self, fh: int) -> None:
        handle = self._handles.pop(fh, None)
        if handle is None:
            return
        self._modes.closed(handle.inode, handle.mode)
        if handle.reader is not None:
            await self._close_reader(handle.reader)
        pending = handle.pending
        if pending is None:
            return
        pending.opens -= 1
        if pending.opens > 0:
            return
        pending.notice_direct_writes()
        try:
            if pending.discarded:
                await self._abandon(pending)
            elif pending.changed:
                await self._publish(pending)
        except OSError as error:
            log.error("inode %d could not be published at release: %s", pending.ino, error)
        finally:
            self._drop_if_unused(pending)

    async def getxattr(self, inode: int, name: bytes, ctx: ops.RequestContext) -> bytes:
        """The store's recent failures (`hostkit.mount_report`), on any path; a store with
        attributes of its own answers the others."""
        if name == FAILURES_XATTR.encode():
            return self.failures.report()
        raise ops.FUSEError(errno.ENODATA)

    async def access(self, inode: int, mode: int, ctx: ops.RequestContext) -> bool:
        return True  # the kernel checks permissions itself (default_permissions)

    # ----- serving -----

    async def _start(self, nursery: trio.Nursery) -> None:
        """Set up what the handlers need before the first request (a store's caches)."""

    async def serve(self, requests: session.Session) -> None:
        """Serve `requests` until unmounted, or until SIGTERM/SIGINT."""
        self.passthrough = requests.passthrough
        async with trio.open_nursery() as nursery:
            await self._start(nursery)
            nursery.start_soon(_stop_on_signal, nursery.cancel_scope)
            await requests.run()
            nursery.cancel_scope.cancel()


async def _stop_on_signal(scope: trio.CancelScope) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            scope.cancel()
            return


def serve_mounted(fs: FrontEnd[Any, Any], mountpoint: str, name: str, allow_other: bool = False,
                  readahead_kb: int = READAHEAD_KB) -> None:
    """Mount `fs` at `mountpoint` (a resolved path; file system type `fuse.NAME`), serve it
    until it is unmounted or signalled, and unmount it. The kernel's read-ahead for the mount
    is raised to `readahead_kb` once it has taken our INIT reply, so large sequential reads
    reach us as 1 MiB requests rather than the default 128 KiB."""
    device = session.mount(mountpoint, name, allow_other)
    try:
        trio.run(fs.serve, session.Session(fs, device, lambda: raise_readahead(mountpoint, readahead_kb)))
    finally:
        detach(mountpoint)  # lazily, as libfuse did: files still open keep their last answers
        os.close(device)


def _transplant(source: int, target: int) -> None:
    """Make the file `target` hold the bytes of `source` (both local; the kernel copies)."""
    size = os.fstat(source).st_size
    offset = 0
    while offset < size:
        copied = os.copy_file_range(source, target, size - offset, offset, offset)
        if copied == 0:
            break
        offset += copied
    os.ftruncate(target, size)


def local_copies_budget(spool_dir: str) -> int:
    """Bytes of local copies (`copies`) a mount keeps beside its spools: 1 GiB, or a quarter
    of the free space where the spools are if that is less."""
    status = os.statvfs(spool_dir)
    return min(LOCAL_COPIES_BYTES, status.f_bavail * status.f_frsize // 4)


def mount_device(mountpoint: str) -> str | None:
    """`major:minor` of the file system mounted at `mountpoint` (a resolved path), from
    /proc/self/mountinfo: a stat() of our own mount would wait for the request loop,
    which is not running yet."""
    device = None
    with open("/proc/self/mountinfo") as table:
        for line in table:
            fields = line.split()
            if fields[4] == mountpoint:
                device = fields[2]
    return device


def raise_readahead(mountpoint: str, size_kb: int) -> None:
    """Set the mount's read-ahead window (root only; ignored when not allowed)."""
    path = f"/sys/class/bdi/{mount_device(mountpoint)}/read_ahead_kb"
    try:
        with open(path, "w") as knob:
            knob.write(str(size_kb))
    except OSError as error:
        log.info("kept the default read-ahead (%s: %s)", path, error.strerror)
