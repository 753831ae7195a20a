"""A Chirp volume: one chirp_server (`SingleVolume`), or several as one tree (`MultiVolume`).

Both the FUSE mount (`fs.py`) and staging (`adapter.py`) go through a volume, by
absolute paths of the tree.

A multi-server volume is laid out as cctools' Parrot `/multi` volumes are (a directory
server holding the tree, data servers holding the files, unstriped). The cctools source
is not on this machine, so the stub format is our own:

- the directory server (the first listed) holds the tree under `TREE` (`/volume/root`):
  directories are directories, and each file is a stub, a small text file of three lines
  `chirp-multi 1`, `HOST:PORT` of the data server and the absolute path of the data there,
  then `size N` (the data's length, fixed since files are published whole);
- each data server holds data files under `DATA` (`/volume/data`), named by 32 random hex
  digits; the server of a new file is chosen uniformly at random among all the volume's
  servers (the directory server too), by a `random.Random` that a seed makes repeatable.

Publishing a file writes its data first, then its stub under a hidden temporary name,
renamed over the final name: the stub is the publish step, so no reader sees a file
before its data is complete. (A file whose own name is a temporary, a store's or an app
output's, which only its writer uses, is written in place: `paths.written_as`.) Deleting
removes the stub, then the data (kept, unnamed, if its server is down); renaming moves the
stub only; a stub replaced by a publish or a rename has its old data removed after. A
listing lists the directory server and reads each file's stub for its size.
"""

from __future__ import annotations

import dataclasses
import errno
import posixpath
import random
import secrets
import tempfile
import threading
from collections.abc import Callable, Iterable
from typing import BinaryIO, Protocol

from storage_adapters.chirp.client import ChirpClient
from storage_adapters.chirp.protocol import Connection, Stat
from storage_adapters.paths import written_as

TREE = "/volume/root"
DATA = "/volume/data"
STUB_MAGIC = "chirp-multi 1"
MAX_STUB = 4096


def make_dirs(connection: Connection, path: str) -> None:
    """Create directory `path` and its missing parents (an existing directory is fine)."""
    current = ""
    for part in path.strip("/").split("/"):
        current += "/" + part
        try:
            connection.mkdir(current)
        except FileExistsError:
            if not connection.stat(current).is_dir:
                raise NotADirectoryError(errno.ENOTDIR, "a parent is a file", current) from None


class Reader(Protocol):
    def read(self, offset: int, size: int) -> bytes: ...

    def close(self) -> None: ...


class FileReader:
    """A file open for reading on a connection of its own (reopened once if the server
    dropped it for idling)."""

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
            self.close()
            self._open()
            assert self._connection is not None
            return self._connection.pread(self._descriptor, size, offset)

    def close(self) -> None:
        if self._connection is not None:
            connection, self._connection = self._connection, None
            connection.close()  # the server closes the descriptor with the connection


def _put(connection: Connection, source: BinaryIO, size: int, mode: int, temporary: str, target: str) -> None:
    connection.putfile(temporary, source, size, mode)
    if temporary == target:  # a temporary itself (`paths.written_as`)
        return
    try:
        connection.rename(temporary, target)
    except OSError:
        connection.unlink(temporary)
        raise


