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
import tempfile
from typing import IO, TYPE_CHECKING, ClassVar

from storage_adapters.base import DIRECTORY, FILE, AtomicWriter, FileInfo, StorageAdapter, StoreFile, remove_quietly
from storage_adapters.chirp import service
from storage_adapters.chirp.client import ChirpClient, parse_address
from storage_adapters.chirp.protocol import AuthenticationRefused, Connection
from storage_adapters.errors import ServiceError, StorageConfigError
from storage_adapters.fuse.mounting import Process
from storage_adapters.local import LocalAdapter
from storage_adapters.paths import is_temp_name, temp_sibling
from storage_adapters.services.s3fs_mount import mounted_fstype

if TYPE_CHECKING:
    from storage_adapters.config import StorageSettings

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


class ChirpAdapter(StorageAdapter):
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

    def _open(self, path: str, mode: str) -> StoreFile:
        if mode == "rb":
            spool = tempfile.TemporaryFile()
            try:
                self._get_file_into(path, spool)
                spool.seek(0)
            except BaseException:
                spool.close()
                raise
            return spool
        descriptor, local = tempfile.mkstemp(prefix="chirp-upload-")

        def commit() -> None:
            try:
                self._put_file(local, path)
            finally:
                remove_quietly(local)

        return AtomicWriter(os.fdopen(descriptor, "wb"), commit=commit, abort=lambda: remove_quietly(local))

    def _get_file_into(self, path: str, sink: IO[bytes]) -> None:
        full = self._path(path)
        self._client.call(lambda c: c.getfile(full, sink))

    def _get_file(self, path: str, local_path: str) -> None:
        with open(local_path, "wb") as sink:
            self._get_file_into(path, sink)

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


class ChirpMountAdapter(LocalAdapter):
    """The chirp_server mounted with our FUSE client, at the same path on every node."""

    backend: ClassVar[str] = "chirp"
    mode: ClassVar[str] = "shared"

    def __init__(self, mount_point: str, server: str, name: str = "chirp", subdir: str = "",
                 auto_mount: bool = True, work_dir: str | None = None) -> None:
        self.mount_point = os.path.realpath(mount_point)
        super().__init__(os.path.join(self.mount_point, subdir), name, create=True)
        self.server = server
        self._auto_mount = auto_mount
        self._work_dir = os.path.abspath(work_dir or os.path.join(".swiftcloud", "chirp-client"))
        self._client: Process | None = None

    def describe(self) -> str:
        return f"storage '{self.name}' (chirp, server {self.server}, mounted at {self.mount_point})"

    def check(self) -> None:
        fstype = mounted_fstype(self.mount_point)
        if fstype is None:
            self._mount()
        elif fstype != service.FSTYPE:
            raise StorageConfigError(f"{self.describe()}: {self.mount_point} is already a {fstype} mount, not Chirp")
        super().check()

    def _mount(self) -> None:
        label = self.describe()
        if not self._auto_mount:
            raise StorageConfigError(f"{label}: the server is not mounted and auto_mount is false")
        client = ChirpClient(self.server)
        try:
            _reach(client, "/", label)
        finally:
            client.close()
        try:
            self._client = service.mount(self.mount_point, self.server, os.path.join(self._work_dir, "spool"),
                                         os.path.join(self._work_dir, "client.log"))
        except ServiceError as error:
            raise StorageConfigError(f"{label}: mounting failed: {error}") from error

    def close(self) -> None:
        """Unmount the server if this adapter mounted it."""
        if self._client is not None:
            client, self._client = self._client, None
            service.release(self.mount_point, client)
