"""A small /proc file read whole, with two system calls and no file object.

The FUSE clients read a caller's /proc files on every create, open and close (its process,
its node, whether a signal killed it), and the engine reads every process's environment to
find a lost worker's apps and the ranks' children at every tick: Python's `open()` adds a
status, an isatty check, a seek and two buffer objects to each, which doubled the cost of
the read.
"""

from __future__ import annotations

import os

CHUNK_BYTES = 65536


def read_proc(path: str) -> bytes:
    """The content of `path`; OSError as `open()` raises it (a process gone: ENOENT or ESRCH)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(descriptor, CHUNK_BYTES):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)
