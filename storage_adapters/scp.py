"""The `scp` backend: explicit staging to and from a directory on an SSH server.

Files travel over one SSH connection (paramiko) through the server's SFTP
subsystem, which gives real error codes and an atomic rename; host keys are
checked strictly against a known_hosts file (an unknown or changed host key
is refused), and only key authentication is used. Uploads go to a hidden
temporary name beside the target and are published with the OpenSSH
`posix-rename` extension, so readers see the old file or the whole new one.
SFTP sessions are pooled: each concurrent transfer gets its own channel.

Settings (`[storage.NAME]`, `backend = "scp"`): `host`, `root` (the store
directory on the server) and `key_file` required; `port` (22), `user`
(current user), `known_hosts` (~/.ssh/known_hosts), `timeout` (10 s), `staging`
("copy" or "stream": inputs fed to tasks through FIFOs from an SFTP read); the
secret `key_passphrase` from `SWIFTCLOUD_SSH_KEY_PASSPHRASE` if the key has one.
"""

from __future__ import annotations

import contextlib
import errno
import getpass
import io
import os
import posixpath
import socket
import stat
import threading
from collections.abc import Callable, Iterator
from typing import IO, TYPE_CHECKING, ClassVar

import paramiko

from hostkit.errors import StorageConfigError
from hostkit.private_names import is_store_temporary
from storage_adapters.base import AtomicWriter, DIRECTORY, FILE, FileInfo, StorageAdapter, StoreFile
from storage_adapters.errors import StorageTransferError
from storage_adapters.paths import temp_sibling
from storage_adapters.services import sshd

if TYPE_CHECKING:
    from storage_adapters.settings import StorageSettings

READ_BUFFER = 1024 * 1024


