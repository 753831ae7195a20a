"""The Chirp side of our FUSE mount: `ChirpRemote` serves `fuse.pathfs.PathFS` from a chirp_server.

Names and listings are Chirp's `stat` and `getlongdir`; an open file reads
with `open` + `pread` on a connection of its own (reopened once if the
server dropped it for idling); a closed file is published with `putfile` to
a hidden temporary name and a `rename` over the final name.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from storage_adapters.chirp.client import ChirpClient
from storage_adapters.chirp.protocol import Connection, Stat
from storage_adapters.fuse.pathfs import RemoteStat
from storage_adapters.paths import temp_sibling


def visible_mode(mode: int) -> int:
    """chirp_server keeps only the owner's permission bits; show them to group and others
    too (without write), as a shared directory would."""
    owner = mode & 0o700
    return stat.S_IFMT(mode) | owner | (owner & 0o500) >> 3 | (owner & 0o500) >> 6


def remote_stat(status: Stat) -> RemoteStat:
    return RemoteStat(visible_mode(status.mode), status.size, status.mtime * 10**9)


class ChirpReader:
    """A file open for reading on its own connection."""

    def __init__(self, client: ChirpClient, path: str) -> None:
        self._client = client
        self._path = path
        self._connection: Connection | None = None
        self._descriptor = -1
        self._open()

    def _open(self) -> None:
        self._connection = self._client.connect()
        self._descriptor, _ = self._connection.open(self._path, "r")

    def read(self, offset: int, size: int) -> bytes:
        try:
            assert self._connection is not None
            return self._connection.pread(self._descriptor, size, offset)
        except ConnectionError:
            # The server drops connections idle for a minute: open the file again once.
            self.close()
            self._open()
            assert self._connection is not None
            return self._connection.pread(self._descriptor, size, offset)

    def close(self) -> None:
        if self._connection is not None:
            connection, self._connection = self._connection, None
            connection.close()  # the server closes the descriptor with the connection


class ChirpRemote:
    """Directory `root` of a chirp_server as a `Remote` for `PathFS`."""

    def __init__(self, client: ChirpClient, root: str = "/") -> None:
        self.client = client
        self._root = root.rstrip("/")

    def _full(self, path: str) -> str:
        return self._root + path if path != "/" else (self._root or "/")

    def stat(self, path: str) -> RemoteStat:
        full = self._full(path)
        return remote_stat(self.client.call(lambda c: c.stat(full)))

    def listdir(self, path: str) -> list[tuple[str, RemoteStat]]:
        full = self._full(path)
        return [(name, remote_stat(status)) for name, status in self.client.call(lambda c: c.getlongdir(full))]

    def mkdir(self, path: str, mode: int) -> None:
        full = self._full(path)
        self.client.call(lambda c: c.mkdir(full, mode))

    def rmdir(self, path: str) -> None:
        full = self._full(path)
        self.client.call(lambda c: c.rmdir(full))

    def unlink(self, path: str) -> None:
        full = self._full(path)
        self.client.call(lambda c: c.unlink(full))

    def rename(self, source: str, target: str) -> None:
        old, new = self._full(source), self._full(target)
        self.client.call(lambda c: c.rename(old, new))

    def chmod(self, path: str, mode: int) -> None:
        full = self._full(path)
        self.client.call(lambda c: c.chmod(full, mode))

    def statfs(self) -> tuple[int, int, int, int, int]:
        full = self._full("/")
        return self.client.call(lambda c: c.statfs(full))

    def open_reader(self, path: str) -> ChirpReader:
        return ChirpReader(self.client, self._full(path))

    def download(self, path: str, sink: BinaryIO) -> int:
        full = self._full(path)
        return self.client.call(lambda c: c.getfile(full, sink))

    def upload(self, spool: int, size: int, mode: int, path: str) -> None:
        target = self._full(path)
        temporary = temp_sibling(target)

        def publish(connection: Connection) -> None:
            with os.fdopen(os.dup(spool), "rb") as source:
                connection.putfile(temporary, source, size, mode)
            try:
                connection.rename(temporary, target)
            except OSError:
                connection.unlink(temporary)
                raise

        self.client.call(publish)

