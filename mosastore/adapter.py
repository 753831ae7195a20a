"""The `mosastore` storage backend: the MosaStore FUSE mount used as a shared POSIX directory
(registered with the storage layer by `mosastore.plugin`).

Mode "shared": tasks use paths under `mount_path` directly, so file
operations are those of the `local` backend on the mount (writes go to a
hidden temporary name, then a rename, which the manager makes atomic).
On top of that:

- `locations(path)` reads `user.mosastore.location`: the nodes holding the
  file's chunks, for the scheduler's data-aware placement;
- `set_placement(path, hint)` sets `user.mosastore.placement` on a file or
  directory (`local`, `scatter`, `collocate:GROUP`, `replicate:K`);
- files written through the adapter carry the writer's node
  (`$SWIFTCLOUD_NODE`) in `user.mosastore.writer`, so `local` placement works
  even from a forked worker whose process environment predates the variable.

`check()` reuses a MosaStore mount that is already there; otherwise, with
`auto_mount`, it checks the manager (reachable? secret accepted?) and mounts
the store itself, and `close()` unmounts it again.

Settings (`[storage.NAME]`, `backend = "mosastore"`): `mount_path`
(required), `manager` (HOST:PORT, needed to auto-mount), `node` (this
node's name, default `$SWIFTCLOUD_NODE` or the host name), `subdir`,
`auto_mount` (true); secret `secret` from `$MOSASTORE_SECRET` (or the
variable named by `secret_env`).
"""

from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING, ClassVar

from hostkit.errors import ServiceError, StorageConfigError
from hostkit.file_copy import copy_contents
from mosastore import deploy, service
from mosastore.auth import AuthenticationError, SECRET_ENV, check_secret, write_secret_file
from mosastore.placement import LOCATION_XATTR, PLACEMENT_XATTR, WRITER_XATTR, parse_hint
from mosastore.rpc import Pool
from storage_adapters.base import AtomicWriter, StoreFile, remove_quietly
from storage_adapters.local import LocalAdapter
from storage_adapters.paths import temp_sibling

if TYPE_CHECKING:
    from storage_adapters.settings import StorageSettings