class SingleVolume:
    """The tree of one chirp_server, files and all."""

    def __init__(self, client: ChirpClient) -> None:
        self.directory = client

    def describe(self) -> str:
        return f"server {self.directory.address}"

    def stat(self, path: str) -> Stat:
        return self.directory.call(lambda c: c.stat(path))

    def listdir(self, path: str) -> list[tuple[str, Stat]]:
        return self.directory.call(lambda c: c.getlongdir(path))

    def mkdir(self, path: str, mode: int = 0o700) -> None:
        self.directory.call(lambda c: c.mkdir(path, mode))

    def make_dirs(self, path: str) -> None:
        self.directory.call(lambda c: make_dirs(c, path))

    def rmdir(self, path: str) -> None:
        self.directory.call(lambda c: c.rmdir(path))

    def chmod(self, path: str, mode: int) -> None:
        self.directory.call(lambda c: c.chmod(path, mode))

    def statfs(self, path: str) -> tuple[int, int, int, int, int]:
        return self.directory.call(lambda c: c.statfs(path))

    def unlink(self, path: str) -> None:
        self.directory.call(lambda c: c.unlink(path))

    def rename(self, source: str, target: str) -> None:
        self.directory.call(lambda c: c.rename(source, target))

    def download(self, path: str, sink: BinaryIO) -> int:
        return self.directory.call(lambda c: c.getfile(path, sink))

    def open_reader(self, path: str) -> Reader:
        return FileReader(self.directory, path)

    def publish(self, source: BinaryIO, size: int, mode: int, path: str) -> None:
        """Store `size` bytes of `source` (a real file, read from offset 0) as the whole new
        content of `path`: under a hidden temporary name, then renamed into place (`paths.written_as`)."""
        temporary = written_as(path)
        try:
            self.directory.call(lambda c: _put(c, source, size, mode, temporary, path))
        except ConnectionError:
            if temporary != path:
                _quietly(lambda: self.directory.call(lambda c: c.unlink(temporary)))
            raise

    def close(self) -> None:
        self.directory.close()


@dataclasses.dataclass(frozen=True)
class Stub:
    """Where a file of a multi-server volume keeps its data."""

    server: str
    path: str
    size: int

    def encode(self) -> bytes:
        return f"{STUB_MAGIC}\n{self.server}\n{self.path}\nsize {self.size}\n".encode()

    @classmethod
    def decode(cls, text: bytes, where: str) -> Stub:
        lines = text.decode(errors="replace").splitlines()
        if len(lines) != 4 or lines[0] != STUB_MAGIC or not lines[3].startswith("size "):
            raise OSError(errno.EIO, "not a stub of a Chirp multi-server volume", where)
        try:
            return cls(lines[1], lines[2], int(lines[3].split()[1]))
        except ValueError:
            raise OSError(errno.EIO, "a malformed stub of a Chirp multi-server volume", where) from None


def _quietly(action: Callable[[], object]) -> None:
    try:
        action()
    except OSError:
        pass


