"""What a FUSE file system of ours implements and answers with, for `fuse.session` to serve:
the `Operations` it overrides (coroutines; the defaults answer ENOSYS), the attributes, open
files, contexts and errors they take and return, and `readdir_reply` for listings.

The names and signatures follow pyfuse3's, whose API our stores were first written against.
"""

from __future__ import annotations

import errno
import stat
from dataclasses import dataclass, field

from storage_adapters.fuse import kernel

ROOT_INODE = kernel.ROOT_ID


class FUSEError(Exception):
    """An error number the kernel returns to the caller."""

    def __init__(self, errno_: int) -> None:
        super().__init__(errno_)
        self.errno = errno_

    def __str__(self) -> str:
        return errno.errorcode.get(self.errno, str(self.errno))


@dataclass(slots=True)
class EntryAttributes:
    """A name's inode and attributes, and how long the kernel may keep each (seconds)."""

    st_ino: int = 0
    generation: int = 0
    entry_timeout: float = 0.0
    attr_timeout: float = 0.0
    st_mode: int = 0
    st_nlink: int = 1
    st_uid: int = 0
    st_gid: int = 0
    st_rdev: int = 0
    st_size: int = 0
    st_blksize: int = 4096
    st_blocks: int = 0
    st_atime_ns: int = 0
    st_mtime_ns: int = 0
    st_ctime_ns: int = 0


@dataclass(slots=True)
class FileInfo:
    """An open file's handle and how the kernel treats it. `backing_id` (a file the session
    registered with `Passthrough.register`) makes the kernel read and write that local file
    itself, without a request to us."""

    fh: int = 0
    direct_io: bool = False
    keep_cache: bool = True  # pages cached from an earlier open stay (see `frontend` for when not)
    nonseekable: bool = False
    backing_id: int | None = None


@dataclass(slots=True)
class RequestContext:
    """Who made a request."""

    uid: int = 0
    gid: int = 0
    pid: int = 0
    umask: int = 0


@dataclass(slots=True)
class SetattrFields:
    """Which attributes a setattr request changes."""

    update_atime: bool = False
    update_mtime: bool = False
    update_ctime: bool = False
    update_mode: bool = False
    update_uid: bool = False
    update_gid: bool = False
    update_size: bool = False


@dataclass(slots=True)
class StatvfsData:
    f_bsize: int = 0
    f_frsize: int = 0
    f_blocks: int = 0
    f_bfree: int = 0
    f_bavail: int = 0
    f_files: int = 0
    f_ffree: int = 0
    f_favail: int = 0
    f_namemax: int = 255


@dataclass(slots=True)
class ReaddirToken:
    """The reply to one READDIRPLUS request being filled: at most `size` bytes."""

    size: int
    parts: list[bytes] = field(default_factory=list)
    used: int = 0


def readdir_reply(token: ReaddirToken, name: bytes, attr: EntryAttributes, next_id: int) -> bool:
    """Add an entry to a listing; False (and nothing added) when the reply is full. The kernel
    counts each entry added as a lookup of its inode."""
    record = direntplus(name, attr, next_id)
    if token.used + len(record) > token.size:
        return False
    token.parts.append(record)
    token.used += len(record)
    return True


def _split_ns(ns: int) -> tuple[int, int]:
    seconds, nanoseconds = divmod(ns, 1_000_000_000)
    return max(seconds, 0), nanoseconds if seconds >= 0 else 0


def _split_timeout(seconds: float) -> tuple[int, int]:
    whole = int(seconds)
    return whole, int((seconds - whole) * 1e9)


def without_set_id(mode: int) -> int:
    """`mode` without the set-user-ID and set-group-ID bits, if it is a regular file's. Our mounts
    keep none (a mount is `nosuid` anyway): the kernel then leaves their removal at every write
    to us (`kernel.HANDLE_KILLPRIV_V2`), and has nothing to remove."""
    return mode & ~(stat.S_ISUID | stat.S_ISGID) if stat.S_ISREG(mode) else mode


def attr_bytes(attr: EntryAttributes) -> bytes:
    """`struct fuse_attr` of `attr`."""
    atime, atime_ns = _split_ns(attr.st_atime_ns)
    mtime, mtime_ns = _split_ns(attr.st_mtime_ns)
    ctime, ctime_ns = _split_ns(attr.st_ctime_ns)
    return kernel.ATTR.pack(attr.st_ino, attr.st_size, attr.st_blocks, atime, mtime, ctime, atime_ns, mtime_ns,
                            ctime_ns, without_set_id(attr.st_mode), attr.st_nlink, attr.st_uid, attr.st_gid,
                            attr.st_rdev, attr.st_blksize, 0)


