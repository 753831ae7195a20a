"""Serving a FUSE file system from /dev/fuse ourselves: the mount, the INIT handshake, a loop
on trio that runs each request as a task of the file system's `ops.Operations`, the replies,
and passthrough.

Passthrough (Linux 6.9 and later, for root) lets the kernel read and write a local file the
file system opened (a spool of a file being written) directly, at local-disk speed, with no
request reaching us: an open answered with a `backing_id` from `Passthrough.register`. Where
it is not available, the data goes through the requests as before, and the writeback cache
may gather small writes (the kernel allows one or the other).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import logging
import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from hostkit.mounts import fusermount
from storage_adapters.fuse import kernel, ops

log = logging.getLogger("fuse")
MAX_PAGES = 256  # 1 MiB per READ and WRITE request
MAX_WRITE = MAX_PAGES * 4096
BUFFER = MAX_WRITE + 8192  # a WRITE request with its headers
MS_NOSUID, MS_NODEV = 2, 4
CAPABILITIES = b"security.capability\0"
_NAME_AT = kernel.IN_HEADER.size + kernel.GETXATTR_IN.size
CAPABILITY_NAME = slice(_NAME_AT, _NAME_AT + len(CAPABILITIES))
Reply = bytes | memoryview | list[bytes | memoryview] | None
_libc = ctypes.CDLL(None, use_errno=True)


class Passthrough:
    """Registers local files for the kernel to read and write directly (see the module
    docstring); `enabled` once the kernel agreed to it at INIT."""

    def __init__(self, device: int) -> None:
        self._device = device
        self.enabled = False

    def register(self, descriptor: int) -> int | None:
        """A backing id for the open file `descriptor`, or None (not enabled, or refused)."""
        if not self.enabled:
            return None
        try:
            return fcntl.ioctl(self._device, kernel.BACKING_OPEN,
                               bytearray(kernel.BACKING_MAP.pack(descriptor, 0, 0)))
        except OSError as error:
            log.info("passthrough refused for a spool (%s): its data goes through the mount", error.strerror)
            return None

    def unregister(self, backing_id: int) -> None:
        """Forget a backing id (the kernel keeps the file while open files still use it)."""
        try:
            fcntl.ioctl(self._device, kernel.BACKING_CLOSE, bytearray(backing_id.to_bytes(4, sys.byteorder)))
        except OSError as error:
            log.warning("could not release backing id %d: %s", backing_id, error.strerror)


def mount(mountpoint: str, name: str, allow_other: bool) -> int:
    """Mount a FUSE file system of type `fuse.NAME` at `mountpoint`; returns its /dev/fuse
    descriptor. Root mounts it itself, others through fusermount3."""
    options = ["default_permissions"] + (["allow_other"] if allow_other else [])
    if os.geteuid() == 0:
        device = os.open("/dev/fuse", os.O_RDWR | os.O_CLOEXEC)
        data = ",".join([f"fd={device}", "rootmode=40000", f"user_id={os.getuid()}", f"group_id={os.getgid()}",
                         *options])
        if _libc.mount(name.encode(), mountpoint.encode(), f"fuse.{name}".encode(), MS_NOSUID | MS_NODEV,
                       data.encode()) != 0:
            number = ctypes.get_errno()
            os.close(device)
            raise OSError(number, f"cannot mount {mountpoint}: {os.strerror(number)}")
    else:
        device = _mount_with_fusermount(mountpoint, name, options)
    os.set_blocking(device, False)
    return device


def _mount_with_fusermount(mountpoint: str, name: str, options: list[str]) -> int:
    """fusermount3 mounts for a user and hands the /dev/fuse descriptor back over a socket."""
    tool = fusermount()
    if tool is None:
        raise OSError(errno.ENOENT, "fusermount3 is not installed: apt-get install fuse3")
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with ours, theirs:
        result = subprocess.run([tool, "-o", ",".join([f"fsname={name}", f"subtype={name}", *options]), "--",
                                 mountpoint], env={**os.environ, "_FUSE_COMMFD": str(theirs.fileno())},
                                pass_fds=(theirs.fileno(),), capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise OSError(errno.EIO, f"cannot mount {mountpoint}: {result.stderr.strip()}")
        _, descriptors, _, _ = socket.recv_fds(ours, 1, 1)
    if not descriptors:
        raise OSError(errno.EIO, f"cannot mount {mountpoint}: fusermount3 sent no descriptor")
    return descriptors[0]


def _name(body: memoryview) -> bytes:
    raw = bytes(body)
    end = raw.find(0)
    return raw if end < 0 else raw[:end]


def _two_names(body: memoryview) -> tuple[bytes, bytes]:
    first, second = bytes(body).split(b"\0")[:2]
    return first, second


class Session:
    """The request loop of one mounted file system (see the module docstring)."""

    def __init__(self, fs: ops.Operations, device: int, on_init: Callable[[], None] | None = None) -> None:
        self.fs = fs
        self._device = device
        self._on_init = on_init
        self.passthrough = Passthrough(device)
        self._no_capabilities = errno.ENOSYS if type(fs).getxattr is ops.Operations.getxattr else errno.ENODATA
        self._buffers: list[bytearray] = []  # for requests, used again and again
        Handler = Callable[[int, ops.RequestContext, memoryview], Awaitable[Reply]]
        self._handlers: dict[int, Handler] = {
            kernel.LOOKUP: self._lookup, kernel.GETATTR: self._getattr, kernel.SETATTR: self._setattr,
            kernel.MKDIR: self._mkdir, kernel.UNLINK: self._unlink, kernel.RMDIR: self._rmdir,
            kernel.RENAME: self._rename, kernel.RENAME2: self._rename2, kernel.OPEN: self._open,
            kernel.READ: self._read, kernel.WRITE: self._write, kernel.STATFS: self._statfs,
            kernel.RELEASE: self._release, kernel.FSYNC: self._fsync, kernel.SETXATTR: self._setxattr,
            kernel.GETXATTR: self._getxattr, kernel.LISTXATTR: self._listxattr,
            kernel.REMOVEXATTR: self._removexattr, kernel.FLUSH: self._flush, kernel.OPENDIR: self._opendir,
            kernel.READDIRPLUS: self._readdirplus, kernel.RELEASEDIR: self._releasedir,
            kernel.ACCESS: self._access, kernel.CREATE: self._create,
        }

    async def run(self) -> None:
        """Serve requests until the file system is unmounted (or this task is cancelled)."""
        async with trio.open_nursery() as nursery:
            while True:
                # Requests are read into buffers used again and again: a fresh 1 MiB object
                # per WRITE cost more than the rest of the request.
                buffer = self._buffers.pop() if self._buffers else bytearray(BUFFER)
                try:
                    size = os.readv(self._device, [buffer])
                except OSError as error:
                    self._buffers.append(buffer)
                    if error.errno == errno.EAGAIN:
                        await trio.lowlevel.wait_readable(self._device)
                        continue
                    if error.errno == errno.ENODEV:  # unmounted
                        break
                    if error.errno in (errno.EINTR, errno.ENOENT):  # a request withdrawn meanwhile
                        continue
                    raise
                self._dispatch(buffer, size, nursery.start_soon)
                await trio.lowlevel.checkpoint()  # its task may start before the next read
            nursery.cancel_scope.cancel()

    def _dispatch(self, buffer: bytearray, size: int, start: Callable[..., Any]) -> None:
        """Answer one request, or `start` its task."""
        _, opcode, unique, node, uid, gid, pid, _, _ = kernel.IN_HEADER.unpack_from(buffer)
        if opcode == kernel.GETXATTR and buffer[CAPABILITY_NAME] == CAPABILITIES:
            # The kernel asks before every write (to drop a file's capabilities), passed
            # through or not; our stores keep none, and the answer costs no task. A file
            # system without attributes says so once, and the kernel asks no more.
            self._buffers.append(buffer)
            self._error(unique, self._no_capabilities)
            return
        held: bytearray | None = buffer
        if opcode == kernel.WRITE:  # its data is used where it lies, and the buffer then given back
            body = memoryview(buffer)[kernel.IN_HEADER.size:size]
        else:
            body = memoryview(bytes(buffer[kernel.IN_HEADER.size:size]))
            self._buffers.append(buffer)
            held = None
        handler = self._handlers.get(opcode)
        if handler is not None:
            start(self._answer, handler, unique, node, ops.RequestContext(uid, gid, pid), body, held)
        elif opcode == kernel.FORGET:
            start(self.fs.forget, [(node, kernel.FORGET_IN.unpack_from(body)[0])])
        elif opcode == kernel.BATCH_FORGET:
            count, _ = kernel.BATCH_FORGET_IN.unpack_from(body)
            start(self.fs.forget, [
                kernel.FORGET_ONE.unpack_from(body, kernel.BATCH_FORGET_IN.size + index * kernel.FORGET_ONE.size)
                for index in range(count)])
        elif opcode == kernel.INIT:
            self._reply(unique, self._init(body))
            if self._on_init is not None:  # after the kernel took the reply (it sets the read-ahead then)
                self._on_init()
        elif opcode == kernel.INTERRUPT:
            pass  # requests run to their end; the kernel gives up on its own
        elif opcode == kernel.DESTROY:
            self._reply(unique, None)
        else:
            self._error(unique, errno.ENOSYS)

    async def _answer(self, handler: Callable[[int, ops.RequestContext, memoryview], Awaitable[Reply]],
                      unique: int, node: int, ctx: ops.RequestContext, body: memoryview,
                      buffer: bytearray | None) -> None:
        try:
            reply = await handler(node, ctx, body)
        except ops.FUSEError as error:
            self._error(unique, error.errno)
        except OSError as error:
            self._error(unique, error.errno or errno.EIO)
        except Exception:  # noqa: BLE001 - the file system must keep serving
            log.exception("internal error in FUSE request %s", handler.__name__)
            self._error(unique, errno.EIO)
        else:
            self._reply(unique, reply)
        finally:
            if buffer is not None:
                self._buffers.append(buffer)

    def _reply(self, unique: int, reply: Reply) -> None:
        parts: list[Any] = [] if reply is None else reply if isinstance(reply, list) else [reply]
        length = kernel.OUT_HEADER.size + sum(len(part) for part in parts)
        self._send([kernel.OUT_HEADER.pack(length, 0, unique), *parts])

    def _error(self, unique: int, number: int) -> None:
        self._send([kernel.OUT_HEADER.pack(kernel.OUT_HEADER.size, -number, unique)])

    def _send(self, parts: list[Any]) -> None:
        try:
            os.writev(self._device, parts)
        except OSError as error:
            if error.errno not in (errno.ENOENT, errno.ENODEV):  # withdrawn, or unmounted meanwhile
                # A reply the kernel refused is our bug: its caller gets an error, we go on.
                log.error("the kernel refused a reply of %d bytes: %s (please report)",
                          sum(len(part) for part in parts), error.strerror)

    # ----- the handshake -----

    def _init(self, body: memoryview) -> bytes:
        major, minor, max_readahead, flags, flags2 = kernel.INIT_IN.unpack_from(body)
        offered = flags | (flags2 << 32 if flags & kernel.INIT_EXT else 0)
        # HANDLE_KILLPRIV_V2: files keep no set-ID bits (`ops.without_set_id`) and no
        # capabilities (only `user.` attributes are kept), so the kernel need not ask for a
        # file's capabilities before each of its writes; it asks once per fresh attributes.
        want = (kernel.ASYNC_READ | kernel.ATOMIC_O_TRUNC | kernel.BIG_WRITES | kernel.AUTO_INVAL_DATA
                | kernel.DO_READDIRPLUS | kernel.ASYNC_DIO | kernel.PARALLEL_DIROPS | kernel.MAX_PAGES
                | kernel.INIT_EXT | kernel.DIRECT_IO_ALLOW_MMAP | kernel.HANDLE_KILLPRIV_V2)
        if self.fs.enable_passthrough and offered & kernel.PASSTHROUGH and os.geteuid() == 0:
            want |= kernel.PASSTHROUGH
        elif self.fs.enable_writeback_cache:
            want |= kernel.WRITEBACK_CACHE
        want &= offered
        self.passthrough.enabled = bool(want & kernel.PASSTHROUGH)
        log.info("FUSE %d.%d; passthrough %s", major, minor, "on" if self.passthrough.enabled else _why_not(
            self.fs.enable_passthrough, bool(offered & kernel.PASSTHROUGH)))
        return kernel.INIT_OUT.pack(
            kernel.PROTOCOL_MAJOR, min(minor, kernel.PROTOCOL_MINOR), max_readahead, want & 0xFFFFFFFF, 0, 0,
            MAX_WRITE, 1, MAX_PAGES, 0, want >> 32,
            kernel.FILESYSTEM_MAX_STACK_DEPTH if self.passthrough.enabled else 0, 0)

    # ----- requests -----

    async def _lookup(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        return ops.entry_out(await self.fs.lookup(node, _name(body), ctx))

    async def _getattr(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        return ops.attr_out(await self.fs.getattr(node, ctx))

    async def _setattr(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        (valid, _, fh, size, _, atime, mtime, ctime, atime_ns, mtime_ns, ctime_ns, mode, _, uid, gid,
         _) = kernel.SETATTR_IN.unpack_from(body)
        wall = time.time_ns()
        attr = ops.EntryAttributes(
            st_mode=ops.without_set_id(mode), st_uid=uid, st_gid=gid, st_size=size,
            st_atime_ns=wall if valid & kernel.FATTR_ATIME_NOW else atime * 1_000_000_000 + atime_ns,
            st_mtime_ns=wall if valid & kernel.FATTR_MTIME_NOW else mtime * 1_000_000_000 + mtime_ns,
            st_ctime_ns=ctime * 1_000_000_000 + ctime_ns)
        fields = ops.SetattrFields(
            update_atime=bool(valid & (kernel.FATTR_ATIME | kernel.FATTR_ATIME_NOW)),
            update_mtime=bool(valid & (kernel.FATTR_MTIME | kernel.FATTR_MTIME_NOW)),
            update_ctime=bool(valid & kernel.FATTR_CTIME), update_mode=bool(valid & kernel.FATTR_MODE),
            update_uid=bool(valid & kernel.FATTR_UID), update_gid=bool(valid & kernel.FATTR_GID),
            update_size=bool(valid & kernel.FATTR_SIZE))
        handle = fh if valid & kernel.FATTR_FH else None
        return ops.attr_out(await self.fs.setattr(node, attr, fields, handle, ctx))

    async def _mkdir(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        mode, ctx.umask = kernel.MKDIR_IN.unpack_from(body)
        return ops.entry_out(await self.fs.mkdir(node, _name(body[kernel.MKDIR_IN.size:]), mode, ctx))

    async def _unlink(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        await self.fs.unlink(node, _name(body), ctx)
        return None

    async def _rmdir(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        await self.fs.rmdir(node, _name(body), ctx)
        return None

    async def _rename(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        (new_parent,) = kernel.RENAME_IN.unpack_from(body)
        old, new = _two_names(body[kernel.RENAME_IN.size:])
        await self.fs.rename(node, old, new_parent, new, 0, ctx)
        return None

    async def _rename2(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        new_parent, flags, _ = kernel.RENAME2_IN.unpack_from(body)
        old, new = _two_names(body[kernel.RENAME2_IN.size:])
        await self.fs.rename(node, old, new_parent, new, flags, ctx)
        return None

    def _open_out(self, info: ops.FileInfo) -> bytes:
        flags = ((kernel.FOPEN_DIRECT_IO if info.direct_io else 0) | (kernel.FOPEN_KEEP_CACHE if info.keep_cache else 0)
                 | (kernel.FOPEN_NONSEEKABLE if info.nonseekable else 0))
        backing = 0
        if info.backing_id is not None:
            # The kernel fails an open passed through that also asks for (or against) its page cache.
            flags = (flags & ~(kernel.FOPEN_DIRECT_IO | kernel.FOPEN_KEEP_CACHE)) | kernel.FOPEN_PASSTHROUGH
            backing = info.backing_id
        return kernel.OPEN_OUT.pack(info.fh, flags, backing)

    async def _open(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        flags, _ = kernel.OPEN_IN.unpack_from(body)
        return self._open_out(await self.fs.open(node, flags, ctx))

    async def _create(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        flags, mode, ctx.umask, _ = kernel.CREATE_IN.unpack_from(body)
        mode = ops.without_set_id(stat.S_IFREG | mode)
        info, attr = await self.fs.create(node, _name(body[kernel.CREATE_IN.size:]), mode, flags, ctx)
        return [ops.entry_out(attr), self._open_out(info)]

    async def _read(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        fh, offset, size, _, _, _, _ = kernel.READ_IN.unpack_from(body)
        return await self.fs.read(fh, offset, size)

    async def _write(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        fh, offset, size, _, _, _, _ = kernel.WRITE_IN.unpack_from(body)
        data = body[kernel.WRITE_IN.size:kernel.WRITE_IN.size + size]
        return kernel.WRITE_OUT.pack(await self.fs.write(fh, offset, data), 0)  # type: ignore[arg-type]

    async def _statfs(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        data = await self.fs.statfs(ctx)
        return kernel.STATFS_OUT.pack(data.f_blocks, data.f_bfree, data.f_bavail, data.f_files, data.f_ffree,
                                      data.f_bsize, data.f_namemax, data.f_frsize, 0)

    async def _release(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        await self.fs.release(kernel.RELEASE_IN.unpack_from(body)[0])
        return None

    async def _fsync(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        fh, flags, _ = kernel.FSYNC_IN.unpack_from(body)
        await self.fs.fsync(fh, bool(flags & 1))
        return None

    async def _flush(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        await self.fs.flush(kernel.FLUSH_IN.unpack_from(body)[0])
        return None

    async def _setxattr(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        size, _ = kernel.SETXATTR_IN.unpack_from(body)
        rest = bytes(body[kernel.SETXATTR_IN.size:])
        end = rest.index(0)
        await self.fs.setxattr(node, rest[:end], rest[end + 1:end + 1 + size], ctx)
        return None

    async def _getxattr(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        size, _ = kernel.GETXATTR_IN.unpack_from(body)
        value = await self.fs.getxattr(node, _name(body[kernel.GETXATTR_IN.size:]), ctx)
        return _sized(value, size)

    async def _listxattr(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        size, _ = kernel.GETXATTR_IN.unpack_from(body)
        names = await self.fs.listxattr(node, ctx)
        return _sized(b"".join(name + b"\0" for name in names), size)

    async def _removexattr(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        await self.fs.removexattr(node, _name(body), ctx)
        return None

    async def _opendir(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        return kernel.OPEN_OUT.pack(await self.fs.opendir(node, ctx), 0, 0)

    async def _readdirplus(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        fh, offset, size, _, _, _, _ = kernel.READ_IN.unpack_from(body)
        token = ops.ReaddirToken(size)
        await self.fs.readdir(fh, offset, token)
        return token.parts

    async def _releasedir(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        await self.fs.releasedir(kernel.RELEASE_IN.unpack_from(body)[0])
        return None

    async def _access(self, node: int, ctx: ops.RequestContext, body: memoryview) -> Reply:
        mask, _ = kernel.ACCESS_IN.unpack_from(body)
        if not await self.fs.access(node, mask, ctx):
            raise ops.FUSEError(errno.EACCES)
        return None


def _why_not(asked: bool, offered: bool) -> str:
    """Why a mount goes without passthrough, for its log."""
    if not asked:
        return "off"
    if not offered:
        return "off (this kernel has none: Linux 6.9 or later has it)"
    return "off (it needs root; the data goes through the mount)"


def _sized(value: bytes, size: int) -> bytes:
    """An attribute's value (or list of names) as GETXATTR/LISTXATTR answer: its length when
    asked for size 0, ERANGE when it does not fit."""
    if size == 0:
        return kernel.GETXATTR_OUT.pack(len(value), 0)
    if len(value) > size:
        raise ops.FUSEError(errno.ERANGE)
    return value
