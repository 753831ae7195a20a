"""The FUSE kernel protocol, as far as our mounts speak it (include/uapi/linux/fuse.h, 7.41):
opcodes, INIT flags, open flags, the structures of requests and replies, and the ioctls that
register a file for passthrough. Requests are read from /dev/fuse whole; every number is in
the machine's byte order."""

from __future__ import annotations

import struct

PROTOCOL_MAJOR = 7
PROTOCOL_MINOR = 41  # 7.40 brought passthrough; nothing we parse changed since
ROOT_ID = 1

# Opcodes.
LOOKUP, FORGET, GETATTR, SETATTR, READLINK, SYMLINK = 1, 2, 3, 4, 5, 6
MKNOD, MKDIR, UNLINK, RMDIR, RENAME, LINK = 8, 9, 10, 11, 12, 13
OPEN, READ, WRITE, STATFS, RELEASE, FSYNC = 14, 15, 16, 17, 18, 20
SETXATTR, GETXATTR, LISTXATTR, REMOVEXATTR, FLUSH, INIT = 21, 22, 23, 24, 25, 26
OPENDIR, READDIR, RELEASEDIR, FSYNCDIR, ACCESS, CREATE = 27, 28, 29, 30, 34, 35
INTERRUPT, DESTROY, BATCH_FORGET, READDIRPLUS, RENAME2 = 36, 38, 42, 44, 45

# INIT flags (those from bit 32 on travel in `flags2`, and need INIT_EXT).
ASYNC_READ = 1 << 0
ATOMIC_O_TRUNC = 1 << 3
BIG_WRITES = 1 << 5
AUTO_INVAL_DATA = 1 << 12
DO_READDIRPLUS = 1 << 13
ASYNC_DIO = 1 << 15
WRITEBACK_CACHE = 1 << 16
PARALLEL_DIROPS = 1 << 18
HANDLE_KILLPRIV_V2 = 1 << 28
MAX_PAGES = 1 << 22
INIT_EXT = 1 << 30
DIRECT_IO_ALLOW_MMAP = 1 << 36
PASSTHROUGH = 1 << 37
FILESYSTEM_MAX_STACK_DEPTH = 2  # a spool may itself sit on an overlay (a container's /tmp)

# Open reply flags.
FOPEN_DIRECT_IO = 1 << 0
FOPEN_KEEP_CACHE = 1 << 1
FOPEN_NONSEEKABLE = 1 << 2
FOPEN_PASSTHROUGH = 1 << 7

# SETATTR `valid` bits.
FATTR_MODE, FATTR_UID, FATTR_GID, FATTR_SIZE = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FATTR_ATIME, FATTR_MTIME, FATTR_FH = 1 << 4, 1 << 5, 1 << 6
FATTR_ATIME_NOW, FATTR_MTIME_NOW, FATTR_CTIME = 1 << 7, 1 << 8, 1 << 10

# ioctls on /dev/fuse: _IOW(229, 1, struct fuse_backing_map), _IOW(229, 2, uint32_t).
BACKING_OPEN = (1 << 30) | (16 << 16) | (229 << 8) | 1
BACKING_CLOSE = (1 << 30) | (4 << 16) | (229 << 8) | 2

IN_HEADER = struct.Struct("=IIQQIIIHH")  # len, opcode, unique, nodeid, uid, gid, pid, extlen, pad
OUT_HEADER = struct.Struct("=IiQ")  # len, error, unique
INIT_IN = struct.Struct("=IIIII")  # major, minor, max_readahead, flags, flags2 (then unused)
# major, minor, max_readahead, flags, max_background, congestion_threshold, max_write,
# time_gran, max_pages, map_alignment, flags2, max_stack_depth, request_timeout, unused[11]
INIT_OUT = struct.Struct("=IIIIHHIIHHIIH22x")
# ino, size, blocks, atime, mtime, ctime, atimensec, mtimensec, ctimensec, mode, nlink,
# uid, gid, rdev, blksize, flags
ATTR = struct.Struct("=QQQQQQIIIIIIIIII")
ENTRY_OUT = struct.Struct("=QQQQII")  # nodeid, generation, entry_valid, attr_valid, their nsecs
ATTR_OUT = struct.Struct("=QII")  # attr_valid, attr_valid_nsec, dummy
OPEN_OUT = struct.Struct("=QIi")  # fh, open_flags, backing_id
WRITE_OUT = struct.Struct("=II")  # size, padding
GETXATTR_OUT = struct.Struct("=II")  # size, padding
# blocks, bfree, bavail, files, ffree, bsize, namelen, frsize, padding, spare[6]
STATFS_OUT = struct.Struct("=QQQQQIIII24x")
DIRENT = struct.Struct("=QQII")  # ino, off, namelen, type
FORGET_IN = struct.Struct("=Q")
BATCH_FORGET_IN = struct.Struct("=II")
FORGET_ONE = struct.Struct("=QQ")
GETATTR_IN = struct.Struct("=IIQ")  # getattr_flags, dummy, fh
# valid, padding, fh, size, lock_owner, atime, mtime, ctime, atimensec, mtimensec, ctimensec,
# mode, unused, uid, gid, unused
SETATTR_IN = struct.Struct("=IIQQQQQQIIIIIIII")
MKDIR_IN = struct.Struct("=II")  # mode, umask
RENAME_IN = struct.Struct("=Q")  # newdir
RENAME2_IN = struct.Struct("=QII")  # newdir, flags, padding
OPEN_IN = struct.Struct("=II")  # flags, open_flags
READ_IN = struct.Struct("=QQIIQII")  # fh, offset, size, read_flags, lock_owner, flags, padding
WRITE_IN = READ_IN  # fh, offset, size, write_flags, lock_owner, flags, padding
RELEASE_IN = struct.Struct("=QIIQ")  # fh, flags, release_flags, lock_owner
FSYNC_IN = struct.Struct("=QII")  # fh, fsync_flags, padding
FLUSH_IN = struct.Struct("=QIIQ")  # fh, unused, padding, lock_owner
SETXATTR_IN = struct.Struct("=II")  # size, flags (SETXATTR_EXT not negotiated)
GETXATTR_IN = struct.Struct("=II")  # size, padding
ACCESS_IN = struct.Struct("=II")  # mask, padding
CREATE_IN = struct.Struct("=IIII")  # flags, mode, umask, open_flags
BACKING_MAP = struct.Struct("=iIQ")  # fd, flags, padding