class ScpAdapter(StorageAdapter):
    """A directory tree on an SSH server, reached with key authentication."""

    backend: ClassVar[str] = "scp"
    mode: ClassVar[str] = "staging"
    # `open(path, "rb")` reads as the bytes arrive, so `staging = "stream"` can feed a FIFO from it.
    streams_reads: ClassVar[bool] = True
    staging: str = "copy"
    secret_settings: ClassVar[dict[str, str]] = {"key_passphrase": "SWIFTCLOUD_SSH_KEY_PASSPHRASE"}

    def __init__(
        self,
        host: str,
        root: str,
        key_file: str,
        known_hosts: str,
        port: int = 22,
        user: str | None = None,
        name: str = "scp",
        key_passphrase: str | None = None,
        timeout: float = 10.0,
    ) -> None:
        super().__init__(name, (key_passphrase or "",))
        self.host, self.port, self.root = host, port, posixpath.normpath(root)
        self.user = user or getpass.getuser()
        self._key_file, self._known_hosts = os.path.expanduser(key_file), os.path.expanduser(known_hosts)
        self._passphrase = key_passphrase
        self._timeout = timeout
        self._lock = threading.Lock()
        self._client: paramiko.SSHClient | None = None
        self._idle: list[paramiko.SFTPClient] = []

    @classmethod
    def service_defaults(cls, state_dir: str) -> tuple[dict[str, object], dict[str, str]]:
        record = sshd.status(state_dir)
        if record is None:
            return {}, {}
        keys = ("host", "port", "user", "key_file", "known_hosts", "root")
        return {key: record.info[key] for key in keys}, {}

    @classmethod
    def from_settings(cls, settings: StorageSettings) -> ScpAdapter:
        if not settings.options:
            raise settings.error(
                f"no [storage.{settings.name}] table in swiftcloud.toml and no sshd running in "
                f"{settings.state_dir} (start one with: swiftcloud services start sshd)"
            )
        adapter = cls(
            host=settings.option("host"),
            root=settings.option("root"),
            key_file=settings.option("key_file"),
            known_hosts=settings.option("known_hosts", "~/.ssh/known_hosts"),
            port=settings.option("port", 22, int),
            user=settings.option("user", None),
            name=settings.name,
            key_passphrase=settings.secret("key_passphrase", required=False),
            timeout=float(settings.option("timeout", 10, (int, float))),
        )
        adapter.staging = settings.staging
        settings.reject_unknown()
        return adapter

    def describe(self) -> str:
        return f"storage '{self.name}' (scp, {self.user}@{self.host}:{self.port}{self.root})"

    # ----- connection -----

    def _connect(self) -> paramiko.SSHClient:
        with self._lock:
            if self._client is not None and self._client.get_transport() is not None \
                    and self._client.get_transport().is_active():
                return self._client
            self._idle.clear()
            client = paramiko.SSHClient()
            client.load_host_keys(self._known_hosts)
            client.set_missing_host_key_policy(paramiko.RejectPolicy())
            client.connect(
                self.host, self.port, username=self.user, key_filename=self._key_file,
                passphrase=self._passphrase, look_for_keys=False, allow_agent=False,
                timeout=self._timeout, banner_timeout=self._timeout, auth_timeout=self._timeout,
            )
            self._client = client
            return client

    def check(self) -> None:
        what = self.describe()
        for role, path in (("key file", self._key_file), ("known_hosts file", self._known_hosts)):
            if not os.path.isfile(path):
                raise StorageConfigError(f"{what}: the {role} {path} does not exist")
        try:
            self._connect()
        except paramiko.PasswordRequiredException as error:
            raise StorageConfigError(
                f"{what}: the key {self._key_file} is encrypted: set SWIFTCLOUD_SSH_KEY_PASSPHRASE") from error
        except paramiko.BadHostKeyException as error:
            raise StorageConfigError(f"{what}: the server's host key does not match {self._known_hosts}") from error
        except paramiko.AuthenticationException as error:
            raise StorageConfigError(f"{what}: the server refused the key {self._key_file} for user {self.user}") from error
        except paramiko.SSHException as error:
            if "known_hosts" in str(error):
                raise StorageConfigError(f"{what}: the server's host key is not in {self._known_hosts}") from error
            raise StorageConfigError(self.redact(f"{what}: SSH failed: {error}")) from error
        except (OSError, socket.timeout) as error:
            raise StorageConfigError(f"{what}: cannot reach the server: {error.strerror or error}") from error
        try:
            kind = self._info("").type
        except FileNotFoundError as error:
            raise StorageConfigError(f"{what}: the remote directory {self.root} does not exist") from error
        if kind != DIRECTORY:
            raise StorageConfigError(f"{what}: {self.root} is not a directory")

    @contextlib.contextmanager
    def _session(self, path: str) -> Iterator[paramiko.SFTPClient]:
        """An SFTP session for one operation, errors translated; returned to the pool after."""
        sftp = self._checkout()
        try:
            yield sftp
        except FileNotFoundError as error:
            raise FileNotFoundError(errno.ENOENT, f"no such file in {self.describe()}", path) from error
        except (paramiko.SSHException, EOFError, ConnectionError, socket.timeout) as error:
            raise StorageTransferError(self.redact(f"{self.describe()}: {path}: {error}")) from error
        finally:
            self._checkin(sftp)

    def _checkout(self) -> paramiko.SFTPClient:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        return self._connect().open_sftp()

    def _checkin(self, sftp: paramiko.SFTPClient) -> None:
        channel = sftp.get_channel()
        if channel is None or channel.closed:
            return
        with self._lock:
            self._idle.append(sftp)

    def close(self) -> None:
        with self._lock:
            for sftp in self._idle:
                sftp.close()
            self._idle.clear()
            if self._client is not None:
                self._client.close()
                self._client = None

    # ----- primitives -----

    def _remote(self, path: str) -> str:
        return posixpath.join(self.root, path) if path else self.root

    def _info(self, path: str) -> FileInfo:
        with self._session(path) as sftp:
            attributes = sftp.stat(self._remote(path))
        if stat.S_ISDIR(attributes.st_mode or 0):
            return FileInfo(path, DIRECTORY, 0)
        return FileInfo(path, FILE, attributes.st_size or 0)

    def _ls(self, path: str) -> list[FileInfo]:
        with self._session(path) as sftp:
            listing = sftp.listdir_attr(self._remote(path))
        entries = []
        for attributes in listing:
            if is_store_temporary(attributes.filename):
                continue
            child = posixpath.join(path, attributes.filename) if path else attributes.filename
            if stat.S_ISDIR(attributes.st_mode or 0):
                entries.append(FileInfo(child, DIRECTORY, 0))
            else:
                entries.append(FileInfo(child, FILE, attributes.st_size or 0))
        return entries

    def _open(self, path: str, mode: str) -> StoreFile:
        sftp = self._checkout()
        temporary = self._remote(temp_sibling(path))
        try:
            remote_file = sftp.open(self._remote(path) if mode == "rb" else temporary, mode)
        except BaseException:
            self._checkin(sftp)
            raise
        if mode == "rb":
            remote_file.prefetch()
            return io.BufferedReader(_RemoteReader(remote_file, lambda: self._checkin(sftp)), READ_BUFFER)
        remote_file.set_pipelined(True)

        def commit() -> None:
            try:
                sftp.posix_rename(temporary, self._remote(path))
            finally:
                self._checkin(sftp)

        def abort() -> None:
            with contextlib.suppress(OSError):
                sftp.remove(temporary)
            self._checkin(sftp)

        return AtomicWriter(remote_file, commit, abort)

    def _download(self, path: str, sink: IO[bytes]) -> None:
        with self._session(path) as sftp:
            sftp.getfo(self._remote(path), sink)

    def _put_file(self, local_path: str, path: str) -> None:
        temporary = self._remote(temp_sibling(path))
        with self._session(path) as sftp:
            try:
                sftp.put(local_path, temporary, confirm=True)
                sftp.posix_rename(temporary, self._remote(path))
            except BaseException:
                with contextlib.suppress(OSError):
                    sftp.remove(temporary)
                raise

    def _rm(self, path: str) -> None:
        remote = self._remote(path)
        with self._session(path) as sftp:
            if stat.S_ISDIR(sftp.stat(remote).st_mode or 0):
                sftp.rmdir(remote)
            else:
                sftp.remove(remote)

    def _mkdir(self, path: str) -> None:
        with self._session(path) as sftp:
            current = self.root
            for part in path.split("/"):
                current = posixpath.join(current, part)
                try:
                    sftp.stat(current)
                except FileNotFoundError:
                    try:
                        sftp.mkdir(current)
                    except OSError:
                        # Another writer may have created it meanwhile; fail only if it is still missing.
                        sftp.stat(current)

    def _rename(self, src: str, dst: str) -> None:
        with self._session(src) as sftp:
            sftp.posix_rename(self._remote(src), self._remote(dst))


class _RemoteReader(io.RawIOBase):
    """A raw reader over an SFTP file that returns its session to the pool when closed."""

    def __init__(self, remote_file: paramiko.SFTPFile, release: Callable[[], None]) -> None:
        super().__init__()
        self._file = remote_file
        self._release = release

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self._file.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            try:
                self._file.close()
            finally:
                self._release()
        super().close()
