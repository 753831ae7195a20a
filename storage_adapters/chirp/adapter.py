"""The `chirp` backend: a chirp_server, used by staging files or through a FUSE mount.

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
(HOST:PORT), `subdir` (a directory on the server used as the store root),
`mount_path` (shared mode; default `<state>/chirp/mnt`), `auto_mount`
(true). With no `server`, the one started by `swiftcloud services start
chirp` in the state directory is used, so a table that sets only `mode`
works after `services start`. Authentication is Chirp's `unix` method:
the server's ACL must grant this user's subject (`unix:USER`).
"""

from __future__ import annotations

import errno
import os
import posixpath
from typing import IO, TYPE_CHECKING, ClassVar

from hostkit.errors import StorageConfigError
from hostkit.processes import Process
from storage_adapters.base import DIRECTORY, FILE, FileInfo, StorageAdapter
from storage_adapters.chirp import service
from storage_adapters.chirp.client import ChirpClient, parse_address
from storage_adapters.chirp.protocol import AuthenticationRefused, Connection
from storage_adapters.mounted import MountedStore
from storage_adapters.paths import is_temp_name, temp_sibling
from storage_adapters.wholefile import WholeFileTransfers

if TYPE_CHECKING:
    from storage_adapters.settings import StorageSettings

MODES = ("staging", "shared")


def _server_root(subdir: str) -> str:
    return "/" + subdir.strip("/") if subdir.strip("/") else "/"


def _reach(client: ChirpClient, root: str, label: str) -> None:
    """Check the server answers, accepts us, and lets us use `root` (created if missing)."""
    subject = "this client's subject"
    try:
        subject = client.call(lambda c: c.whoami())
        try:
            status = client.call(lambda c: c.stat(root))
        except FileNotFoundError:
            client.call(lambda c: _make_dirs(c, root))
            status = client.call(lambda c: c.stat(root))
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


def _make_dirs(connection: Connection, path: str) -> None:
    """Create directory `path` and its missing parents (an existing directory is fine)."""
    current = ""
    for part in path.strip("/").split("/"):
        current += "/" + part
        try:
            connection.mkdir(current)
        except FileExistsError:
            if not connection.stat(current).is_dir:
                raise NotADirectoryError(errno.ENOTDIR, "a parent is a file", current) from None


class ChirpAdapter(WholeFileTransfers, StorageAdapter):
    """Files staged to and from a chirp_server with Chirp's own requests."""

    backend: ClassVar[str] = "chirp"
    mode: ClassVar[str] = "staging"

    def __init__(self, server: str, name: str = "chirp", subdir: str = "") -> None:
        super().__init__(name)
        self.server = server
        self._root = _server_root(subdir)
        self._client = ChirpClient(server)

    @classmethod
    def service_defaults(cls, state_dir: str) -> tuple[dict[str, object], dict[str, str]]:
        record = service.status(state_dir)
        if record is None:
            return {}, {}
        return {"server": record.info["server"], "mount_path": record.info["mountpoint"]}, {}

    @classmethod
    def from_settings(cls, settings: StorageSettings) -> StorageAdapter:
        running, _ = cls.service_defaults(settings.state_dir)
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
        mount_path = settings.option("mount_path", os.path.join(settings.state_dir, "chirp", "mnt"))
        auto_mount = settings.option("auto_mount", True, bool)
        settings.reject_unknown()
        if mode == "shared":
            return ChirpMountAdapter(mount_path, server, settings.name, subdir, auto_mount,
                                     os.path.join(settings.state_dir, "chirp-client"))
        return cls(server, settings.name, subdir)

    def describe(self) -> str:
        return f"storage '{self.name}' (chirp, server {self.server})"

    def check(self) -> None:
        _reach(self._client, self._root, self.describe())

    def close(self) -> None:
        self._client.close()

    # ----- primitives -----

    def _path(self, logical: str) -> str:
        return posixpath.join(self._root, logical) if logical else self._root

    def _info(self, path: str) -> FileInfo:
        full = self._path(path)
        try:
            status = self._client.call(lambda c: c.stat(full))
        except (FileNotFoundError, NotADirectoryError) as error:
            raise FileNotFoundError(errno.ENOENT, f"no such file in {self.describe()}", path) from error
        return FileInfo(path, DIRECTORY, 0) if status.is_dir else FileInfo(path, FILE, status.size)

    def _ls(self, path: str) -> list[FileInfo]:
        full = self._path(path)
        entries = []
        for name, status in self._client.call(lambda c: c.getlongdir(full)):
            if is_temp_name(name):
                continue
            child = f"{path}/{name}" if path else name
            entries.append(FileInfo(child, DIRECTORY, 0) if status.is_dir else FileInfo(child, FILE, status.size))
        return entries

    def _download(self, path: str, sink: IO[bytes]) -> None:
        full = self._path(path)
        self._client.call(lambda c: c.getfile(full, sink))

    def _put_file(self, local_path: str, path: str) -> None:
        target = self._path(path)
        temporary = temp_sibling(target)
        size = os.path.getsize(local_path)

        def upload(connection: Connection) -> None:
            with open(local_path, "rb") as source:
                connection.putfile(temporary, source, size)
            try:
                connection.rename(temporary, target)
            except OSError:
                connection.unlink(temporary)
                raise

        try:
            self._client.call(upload)
        except ConnectionError:
            self._remove_quietly(temporary)
            raise

    def _remove_quietly(self, server_path: str) -> None:
        try:
            self._client.call(lambda c: c.unlink(server_path))
        except OSError:
            pass

    def _rm(self, path: str) -> None:
        full = self._path(path)
        if self._info(path).type == DIRECTORY:
            self._client.call(lambda c: c.rmdir(full))
        else:
            self._client.call(lambda c: c.unlink(full))

    def _mkdir(self, path: str) -> None:
        full = self._path(path)
        self._client.call(lambda c: _make_dirs(c, full))

    def _rename(self, src: str, dst: str) -> None:
        source, target = self._path(src), self._path(dst)
        self._client.call(lambda c: c.rename(source, target))


class ChirpMountAdapter(MountedStore):
    """The chirp_server mounted with our FUSE client, at the same path on every node."""

    backend: ClassVar[str] = "chirp"
    mode: ClassVar[str] = "shared"
    fstype: ClassVar[str] = service.FSTYPE

    def __init__(self, mount_point: str, server: str, name: str = "chirp", subdir: str = "",
                 auto_mount: bool = True, work_dir: str | None = None) -> None:
        super().__init__(mount_point, name, subdir, auto_mount,
                         work_dir or os.path.join(".swiftcloud", "chirp-client"))
        self.server = server

    def describe(self) -> str:
        return f"storage '{self.name}' (chirp, server {self.server}, mounted at {self.mount_point})"

    def _check_server(self) -> None:
        client = ChirpClient(self.server)
        try:
            _reach(client, "/", self.describe())
        finally:
            client.close()

    def _start_client(self, spool_dir: str, log: str) -> Process:
        return service.mount(self.mount_point, self.server, spool_dir, log)
