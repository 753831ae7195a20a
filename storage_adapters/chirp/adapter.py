"""The `chirp` backend: a Chirp volume (one chirp_server, or several as one tree: see
`volume.py`), used by staging files or through a FUSE mount.

`mode = "staging"` (the default): workers move a task's inputs and outputs
with Chirp's whole-file requests (`getfile`, `putfile`) over pooled,
authenticated connections, never through a shell. An upload goes to a
hidden temporary name and is renamed over the final name, so a reader sees
the old file or the whole new one.

`mode = "shared"`: the server mounted with our FUSE client
(`storage_adapters.chirp.fs`) at the same path on every node, so apps use
plain paths; file operations are those of the `local` backend on the mount.
`check()` reuses a Chirp mount that is already there, else (with
`auto_mount`) mounts the server itself, and `close()` unmounts it again.

Settings (`[storage.NAME]`, `backend = "chirp"`): `mode`, `server`
(HOST:PORT; a multi volume's directory server), `subdir` (a directory of
the tree used as the store root), `volume` ("single" or "multi"), `servers`
(multi: the data servers, a list or HOST:PORT,...), `seed` (multi: a
repeatable choice of data servers), `mount_path` (shared mode; default `<state>/chirp/mnt`), `auto_mount`
(true). With no `server`, the volume started by `swiftcloud services start
chirp` (or by the cluster) in the state directory is used, so a table that sets only `mode`
works after `services start`. Authentication is Chirp's `unix` method:
the server's ACL must grant this user's subject (`unix:USER`).
"""

from __future__ import annotations

import errno
import os
import posixpath
from typing import IO, TYPE_CHECKING, ClassVar

from hostkit.errors import StorageConfigError
from hostkit.private_names import is_store_temporary
from hostkit.processes import Process
from storage_adapters.base import DIRECTORY, FILE, FileInfo, StorageAdapter
from storage_adapters.chirp import service
from storage_adapters.chirp.client import parse_address
from storage_adapters.chirp.protocol import AuthenticationRefused
from storage_adapters.chirp.volume import VOLUMES, MultiVolume, SingleVolume, open_volume
from storage_adapters.mounted import MountedStore
from storage_adapters.wholefile import WholeFileTransfers

if TYPE_CHECKING:
    from storage_adapters.settings import StorageSettings

MODES = ("staging", "shared")


def _server_list(value: list[str] | str) -> list[str]:
    """`servers` as a TOML list or a comma-separated string (as service records keep it)."""
    return [server for server in (value.split(",") if isinstance(value, str) else value) if server]


def _server_root(subdir: str) -> str:
    return "/" + subdir.strip("/") if subdir.strip("/") else "/"


def _reach(volume: SingleVolume, root: str, label: str) -> None:
    """Check every server answers and accepts us, and that we may use `root` of the tree
    (created if missing)."""
    subject = "this client's subject"
    try:
        subject = volume.directory.call(lambda c: c.whoami())
        if isinstance(volume, MultiVolume):
            volume.prepare()
            for server in volume.servers:
                volume.client(server).call(lambda c: c.whoami())
        try:
            status = volume.stat(root)
        except FileNotFoundError:
            volume.make_dirs(root)
            status = volume.stat(root)
    except AuthenticationRefused as error:
        raise StorageConfigError(f"{label}: {error.strerror}") from error
    except PermissionError as error:
        raise StorageConfigError(
            f"{label}: the server's ACL does not grant {subject} access to {root}; "
            f"add '{subject} {service.RIGHTS}' to the ACL") from error
    except OSError as error:
        raise StorageConfigError(f"{label}: cannot reach the chirp server: {error.strerror or error}") from error
    if not status.is_dir:
        raise StorageConfigError(f"{label}: {root} on the server is not a directory")


