"""The Chirp side of our FUSE mount: `ChirpRemote` serves `fuse.pathfs.PathFS` from a Chirp
volume (one chirp_server, or a multi-server volume: `volume.py`).

Names and listings are the volume's `stat` and `listdir`; an open file reads with `open`
+ `pread` on a connection of its own to the server holding it; a closed file is published
whole by the volume (data, then a rename into place under its name).
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from storage_adapters.chirp.protocol import Stat
from storage_adapters.chirp.volume import Reader, SingleVolume
from storage_adapters.fuse.pathfs import RemoteStat


def visible_mode(mode: int) -> int:
    """chirp_server keeps only the owner's permission bits; show them to group and others
    too (without write), as a shared directory would."""
    owner = mode & 0o700
    return stat.S_IFMT(mode) | owner | (owner & 0o500) >> 3 | (owner & 0o500) >> 6


def remote_stat(status: Stat) -> RemoteStat:
    return RemoteStat(visible_mode(status.mode), status.size, status.mtime * 10**9)


class ChirpRemote:
    """Directory `root` of a Chirp volume as a `Remote` for `PathFS`."""

    def __init__(self, volume: SingleVolume, root: str = "/") -> None:
        self.volume = volume
        self._root = root.rstrip("/")

    def _full(self, path: str) -> str:
        return self._root + path if path != "/" else (self._root or "/")

    def stat(self, path: str) -> RemoteStat:
        return remote_stat(self.volume.stat(self._full(path)))

    def listdir(self, path: str) -> list[tuple[str, RemoteStat]]:
        return [(name, remote_stat(status)) for name, status in self.volume.listdir(self._full(path))]

    def mkdir(self, path: str, mode: int) -> None:
        self.volume.mkdir(self._full(path), mode)

    def rmdir(self, path: str) -> None:
        self.volume.rmdir(self._full(path))

    def unlink(self, path: str) -> None:
        self.volume.unlink(self._full(path))

    def rename(self, source: str, target: str) -> None:
        self.volume.rename(self._full(source), self._full(target))

    def chmod(self, path: str, mode: int) -> None:
        self.volume.chmod(self._full(path), mode)

    def statfs(self) -> tuple[int, int, int, int, int]:
        return self.volume.statfs(self._full("/"))

    def open_reader(self, path: str) -> Reader:
        return self.volume.open_reader(self._full(path))

    def download(self, path: str, sink: BinaryIO) -> int:
        return self.volume.download(self._full(path), sink)

    def upload(self, spool: int, size: int, mode: int, path: str) -> None:
        with os.fdopen(os.dup(spool), "rb") as source:
            self.volume.publish(source, size, mode, self._full(path))
