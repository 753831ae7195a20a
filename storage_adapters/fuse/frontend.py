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
"""

from __future__ import annotations

import errno
import logging
import os
import signal
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import pyfuse3
import trio

from hostkit.mount_report import FAILURES_XATTR, FailureLog
from storage_adapters.fuse.callers import killed_by_signal, thread_group
from storage_adapters.fuse.handlers import translated

log = logging.getLogger("fuse")
# Four 1 MiB requests ahead of a sequential reader (see `serve_mounted`).
READAHEAD_KB = 4096


class Pending(Protocol):
    """A file being written on this mount (see `edits.Edits` for `changed`)."""

    ino: int
    opens: int  # handles that hold it
    discarded: bool  # it will never be published: its name was removed, or its writer killed

    @property
    def changed(self) -> bool: ...

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


class FrontEnd(pyfuse3.Operations, Generic[P, R]):
    """pyfuse3 file operations common to our stores; see the module docstring."""

    def __init__(self) -> None:
        super().__init__()
        self._pending: dict[int, P] = {}
        # Name of a file created here and not yet published -> its inode.
        self._overlay: dict[Hashable, int] = {}
        # Inodes whose new version is being filled with their current bytes: a second open
        # for writing waits for it rather than starting another (see `_writable`).
        self._opening: dict[int, trio.Lock] = {}
        self._handles: dict[int, Handle[P, R]] = {}
        self._next_handle = 1
        self.failures = FailureLog()  # the store's recent failures (`translated` notes them)

    # ----- what a store supplies -----

    async def _open_reader(self, inode: int, tgid: int) -> tuple[R, pyfuse3.FileInfo]:
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

    # ----- the table of files and handles -----

    def _handle(self, fh: int) -> Handle[P, R]:
        handle = self._handles.get(fh)
        if handle is None:
            raise pyfuse3.FUSEError(errno.EBADF)
        return handle

    def _add_handle(self, handle: Handle[P, R]) -> int:
        fh, self._next_handle = self._next_handle, self._next_handle + 1
        self._handles[fh] = handle
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
    async def open(self, inode: int, flags: int, ctx: pyfuse3.RequestContext) -> pyfuse3.FileInfo:
        tgid = thread_group(ctx.pid)
        if flags & os.O_ACCMODE in (os.O_WRONLY, os.O_RDWR):
            pending = await self._writable(inode, tgid, truncate=bool(flags & os.O_TRUNC))
            return pyfuse3.FileInfo(fh=self._add_handle(Handle(pending, None, tgid, writable=True)))
        pending = self._pending.get(inode)
        if pending is not None:
            return pyfuse3.FileInfo(fh=self._add_handle(Handle(pending, None, tgid, writable=False)))
        reader, info = await self._open_reader(inode, tgid)
        info.fh = self._add_handle(Handle(None, reader, tgid, writable=False))
        return info

    @translated
    async def read(self, fh: int, off: int, size: int) -> bytes:
        handle = self._handle(fh)
        if handle.pending is not None:
            return handle.pending.read(off, size)
        assert handle.reader is not None
        return await self._read(handle.reader, off, size)

    @translated
    async def write(self, fh: int, off: int, buf: bytes) -> int:
        handle = self._handle(fh)
        if not handle.writable or handle.pending is None:
            raise pyfuse3.FUSEError(errno.EBADF)
        return await self._write(handle.pending, off, buf)

    @translated
    async def flush(self, fh: int) -> None:
        handle = self._handle(fh)
        pending = handle.pending
        if pending is None or not handle.writable or pending.discarded:
            return
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
            await self._publish(handle.pending)

    @translated
    async def release(self, fh: int) -> None:
        handle = self._handles.pop(fh, None)
        if handle is None:
            return
        if handle.reader is not None:
            await self._close_reader(handle.reader)
        pending = handle.pending
        if pending is None:
            return
        pending.opens -= 1
        if pending.opens > 0:
            return
        try:
            if pending.discarded:
                await self._abandon(pending)
            elif pending.changed:
                await self._publish(pending)
        except OSError as error:
            log.error("inode %d could not be published at release: %s", pending.ino, error)
        finally:
            self._drop_if_unused(pending)

    async def getxattr(self, inode: int, name: bytes, ctx: pyfuse3.RequestContext) -> bytes:
        """The store's recent failures (`hostkit.mount_report`), on any path; a store with
        attributes of its own answers the others."""
        if name == FAILURES_XATTR.encode():
            return self.failures.report()
        raise pyfuse3.FUSEError(errno.ENODATA)

    async def access(self, inode: int, mode: int, ctx: pyfuse3.RequestContext) -> bool:
        return True  # the kernel checks permissions itself (default_permissions)

    # ----- serving -----

    async def _start(self, nursery: trio.Nursery) -> None:
        """Set up what the handlers need before the first request (a store's caches)."""

    async def serve(self, started: Callable[[], Awaitable[Any]] | None = None) -> None:
        """Serve requests until unmounted, or until SIGTERM/SIGINT; `started` runs beside them."""
        async with trio.open_nursery() as nursery:
            await self._start(nursery)
            nursery.start_soon(_stop_on_signal)
            if started is not None:
                nursery.start_soon(started)
            await pyfuse3.main()
            nursery.cancel_scope.cancel()


async def _stop_on_signal() -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            pyfuse3.terminate()
            return


def serve_mounted(fs: FrontEnd[Any, Any], mountpoint: str, name: str, allow_other: bool = False,
                  readahead_kb: int = READAHEAD_KB) -> None:
    """Mount `fs` at `mountpoint` (a resolved path; file system type `fuse.NAME`), serve it
    until it is unmounted or signalled, and unmount it. The kernel's read-ahead for the mount
    is raised to `readahead_kb`, so large sequential reads reach us as 1 MiB requests rather
    than the default 128 KiB."""
    options = set(pyfuse3.default_options) | {f"fsname={name}", f"subtype={name}"}
    if allow_other:
        options.add("allow_other")
    pyfuse3.init(fs, mountpoint, options)

    async def raise_readahead_once_initialized() -> None:
        # The kernel sets the read-ahead when it gets the INIT reply: raise it after that.
        await trio.sleep(0.3)
        raise_readahead(mountpoint, readahead_kb)

    try:
        trio.run(fs.serve, raise_readahead_once_initialized)
    finally:
        pyfuse3.close(unmount=True)


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
