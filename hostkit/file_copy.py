"""Copying what is left of one open file to another: in the kernel when it can, else through a buffer.

`shutil.copyfileobj` moves every byte through our memory, 64 KiB at a time by default: two
copies, and on a FUSE mount one read request after another. `os.sendfile` between two files of
this host lets the kernel move the bytes itself (a mount that passes a file through to a local
one then costs what a local copy costs), as `shutil.copyfile` does between two paths. A target
that is no file of its own (one that digests what it is given) still gets 1 MiB at a time.
"""

from __future__ import annotations

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