class MultiVolume(SingleVolume):
    """A tree of stubs on the directory server `directory`, each naming its file's data
    server among `servers` (see the module docstring). The directory server holds data only
    when listed among `servers` (under any name: the stubs keep the one listed)."""

    def __init__(self, directory: str, servers: Iterable[str], seed: int | None = None, patient: bool = False) -> None:
        self.servers = list(dict.fromkeys(servers))
        if not self.servers:
            raise ValueError("a multi-server volume needs at least one data server")
        self._patient = patient
        self._clients = {address: ChirpClient(address, patient=patient) for address in [directory, *self.servers]}
        super().__init__(self._clients[directory])
        self._random = random.Random(seed)
        self._lock = threading.Lock()

    def describe(self) -> str:
        return f"directory server {self.directory.address}, data servers {','.join(self.servers)}"

    def client(self, server: str) -> ChirpClient:
        """The pool of `server`, made on first use for a server only a stub names."""
        with self._lock:
            if server not in self._clients:
                self._clients[server] = ChirpClient(server, patient=self._patient)
            return self._clients[server]

    @staticmethod
    def tree(path: str) -> str:
        """The path on the directory server of tree path `path`."""
        return TREE + path if path != "/" else TREE

    def prepare(self) -> None:
        """Make the tree's root on the directory server if missing."""
        self.directory.call(lambda c: make_dirs(c, TREE))

    def stub(self, path: str) -> Stub:
        buffer = _Buffer()
        self.directory.call(lambda c: c.getfile(self.tree(path), buffer.reset()))
        return Stub.decode(buffer.value(), path)

    def _sized(self, path: str, status: Stat) -> Stat:
        return status if status.is_dir else dataclasses.replace(status, size=self.stub(path).size)

    def stat(self, path: str) -> Stat:
        return self._sized(path, super().stat(self.tree(path)))

    def listdir(self, path: str) -> list[tuple[str, Stat]]:
        entries = super().listdir(self.tree(path))
        return [(name, self._sized(posixpath.join(path, name), status)) for name, status in entries]

    def mkdir(self, path: str, mode: int = 0o700) -> None:
        super().mkdir(self.tree(path), mode)

    def make_dirs(self, path: str) -> None:
        super().make_dirs(self.tree(path))

    def rmdir(self, path: str) -> None:
        super().rmdir(self.tree(path))

    def chmod(self, path: str, mode: int) -> None:
        super().chmod(self.tree(path), mode)

    def statfs(self, path: str) -> tuple[int, int, int, int, int]:
        return super().statfs(self.tree(path))

    def _remove_data(self, stub: Stub) -> None:
        _quietly(lambda: self.client(stub.server).call(lambda c: c.unlink(stub.path)))

    def _old_stub(self, path: str) -> Stub | None:
        try:
            return self.stub(path)
        except OSError:
            return None  # no file there (or a directory): no data to remove after

    def unlink(self, path: str) -> None:
        """Remove the stub, then the data: the file is gone once its stub is, even when its
        data server is down (its data is then left there, unnamed)."""
        stub = self.stub(path)
        super().unlink(self.tree(path))
        self._remove_data(stub)

    def rename(self, source: str, target: str) -> None:
        replaced = self._old_stub(target)
        super().rename(self.tree(source), self.tree(target))
        if replaced is not None:
            self._remove_data(replaced)

    def download(self, path: str, sink: BinaryIO) -> int:
        stub = self.stub(path)
        return self.client(stub.server).call(lambda c: c.getfile(stub.path, sink))

    def open_reader(self, path: str) -> Reader:
        stub = self.stub(path)
        return FileReader(self.client(stub.server), stub.path)

    def choose(self) -> str:
        """A data server for a new file, uniformly at random."""
        with self._lock:
            return self._random.choice(self.servers)

    def publish(self, source: BinaryIO, size: int, mode: int, path: str) -> None:
        server = self.choose()
        stub = Stub(server, f"{DATA}/{secrets.token_hex(16)}", size)
        data = self.client(server)

        def put_data(connection: Connection) -> None:
            source.seek(0)
            try:
                connection.putfile(stub.path, source, size, 0o600)
            except FileNotFoundError:  # the server's first data file: make the directory
                make_dirs(connection, DATA)
                source.seek(0)
                connection.putfile(stub.path, source, size, 0o600)

        data.call(put_data)
        replaced = self._old_stub(path)
        try:
            self._publish_stub(stub, mode, path)
        except BaseException:
            self._remove_data(stub)
            raise
        if replaced is not None:
            self._remove_data(replaced)

    def _publish_stub(self, stub: Stub, mode: int, path: str) -> None:
        target = self.tree(path)
        temporary = written_as(target)
        content = stub.encode()
        spool = tempfile.TemporaryFile()  # putfile sends from a file descriptor
        spool.write(content)
        spool.flush()
        try:
            self.directory.call(lambda c: _put(c, spool, len(content), mode, temporary, target))
        finally:
            spool.close()

    def close(self) -> None:
        for client in self._clients.values():
            client.close()


class _Buffer:
    """A sink for a stub's bytes (bounded: a stub is small)."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def reset(self) -> _Buffer:
        self._parts = []
        return self

    def write(self, data: bytes) -> int:
        if sum(map(len, self._parts)) + len(data) > MAX_STUB:
            raise OSError(errno.EIO, "a file of a multi-server volume's tree is too large to be a stub")
        self._parts.append(data)
        return len(data)

    def value(self) -> bytes:
        return b"".join(self._parts)



VOLUMES = ("single", "multi")


def open_volume(kind: str, server: str, servers: list[str] | None = None, seed: int | None = None,
                patient: bool = False) -> SingleVolume:
    """`server`'s tree alone (`single`), or a multi-server volume whose directory server is
    `server` and whose data servers are `servers` (by default `server` alone); `patient`
    clients wait for a server that restarts (`ChirpClient.connect`: a mount's)."""
    if kind == "single":
        return SingleVolume(ChirpClient(server, patient=patient))
    if kind != "multi":
        raise ValueError(f"a Chirp volume is \"single\" or \"multi\", not {kind!r}")
    return MultiVolume(server, servers or [server], seed, patient)
