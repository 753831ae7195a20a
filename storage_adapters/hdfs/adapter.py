"""The `hdfs` backend: HDFS through the native client, staged or through our FUSE mount.

`mode = "staging"` (the default): workers copy a task's inputs in and its
outputs out with `hdfs-native`; an upload is written under a hidden
temporary name and renamed over the final name, so a reader sees the old
file or the whole new one. `mode = "shared"`: HDFS mounted with our FUSE
client (`storage_adapters.hdfs.fs`) at the same path on every node, so apps
use plain paths; `check()` reuses a mount that is there or (with
`auto_mount`) mounts it, and `close()` unmounts what it mounted.

`locations(path)`: the nodes holding the file's blocks, from the NameNode's
WebHDFS `GETFILEBLOCKLOCATIONS` (host names: with our service, the emulated
node names), most blocks first, cached (files are written once), with a short
timeout and [] on any failure, so placement never waits on it for long.

Settings (`[storage.NAME]`, `backend = "hdfs"`): `mode`, `namenode`
(HOST:PORT of its RPC), `http` (HOST:PORT of its web server, for
locations), `subdir`, `replication`, `block_size_mb`, `mount_path` (shared
mode; default `<state>/hdfs/mnt`), `auto_mount` (true). With no `namenode`,
the HDFS started by `swiftcloud services start hdfs` in the state directory
(or by the cluster) is used, so a table that sets only `mode` works after
`services start`; its record also gives `replication` and `block_size_mb`
unless the table sets them, since in HDFS the client that creates a file
decides both.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import posixpath
import socket
import threading
import urllib.parse
import urllib.request
from collections import Counter
from typing import IO, TYPE_CHECKING, ClassVar

from hostkit.errors import StorageConfigError
from hostkit.private_names import is_store_temporary
from hostkit.processes import Process
from storage_adapters.base import DIRECTORY, FILE, FileInfo, StorageAdapter
from storage_adapters.hdfs import service
from storage_adapters.hdfs.client import Hdfs
from storage_adapters.mounted import MountedStore
from storage_adapters.wholefile import WholeFileTransfers

if TYPE_CHECKING:
    from storage_adapters.settings import StorageSettings

MODES = ("staging", "shared")
LOCATION_TIMEOUT = 0.5
WARM_UP_TIMEOUT = 10.0


def _hdfs_root(subdir: str) -> str:
    return "/" + subdir.strip("/") if subdir.strip("/") else "/"


def _reach(hdfs: Hdfs, root: str, label: str) -> None:
    """Check the NameNode answers and `root` is (or can be made) a directory of ours.

    The TCP connection is tried first: hdfs-native retries a refused connection
    for minutes, and a NameNode that is down should be one prompt error."""
    host, _, port = hdfs.namenode.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=10).close()
    except (OSError, ValueError) as error:
        raise StorageConfigError(f"{label}: cannot reach the NameNode: {getattr(error, 'strerror', None) or error}") \
            from error
    try:
        try:
            status = hdfs.info(root)
        except FileNotFoundError:
            hdfs.mkdirs(root)
            status = hdfs.info(root)
    except PermissionError as error:
        raise StorageConfigError(f"{label}: HDFS refused access to {root}: {error.strerror}") from error
    except OSError as error:
        raise StorageConfigError(f"{label}: cannot reach the NameNode: {error.strerror or error}") from error
    if not status.isdir:
        raise StorageConfigError(f"{label}: {root} in HDFS is not a directory")


class BlockLocations:
    """Block locations from WebHDFS, cached per path."""

    def __init__(self, http: str | None) -> None:
        self._http = http
        self._cache: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def _request(self, operation: str, hdfs_path: str, timeout: float) -> dict[str, object]:
        query = urllib.parse.urlencode({"op": operation, "user.name": _user()})
        url = f"http://{self._http}/webhdfs/v1{urllib.parse.quote(hdfs_path)}?{query}"
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return json.load(response)

    def warm_up(self, hdfs_path: str) -> None:
        """One request with time to spare: the NameNode's first WebHDFS answer takes about
        half a second (its servlets start), later ones milliseconds."""
        if self._http:
            with contextlib.suppress(OSError, ValueError):
                self._request("GETFILESTATUS", hdfs_path, WARM_UP_TIMEOUT)

    def nodes(self, hdfs_path: str) -> list[str]:
        if not self._http:
            return []
        with self._lock:
            cached = self._cache.get(hdfs_path)
        if cached is not None:
            return cached
        try:
            blocks = self._request("GETFILEBLOCKLOCATIONS", hdfs_path, LOCATION_TIMEOUT)["BlockLocations"]
            blocks = blocks["BlockLocation"]  # type: ignore[index]
        except (OSError, ValueError, KeyError, TypeError):
            return []
        counts: Counter[str] = Counter(host for block in blocks for host in block.get("hosts", []))
        nodes = [node for node, _ in counts.most_common()]
        if nodes:
            with self._lock:
                self._cache[hdfs_path] = nodes
        return nodes


def _user() -> str:
    import pwd

    return pwd.getpwuid(os.geteuid()).pw_name


class HdfsAdapter(WholeFileTransfers):
    """Files staged to and from HDFS with the native client."""

    backend: ClassVar[str] = "hdfs"
    mode: ClassVar[str] = "staging"

    def __init__(self, namenode: str, name: str = "hdfs", subdir: str = "", http: str | None = None,
                 replication: int | None = None, block_size: int | None = None) -> None:
        super().__init__(name)
        self.namenode = namenode
        self._root = _hdfs_root(subdir)
        self._hdfs = Hdfs(namenode, replication, block_size)
        self._locations = BlockLocations(http)

    @classmethod
    def service_defaults(cls, state_dir: str) -> tuple[dict[str, object], dict[str, str]]:
        record = service.status(state_dir)
        if record is None:
            return {}, {}
        defaults: dict[str, object] = {"namenode": record.info["namenode"], "http": record.info["http"],
                                       "mount_path": record.info["mountpoint"]}
        # The client decides a new file's replication and block size: use the store's own.
        if "replication" in record.info:
            defaults["replication"] = record.info["replication"]
        if record.info.get("block_size"):
            defaults["block_size_mb"] = max(1, int(record.info["block_size"]) // (1024 * 1024))
        return defaults, {}

    @classmethod
    def from_settings(cls, settings: StorageSettings) -> StorageAdapter:
        running, _ = cls.service_defaults(settings.state_dir)
        if settings.options.get("namenode", running.get("namenode")) != running.get("namenode"):
            # Another HDFS than the one started here: its own servers' defaults apply.
            running = {key: value for key, value in running.items() if key not in ("replication", "block_size_mb")}
        settings.options = {**running, **settings.options}
        mode = settings.option("mode", "staging")
        if mode not in MODES:
            raise settings.error(f"setting 'mode' must be \"staging\" or \"shared\", not {mode!r}")
        if "namenode" not in settings.options:
            raise settings.error(
                f"no 'namenode' in [storage.{settings.name}] and no HDFS running in {settings.state_dir} "
                "(start one with: swiftcloud services start hdfs)")
        namenode = settings.option("namenode")
        http = settings.option("http", None, (str, type(None)))
        subdir = settings.option("subdir", "")
        replication = settings.option("replication", None, (int, type(None)))
        block_size_mb = settings.option("block_size_mb", None, (int, type(None)))
        mount_path = settings.option("mount_path", os.path.join(settings.state_dir, "hdfs", "mnt"))
        auto_mount = settings.option("auto_mount", True, bool)
        settings.reject_unknown()
        if replication is not None and replication < 1:
            raise settings.error("setting 'replication' must be at least 1")
        if block_size_mb is not None and block_size_mb < 1:
            raise settings.error("setting 'block_size_mb' must be at least 1")
        block_size = block_size_mb * 1024 * 1024 if block_size_mb else None
        if mode == "shared":
            return HdfsMountAdapter(mount_path, namenode, settings.name, subdir, http, auto_mount,
                                    os.path.join(settings.state_dir, "hdfs-client"), replication, block_size)
        return cls(namenode, settings.name, subdir, http, replication, block_size)

    def describe(self) -> str:
        return f"storage '{self.name}' (hdfs, NameNode {self.namenode})"

    def check(self) -> None:
        _reach(self._hdfs, self._root, self.describe())
        self._locations.warm_up(self._root)

    # ----- primitives -----

    def _path(self, logical: str) -> str:
        return posixpath.join(self._root, logical) if logical else self._root

    def _info(self, path: str) -> FileInfo:
        try:
            status = self._hdfs.info(self._path(path))
        except (FileNotFoundError, NotADirectoryError) as error:
            raise FileNotFoundError(errno.ENOENT, f"no such file in {self.describe()}", path) from error
        return FileInfo(path, DIRECTORY, 0) if status.isdir else FileInfo(path, FILE, status.length)

    def _ls(self, path: str) -> list[FileInfo]:
        entries = []
        for status in self._hdfs.listdir(self._path(path)):
            name = posixpath.basename(status.path.rstrip("/"))
            if is_store_temporary(name):
                continue
            child = f"{path}/{name}" if path else name
            entries.append(FileInfo(child, DIRECTORY, 0) if status.isdir else FileInfo(child, FILE, status.length))
        return entries

    def _download(self, path: str, sink: IO[bytes]) -> None:
        self._hdfs.download(self._path(path), sink)

    def _put_file(self, local_path: str, path: str) -> None:
        with open(local_path, "rb") as source:
            self._hdfs.upload(source, self._path(path))

    def _rm(self, path: str) -> None:
        self._hdfs.delete(self._path(path), directory=self._info(path).type == DIRECTORY)

    def _mkdir(self, path: str) -> None:
        self._hdfs.mkdirs(self._path(path))

    def _rename(self, src: str, dst: str) -> None:
        self._hdfs.rename(self._path(src), self._path(dst))

    def locations(self, path: str) -> list[str]:
        try:
            return self._locations.nodes(self._path(self.logical_file(path)))
        except ValueError:
            return []


class HdfsMountAdapter(MountedStore):
    """HDFS mounted with our FUSE client, at the same path on every node."""

    backend: ClassVar[str] = "hdfs"
    mode: ClassVar[str] = "shared"
    fstype: ClassVar[str] = service.FSTYPE

    def __init__(self, mount_point: str, namenode: str, name: str = "hdfs", subdir: str = "",
                 http: str | None = None, auto_mount: bool = True, work_dir: str | None = None,
                 replication: int | None = None, block_size: int | None = None) -> None:
        super().__init__(mount_point, name, subdir, auto_mount, work_dir or os.path.join(".swiftcloud", "hdfs-client"))
        self.namenode = namenode
        self._subdir = subdir
        self._replication = replication
        self._block_size = block_size
        self._locations = BlockLocations(http)

    def describe(self) -> str:
        return f"storage '{self.name}' (hdfs, NameNode {self.namenode}, mounted at {self.mount_point})"

    def check(self) -> None:
        super().check()
        self._locations.warm_up(_hdfs_root(self._subdir))

    def _check_server(self) -> None:
        _reach(Hdfs(self.namenode), "/", self.describe())

    def _start_client(self, spool_dir: str, log: str) -> Process:
        return service.mount(self.mount_point, self.namenode, spool_dir, log, replication=self._replication,
                             block_size=self._block_size)

    def locations(self, path: str) -> list[str]:
        try:
            logical = self.logical_file(path)
        except ValueError:
            return []
        return self._locations.nodes(posixpath.join(_hdfs_root(self._subdir), logical))