class MosaStoreAdapter(LocalAdapter):
    """The MosaStore mount, at the same path on every node."""

    backend: ClassVar[str] = "mosastore"
    mode: ClassVar[str] = "shared"
    secret_settings: ClassVar[dict[str, str]] = {"secret": SECRET_ENV}

    def __init__(self, mount_point: str, manager: str | None = None, secret: str | None = None,
                 name: str = "mosastore", subdir: str = "", auto_mount: bool = True, node: str | None = None,
                 work_dir: str | None = None) -> None:
        self.mount_point = os.path.realpath(mount_point)
        super().__init__(os.path.join(self.mount_point, subdir), name, create=True, secrets=(secret or "",))
        self._manager = manager
        self._secret = secret
        self._auto_mount = auto_mount
        self._node = node or os.environ.get("SWIFTCLOUD_NODE") or socket.gethostname()
        self._work_dir = os.path.abspath(work_dir or os.path.join(".swiftcloud", "mosastore-client"))
        self._client: deploy.Process | None = None

    @classmethod
    def service_defaults(cls, state_dir: str) -> tuple[dict[str, object], dict[str, str]]:
        record = service.status(state_dir)
        if record is None:
            return {}, {}
        return {"mount_path": record.info["mountpoint"], "manager": record.info["manager"]}, dict(record.secrets)

    @classmethod
    def from_settings(cls, settings: StorageSettings) -> MosaStoreAdapter:
        if not settings.options:
            raise settings.error(
                f"no [storage.{settings.name}] table in swiftcloud.toml and no MosaStore running in "
                f"{settings.state_dir} (start one with: swiftcloud services start mosastore --benefactors 4)"
            )
        adapter = cls(
            mount_point=settings.option("mount_path"),
            manager=settings.option("manager", None, (str, type(None))),
            secret=settings.secret("secret", required=False),
            name=settings.name,
            subdir=settings.option("subdir", ""),
            auto_mount=settings.option("auto_mount", True, bool),
            node=settings.option("node", None, (str, type(None))),
            work_dir=os.path.join(settings.state_dir, "mosastore-client"),
        )
        settings.reject_unknown()
        return adapter

    def describe(self) -> str:
        manager = f"manager {self._manager}, " if self._manager else ""
        return f"storage '{self.name}' (mosastore, {manager}mounted at {self.mount_point})"

    # ----- lifetime -----

    def check(self) -> None:
        fstype = deploy.mounted_fstype(self.mount_point)
        if fstype is None:
            self._mount()
        elif fstype != deploy.FSTYPE:
            raise StorageConfigError(
                f"{self.describe()}: {self.mount_point} is already a {fstype} mount, not MosaStore")
        super().check()

    def _mount(self) -> None:
        label = self.describe()
        if not self._auto_mount:
            raise StorageConfigError(f"{label}: the store is not mounted and auto_mount is false")
        if not self._manager:
            raise StorageConfigError(f"{label}: the store is not mounted; set 'manager' (HOST:PORT) to mount it")
        if not self._secret:
            raise StorageConfigError(f"{label}: the store is not mounted; set the secret in ${SECRET_ENV} to mount it")
        try:
            pool = Pool(self._manager, check_secret(self._secret), retry_for=2.0)
            try:
                pool.ping()
            finally:
                pool.close()
        except AuthenticationError as error:
            raise StorageConfigError(f"{label}: the manager refused the secret ({error})") from error
        except (OSError, ValueError) as error:
            raise StorageConfigError(self.redact(f"{label}: cannot reach the manager: {error}")) from error
        os.makedirs(self._work_dir, mode=0o700, exist_ok=True)
        secret_file = os.path.join(self._work_dir, f"secret-{os.getpid()}")
        write_secret_file(secret_file, self._secret)
        try:
            self._client = deploy.mount(
                self.mount_point, self._manager, secret_file, self._node,
                os.path.join(self._work_dir, "spool"), os.path.join(self._work_dir, "client.log"))
        except ServiceError as error:
            raise StorageConfigError(self.redact(f"{label}: mounting failed: {error}")) from error
        finally:
            remove_quietly(secret_file)  # the client has read it at start

    def close(self) -> None:
        """Unmount the store if this adapter mounted it."""
        if self._client is not None:
            client, self._client = self._client, None
            deploy.unmount(self.mount_point, client)

    # ----- workflow awareness -----

    def locations(self, path: str) -> list[str]:
        """Nodes holding `path`'s chunks, most first; [] when unknown."""
        try:
            value = os.getxattr(self.local_path(path), LOCATION_XATTR)
        except OSError:
            return []
        return [node for node in value.decode().split(",") if node]

    def set_placement(self, path: str, hint: str) -> None:
        """Set the placement hint of a file or directory (files inherit their directory's)."""
        parse_hint(hint)
        os.setxattr(self.local_path(path), PLACEMENT_XATTR, hint.encode())

    def placement(self, path: str) -> str | None:
        """The placement hint set on `path` itself, if any."""
        try:
            return os.getxattr(self.local_path(path), PLACEMENT_XATTR).decode()
        except OSError:
            return None

    # ----- writes tagged with the writer's node -----

    def _open(self, path: str, mode: str) -> StoreFile:
        if mode == "rb":
            return open(self._full(path), "rb")
        temporary = self._full(temp_sibling(path))
        handle = open(temporary, "wb")
        self._tag_writer(handle.fileno())
        return AtomicWriter(handle, commit=lambda: os.replace(temporary, self._full(path)),
                            abort=lambda: remove_quietly(temporary))

    def _put_file(self, local_path: str, path: str) -> None:
        temporary = self._full(temp_sibling(path))
        try:
            with open(local_path, "rb") as source, open(temporary, "wb") as target:
                self._tag_writer(target.fileno())
                copy_contents(source, target)
            os.replace(temporary, self._full(path))
        except BaseException:
            remove_quietly(temporary)
            raise

    def _tag_writer(self, descriptor: int) -> None:
        node = os.environ.get("SWIFTCLOUD_NODE")
        if node:
            os.setxattr(descriptor, WRITER_XATTR, node.encode())
