"""The HDFS side of our FUSE mount: `HdfsRemote` serves `fuse.pathfs.PathFS` from a NameNode.

HDFS files are write-once: a file is created, written sequentially and
closed, and never changed in the middle afterwards. PathFS spools writes on
local disk and publishes a closed file whole (`Hdfs.upload`: a temporary
name, then a rename), so apps can still write at random offsets, rewrite a
file or truncate it: each of those publishes a new version, and no reader
ever sees a half-written one.
"""

from __future__ import annotations

import os
from typing import BinaryIO

from storage_adapters.fuse.pathfs import RemoteStat
from storage_adapters.hdfs.client import Hdfs, mode_of, translated


def remote_stat(status: object) -> RemoteStat:
    return RemoteStat(mode_of(status), status.length, status.modification_time * 10**6)  # type: ignore[attr-defined]


class HdfsReader:
    """A file open for reading: positioned reads on one hdfs-native reader."""

    def __init__(self, hdfs: Hdfs, path: str) -> None:
        self._path = path
        self._reader = hdfs.open_reader(path)

    def read(self, offset: int, size: int) -> bytes:
        length = max(0, min(size, self._reader.size - offset))
        return translated(lambda: bytes(self._reader.read_range(offset, length)), self._path) if length else b""

    def close(self) -> None:
        self._reader.close()


class HdfsRemote:
    """Directory `root` of an HDFS namespace as a `Remote` for `PathFS`."""

    def __init__(self, hdfs: Hdfs, root: str = "/") -> None:
        self.hdfs = hdfs
        self._root = root.rstrip("/")

    def _full(self, path: str) -> str:
        return self._root + path if path != "/" else (self._root or "/")

    def stat(self, path: str) -> RemoteStat:
        return remote_stat(self.hdfs.info(self._full(path)))

    def listdir(self, path: str) -> list[tuple[str, RemoteStat]]:
        return [(os.path.basename(status.path.rstrip("/")), remote_stat(status))
                for status in self.hdfs.listdir(self._full(path))]

    def mkdir(self, path: str, mode: int) -> None:
        self.hdfs.mkdir(self._full(path), mode)

    def rmdir(self, path: str) -> None:
        self.hdfs.delete(self._full(path), directory=True)

    def unlink(self, path: str) -> None:
        full = self._full(path)
        if self.hdfs.info(full).isdir:
            raise IsADirectoryError(21, "is a directory", full)
        self.hdfs.delete(full, directory=False)

    def rename(self, source: str, target: str) -> None:
        self.hdfs.rename(self._full(source), self._full(target))

    def chmod(self, path: str, mode: int) -> None:
        self.hdfs.chmod(self._full(path), mode)

    def statfs(self) -> tuple[int, int, int, int, int]:
        """What is used under the root, against a nominal 4 TiB (the client cannot ask the
        NameNode for the cluster's capacity)."""
        summary = self.hdfs.content_summary(self._full("/"))
        blocks = 2**30
        used = min(summary.length // 4096, blocks - 1)
        files = summary.file_count + summary.directory_count
        return 4096, blocks, blocks - used, files + 2**20, 2**20

    def open_reader(self, path: str) -> HdfsReader:
        return HdfsReader(self.hdfs, self._full(path))

    def download(self, path: str, sink: BinaryIO) -> int:
        return self.hdfs.download(self._full(path), sink)

    def upload(self, spool: int, size: int, mode: int, path: str) -> None:
        with os.fdopen(os.dup(spool), "rb") as source:
            source.seek(0)
            self.hdfs.upload(_Limited(source, size), self._full(path), mode)


class _Limited:
    """The first `size` bytes of a file, which can be read again from the start (`seek(0)`)."""

    def __init__(self, source: BinaryIO, size: int) -> None:
        self._source = source
        self._size = size
        self._remaining = size

    def read(self, size: int) -> bytes:
        block = self._source.read(min(size, self._remaining))
        self._remaining -= len(block)
        return block

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._size - self._remaining

    def seek(self, offset: int) -> None:
        self._source.seek(offset)
        self._remaining = self._size - offset
