"""The `s3fs` backend: an S3 bucket mounted with s3fs-fuse, used as a shared POSIX directory.

Mode "shared": tasks read and write under `mount_path` directly, so file
operations are those of the `local` backend on the mount. `check()` first
validates endpoint, credentials and bucket with boto3 (s3fs itself reports
them poorly), then FUSE, then mounts the bucket unless s3fs already has it
mounted there; a mount made by the adapter is released by `close()`.

s3fs's limits, and how outputs stay correct anyway: rename is a server-side
copy + delete (not atomic, `atomic_rename = False`), but the copy makes the
destination object appear whole, so writing to a hidden temporary name and
renaming still never shows a partial file, whereas s3fs would show an empty
object as soon as a file is created under its final name. There is no
coordination between several clients: each mount caches metadata (kept to one
second here), so a file written through one node becomes visible to another
within that delay, and two writers of one name race (the last upload wins);
Swift's single assignment means a workflow never writes one name twice.

Settings (`[storage.NAME]`, `backend = "s3fs"`): `bucket`, `endpoint_url`,
`mount_path` required; `prefix`, `region`, `subdir` (a directory inside the
mount used as the store root), `auto_mount` (true); secrets as for `s3`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, ClassVar

from hostkit.errors import ServiceError, StorageConfigError
from hostkit.mounts import mounted_fstype
from hostkit.records import ServiceRecord
from storage_adapters.local import LocalAdapter
from storage_adapters.s3 import S3Adapter
from storage_adapters.services import minio, s3fs_mount

if TYPE_CHECKING:
    from storage_adapters.settings import StorageSettings


class S3fsAdapter(LocalAdapter):
    """A bucket mounted through s3fs-fuse at the same path on every node."""

    backend: ClassVar[str] = "s3fs"
    mode: ClassVar[str] = "shared"
    atomic_rename: ClassVar[bool] = False
    secret_settings: ClassVar[dict[str, str]] = S3Adapter.secret_settings

    def __init__(
        self,
        mount_point: str,
        bucket: S3Adapter,
        work_dir: str,
        name: str = "s3fs",
        subdir: str = "",
        auto_mount: bool = True,
    ) -> None:
        self.mount_point = os.path.abspath(mount_point)
        super().__init__(os.path.join(self.mount_point, subdir), name, create=True, secrets=bucket.secret_values)
        self._bucket = bucket
        self._work_dir = os.path.abspath(work_dir)
        self._auto_mount = auto_mount
        self._our_mount: ServiceRecord | None = None

    @classmethod
    def service_defaults(cls, state_dir: str) -> tuple[dict[str, object], dict[str, str]]:
        server = minio.status(state_dir)
        if server is None:
            return {}, {}
        mounted = s3fs_mount.status(state_dir)
        mount_path = mounted.info["mountpoint"] if mounted else os.path.join(state_dir, "s3fs", "mnt")
        options = {"endpoint_url": server.info["endpoint_url"], "bucket": server.info["bucket"], "mount_path": mount_path}
        return options, dict(server.secrets)

    @classmethod
    def from_settings(cls, settings: StorageSettings) -> S3fsAdapter:
        if not settings.options:
            raise settings.error(
                f"no [storage.{settings.name}] table in swiftcloud.toml and no MinIO running in "
                f"{settings.state_dir} (start one with: swiftcloud services start s3fs)"
            )
        bucket = S3Adapter(
            bucket=settings.option("bucket"),
            access_key=settings.secret("access_key"),
            secret_key=settings.secret("secret_key"),
            endpoint_url=settings.option("endpoint_url"),
            prefix=settings.option("prefix", ""),
            region=settings.option("region", "us-east-1"),
            name=settings.name,
        )
        adapter = cls(
            mount_point=settings.option("mount_path"),
            bucket=bucket,
            work_dir=os.path.join(settings.state_dir, "s3fs"),
            name=settings.name,
            subdir=settings.option("subdir", ""),
            auto_mount=settings.option("auto_mount", True, bool),
        )
        settings.reject_unknown()
        return adapter

    def describe(self) -> str:
        return (f"storage '{self.name}' (s3fs, bucket '{self._bucket.bucket}' at "
                f"{self._bucket.endpoint_url}, mounted at {self.mount_point})")

    def check(self) -> None:
        label = self.describe()
        self._bucket.check_as(label)
        fstype = mounted_fstype(self.mount_point)
        if fstype is None:
            self._mount(label)
        elif fstype != s3fs_mount.S3FS_FSTYPE:
            raise StorageConfigError(f"{label}: {self.mount_point} is already a {fstype} mount, not s3fs")
        super().check()

    def _mount(self, label: str) -> None:
        if not self._auto_mount:
            raise StorageConfigError(f"{label}: the bucket is not mounted and auto_mount is false")
        try:
            s3fs_mount.check_fuse()
        except StorageConfigError as error:
            raise StorageConfigError(f"{label}: {error}") from error
        access_key, secret_key = self._bucket.credentials
        try:
            self._our_mount = s3fs_mount.mount(
                self._bucket.bucket, self.mount_point, self._bucket.endpoint_url or "https://s3.amazonaws.com",
                access_key, secret_key, self._work_dir, self._bucket.prefix,
            )
        except ServiceError as error:
            raise StorageConfigError(self.redact(f"{label}: mounting failed: {error}")) from error

    def close(self) -> None:
        """Unmount the bucket if this adapter mounted it."""
        if self._our_mount is not None:
            record, self._our_mount = self._our_mount, None
            s3fs_mount.unmount(record)