class ChirpAdapter(WholeFileTransfers):
    """Files staged to and from a chirp_server with Chirp's own requests."""

    backend: ClassVar[str] = "chirp"
    mode: ClassVar[str] = "staging"

    def __init__(self, server: str, name: str = "chirp", subdir: str = "", volume: str = "single",
                 servers: list[str] | None = None, seed: int | None = None) -> None:
        super().__init__(name)
        self.server = server
        self._root = _server_root(subdir)
        self._volume = open_volume(volume, server, servers, seed)

    @classmethod
    def service_defaults(cls, state_dir: str) -> tuple[dict[str, object], dict[str, str]]:
        record = service.status(state_dir)
        if record is None:
            return {}, {}
        return {"server": record.info["server"], "mount_path": record.info["mountpoint"],
                "volume": record.info.get("volume", "single"), "servers": record.info["servers"]}, {}

    @classmethod
    def from_settings(cls, settings: StorageSettings) -> StorageAdapter:
        running, _ = cls.service_defaults(settings.state_dir)
        if settings.options.get("server", running.get("server")) != running.get("server"):
            # Another server than the one started here: not the started volume's servers.
            running = {key: value for key, value in running.items() if key not in ("volume", "servers")}
        options = {**running, **settings.options}
        mode = options.get("mode", "staging")
        if mode not in MODES:
            raise settings.error(f"setting 'mode' must be \"staging\" or \"shared\", not {mode!r}")
        if "server" not in options:
            raise settings.error(
                f"no 'server' in [storage.{settings.name}] and no chirp_server running in {settings.state_dir} "
                "(start one with: swiftcloud services start chirp)")
        settings.options = options
        settings.option("mode", "staging")
        server = settings.option("server")
        try:
            parse_address(server)
        except ValueError as error:
            raise settings.error(f"setting 'server': {error}") from None
        subdir = settings.option("subdir", "")
        volume = settings.option("volume", "single")
        if volume not in VOLUMES:
            raise settings.error(f"setting 'volume' must be \"single\" or \"multi\", not {volume!r}")
        servers = _server_list(settings.option("servers", [], (list, str)))
        for address in servers:
            try:
                parse_address(address)
            except ValueError as error:
                raise settings.error(f"setting 'servers': {error}") from None
        seed = settings.option("seed", None, (int, type(None)))
        mount_path = settings.option("mount_path", os.path.join(settings.state_dir, "chirp", "mnt"))
        auto_mount = settings.option("auto_mount", True, bool)
        settings.reject_unknown()
        if mode == "shared":
            return ChirpMountAdapter(mount_path, server, settings.name, subdir, auto_mount,
                                     os.path.join(settings.state_dir, "chirp-client"), volume, servers, seed)
        return cls(server, settings.name, subdir, volume, servers, seed)

    def describe(self) -> str:
        return f"storage '{self.name}' (chirp, {self._volume.describe()})"

    def check(self) -> None:
        _reach(self._volume, self._root, self.describe())

    def close(self) -> None:
        self._volume.close()

    # ----- primitives -----

    def _path(self, logical: str) -> str:
        return posixpath.join(self._root, logical) if logical else self._root

    def _info(self, path: str) -> FileInfo:
        try:
            status = self._volume.stat(self._path(path))
        except (FileNotFoundError, NotADirectoryError) as error:
            raise FileNotFoundError(errno.ENOENT, f"no such file in {self.describe()}", path) from error
        return FileInfo(path, DIRECTORY, 0) if status.is_dir else FileInfo(path, FILE, status.size)

    def _ls(self, path: str) -> list[FileInfo]:
        entries = []
        for name, status in self._volume.listdir(self._path(path)):
            if is_store_temporary(name):
                continue
            child = f"{path}/{name}" if path else name
            entries.append(FileInfo(child, DIRECTORY, 0) if status.is_dir else FileInfo(child, FILE, status.size))
        return entries

    def _download(self, path: str, sink: IO[bytes]) -> None:
        self._volume.download(self._path(path), sink)

    def _put_file(self, local_path: str, path: str) -> None:
        with open(local_path, "rb") as source:
            self._volume.publish(source, os.path.getsize(local_path), 0o600, self._path(path))

    def _rm(self, path: str) -> None:
        full = self._path(path)
        if self._info(path).type == DIRECTORY:
            self._volume.rmdir(full)
        else:
            self._volume.unlink(full)

    def _mkdir(self, path: str) -> None:
        self._volume.make_dirs(self._path(path))

    def _rename(self, src: str, dst: str) -> None:
        self._volume.rename(self._path(src), self._path(dst))


class ChirpMountAdapter(MountedStore):
    """The chirp_server mounted with our FUSE client, at the same path on every node."""

    backend: ClassVar[str] = "chirp"
    mode: ClassVar[str] = "shared"
    fstype: ClassVar[str] = service.FSTYPE

    def __init__(self, mount_point: str, server: str, name: str = "chirp", subdir: str = "",
                 auto_mount: bool = True, work_dir: str | None = None, volume: str = "single",
                 servers: list[str] | None = None, seed: int | None = None) -> None:
        super().__init__(mount_point, name, subdir, auto_mount,
                         work_dir or os.path.join(".swiftcloud", "chirp-client"))
        self.server = server
        self.volume = volume
        self.servers = servers or []
        self._seed = seed

    def describe(self) -> str:
        return f"storage '{self.name}' (chirp, {self.volume} volume, server {self.server}, mounted at {self.mount_point})"

    def _check_server(self) -> None:
        volume = open_volume(self.volume, self.server, self.servers)
        try:
            _reach(volume, "/", self.describe())
        finally:
            volume.close()

    def _start_client(self, spool_dir: str, log: str) -> Process:
        return service.mount(self.mount_point, self.server, spool_dir, log, volume=self.volume,
                             servers=self.servers, seed=self._seed)