def attr_out(attr: EntryAttributes) -> bytes:
    """The reply to GETATTR and SETATTR."""
    seconds, nanoseconds = _split_timeout(attr.attr_timeout)
    return kernel.ATTR_OUT.pack(seconds, nanoseconds, 0) + attr_bytes(attr)


def entry_out(attr: EntryAttributes) -> bytes:
    """`struct fuse_entry_out`: the reply to LOOKUP, MKDIR, and CREATE's first half."""
    entry_s, entry_ns = _split_timeout(attr.entry_timeout)
    attr_s, attr_ns = _split_timeout(attr.attr_timeout)
    return kernel.ENTRY_OUT.pack(attr.st_ino, attr.generation, entry_s, attr_s, entry_ns, attr_ns) + attr_bytes(attr)


def direntplus(name: bytes, attr: EntryAttributes, next_id: int) -> bytes:
    """One READDIRPLUS entry (`struct fuse_direntplus`), padded to 8 bytes."""
    record = entry_out(attr) + kernel.DIRENT.pack(attr.st_ino, next_id, len(name), (attr.st_mode >> 12) & 0o17) + name
    return record + b"\0" * (-len(record) % 8)


def _unsupported() -> FUSEError:
    return FUSEError(errno.ENOSYS)


class Operations:
    """The requests a file system answers; each default answers ENOSYS. `enable_passthrough`
    asks the kernel for passthrough (`fuse.session`); `enable_writeback_cache` asks it to gather
    writes, where passthrough is not asked for or not available (the kernel allows one)."""

    enable_passthrough = False
    enable_writeback_cache = False

    async def lookup(self, parent_inode: int, name: bytes, ctx: RequestContext) -> EntryAttributes:
        raise _unsupported()

    async def forget(self, inode_list: list[tuple[int, int]]) -> None:
        pass

    async def getattr(self, inode: int, ctx: RequestContext | None = None) -> EntryAttributes:
        raise _unsupported()

    async def setattr(self, inode: int, attr: EntryAttributes, fields: SetattrFields, fh: int | None,
                      ctx: RequestContext) -> EntryAttributes:
        raise _unsupported()

    async def mkdir(self, parent_inode: int, name: bytes, mode: int, ctx: RequestContext) -> EntryAttributes:
        raise _unsupported()

    async def unlink(self, parent_inode: int, name: bytes, ctx: RequestContext) -> None:
        raise _unsupported()

    async def rmdir(self, parent_inode: int, name: bytes, ctx: RequestContext) -> None:
        raise _unsupported()

    async def rename(self, parent_inode_old: int, name_old: bytes, parent_inode_new: int, name_new: bytes,
                     flags: int, ctx: RequestContext) -> None:
        raise _unsupported()

    async def open(self, inode: int, flags: int, ctx: RequestContext) -> FileInfo:
        raise _unsupported()

    async def create(self, parent_inode: int, name: bytes, mode: int, flags: int,
                     ctx: RequestContext) -> tuple[FileInfo, EntryAttributes]:
        raise _unsupported()

    async def read(self, fh: int, off: int, size: int) -> bytes:
        raise _unsupported()

    async def write(self, fh: int, off: int, buf: bytes) -> int:
        raise _unsupported()

    async def flush(self, fh: int) -> None:
        raise _unsupported()

    async def fsync(self, fh: int, datasync: bool) -> None:
        raise _unsupported()

    async def release(self, fh: int) -> None:
        pass

    async def opendir(self, inode: int, ctx: RequestContext) -> int:
        raise _unsupported()

    async def readdir(self, fh: int, start_id: int, token: ReaddirToken) -> None:
        raise _unsupported()

    async def releasedir(self, fh: int) -> None:
        pass

    async def statfs(self, ctx: RequestContext) -> StatvfsData:
        raise _unsupported()

    async def getxattr(self, inode: int, name: bytes, ctx: RequestContext) -> bytes:
        raise _unsupported()

    async def setxattr(self, inode: int, name: bytes, value: bytes, ctx: RequestContext) -> None:
        raise _unsupported()

    async def listxattr(self, inode: int, ctx: RequestContext) -> list[bytes]:
        raise _unsupported()

    async def removexattr(self, inode: int, name: bytes, ctx: RequestContext) -> None:
        raise _unsupported()

    async def access(self, inode: int, mode: int, ctx: RequestContext) -> bool:
        raise _unsupported()
