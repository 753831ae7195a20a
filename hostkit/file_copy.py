"""Copying between open files: what is left of one appended to another, or a range of one into
another, in the kernel when it can, else through a buffer.

`shutil.copyfileobj` moves every byte through our memory, 64 KiB at a time by default: two
copies, and on a FUSE mount one read request after another. `os.sendfile` between two files of
this host lets the kernel move the bytes itself (a mount that passes a file through to a local
one then costs what a local copy costs), as `shutil.copyfile` does between two paths. A target
that is no file of its own (one that digests what it is given) still gets 1 MiB at a time.
"""

from __future__ import annotations

import errno
import io
import os
import shutil
from typing import IO

BUFFER = 1 << 20
SENDFILE_MOST = 1 << 30  # per call; sendfile moves at most about 2 GiB at once


def copy_contents(source: IO[bytes], target: IO[bytes]) -> None:
    """Append the rest of `source` to `target`; `source` is not read through its own buffer yet
    (the kernel reads on from its descriptor's position)."""
    try:
        descriptors = source.fileno(), target.fileno()
    except (AttributeError, io.UnsupportedOperation):
        shutil.copyfileobj(source, target, BUFFER)
        return
    target.flush()
    moved = 0
    try:
        while sent := os.sendfile(descriptors[1], descriptors[0], None, SENDFILE_MOST):
            moved += sent
    except OSError:
        if moved:  # what it already moved cannot be taken back: the failure is the caller's
            raise
        shutil.copyfileobj(source, target, BUFFER)  # a file the kernel cannot send from (or to)


def copy_range(source: int, offset: int, target: int, length: int) -> int:
    """Write up to `length` bytes of descriptor `source` from `offset` at the start of descriptor
    `target` (both regular files of this host) without moving them through our memory:
    `copy_file_range` (which may share the blocks, on a file system that can), else `sendfile`
    between two file systems. Returns the bytes copied: fewer where `source` ends sooner, as a
    read would."""
    copied = 0
    kernel_copy = True
    while copied < length:
        try:
            if kernel_copy:
                count = os.copy_file_range(source, target, length - copied, offset + copied, copied)
            else:
                count = os.sendfile(target, source, offset + copied, length - copied)
        except OSError as error:
            # Two file systems copy_file_range will not copy between (Linux 5.19 and later).
            if kernel_copy and error.errno in (errno.EXDEV, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOSYS):
                kernel_copy = False
                os.lseek(target, copied, os.SEEK_SET)
                continue
            raise
        if count == 0:
            break
        copied += count
    return copied
