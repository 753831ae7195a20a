"""Attribute conversion for the MosaStore FUSE handlers."""

from __future__ import annotations

import stat
from typing import Any

from storage_adapters.fuse import ops



def entry(attrs: dict[str, Any], timeout: float, block_size: int) -> ops.EntryAttributes:
    """FUSE attributes from the manager's (or a pending file's) attribute dict."""
    result = ops.EntryAttributes()
    result.st_ino = attrs["ino"]
    result.generation = 0
    result.st_mode = attrs["mode"]
    result.st_nlink = attrs.get("nlink", 1)
    result.st_uid = attrs["uid"]
    result.st_gid = attrs["gid"]
    result.st_size = attrs["size"]
    result.st_blksize = block_size
    result.st_blocks = -(-attrs["size"] // 512)
    result.st_atime_ns = result.st_mtime_ns = attrs["mtime_ns"]
    result.st_ctime_ns = attrs.get("ctime_ns", attrs["mtime_ns"])
    result.attr_timeout = timeout
    # A file's name may be given to a new file by another host's client at any time (an
    # output published by rename): the kernel asks the manager for file names every
    # time, so no host opens the file a name used to denote. Directories stay cached.
    result.entry_timeout = timeout if stat.S_ISDIR(attrs["mode"]) else 0.0
    return result
