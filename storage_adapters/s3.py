"""The `s3` backend: explicit staging to and from an S3-compatible object store, with boto3.

Logical path `a/b.txt` is the key `<prefix>a/b.txt` in the bucket. Objects
appear atomically: a single PUT, or for large files (above
`multipart_threshold_mb`) a multipart upload whose CompleteMultipartUpload is
the atomic step; a failed upload is aborted and leaves nothing. Directories
are key prefixes; `mkdir` writes a `dir/` marker object as s3fs-fuse does, so
both backends can share a bucket. `rename` is copy + delete (not atomic).

Settings (`[storage.NAME]`, `backend = "s3"`): `bucket` (required),
`endpoint_url`, `prefix`, `region`, `multipart_threshold_mb`,
`multipart_chunksize_mb`, `max_concurrency`, `staging` ("copy" or "stream":
inputs fed to tasks through FIFOs as they download, from `open(path, "rb")`,
which streams the GET's body); secrets `access_key` and
`secret_key` from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` (or the
variables named by `access_key_env` / `secret_key_env`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, ClassVar

from boto3.exceptions import S3UploadFailedError
from boto3.s3.transfer import TransferConfig
from botocore.exceptions import BotoCoreError, ClientError, EndpointConnectionError, HTTPClientError
from botocore.exceptions import ConnectionError as BotoConnectionError

from hostkit.errors import StorageConfigError
from hostkit.private_names import is_store_temporary
from storage_adapters.base import AtomicWriter, DIRECTORY, FILE, FileInfo, StorageAdapter, StoreFile, remove_quietly
from storage_adapters.errors import StorageTransferError, StorageUnavailableError
from storage_adapters.s3client import make_client
from storage_adapters.services import minio

if TYPE_CHECKING:
    from storage_adapters.settings import StorageSettings

MB = 1024 * 1024
_MISSING_CODES = {"404", "NoSuchKey", "NotFound"}
# A server restarting answers 503 until it is ready (MinIO: XMinioServerNotInitialized).
_NOT_READY_CODES = {"503", "ServiceUnavailable", "SlowDown", "XMinioServerNotInitialized"}
_CREDENTIAL_CODES = {"403", "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "InvalidToken"}


class S3Adapter(StorageAdapter):
    """A bucket (and optional key prefix) of an S3-compatible server."""

    backend: ClassVar[str] = "s3"
    mode: ClassVar[str] = "staging"
    atomic_rename: ClassVar[bool] = False
    # `open(path, "rb")` reads as the bytes arrive, so `staging = "stream"` can feed a FIFO from it.
    streams_reads: ClassVar[bool] = True
    staging: str = "copy"
    needs_parent_dirs: ClassVar[bool] = False
    secret_settings: ClassVar[dict[str, str]] = {
        "access_key": "AWS_ACCESS_KEY_ID",
        "secret_key": "AWS_SECRET_ACCESS_KEY",
    }

    def __init__(
        self,
        bucket: str,
        access_key: str,
        secret_key: str,
        endpoint_url: str | None = None,
        prefix: str = "",
        region: str = "us-east-1",
        name: str = "s3",
        multipart_threshold: int = 8 * MB,
        multipart_chunksize: int = 8 * MB,
        max_concurrency: int = 4,
    ) -> None:
        super().__init__(name, (access_key, secret_key))
        self.bucket = bucket
        self.endpoint_url = endpoint_url
        self.prefix = prefix.strip("/") + "/" if prefix.strip("/") else ""
        self.region = region
        # Kept for the s3fs backend, which hands them to s3fs-fuse; never printed.
        self.credentials = (access_key, secret_key)
        self._client = make_client(endpoint_url, access_key, secret_key, region)
        self._transfer = TransferConfig(
            multipart_threshold=multipart_threshold, multipart_chunksize=multipart_chunksize,
            max_concurrency=max_concurrency, use_threads=True,
        )

    @classmethod
    def service_defaults(cls, state_dir: str) -> tuple[dict[str, object], dict[str, str]]:
        record = minio.status(state_dir)
        if record is None:
            return {}, {}
        return {"endpoint_url": record.info["endpoint_url"], "bucket": record.info["bucket"]}, dict(record.secrets)

    @classmethod
    def from_settings(cls, settings: StorageSettings) -> S3Adapter:
        if not settings.options:
            raise settings.error(
                f"no [storage.{settings.name}] table in swiftcloud.toml and no MinIO running in "
                f"{settings.state_dir} (start one with: swiftcloud services start minio)"
            )
        adapter = cls(
            bucket=settings.option("bucket"),
            access_key=settings.secret("access_key"),
            secret_key=settings.secret("secret_key"),
            endpoint_url=settings.option("endpoint_url", None),
            prefix=settings.option("prefix", ""),
            region=settings.option("region", "us-east-1"),
            name=settings.name,
            multipart_threshold=settings.option("multipart_threshold_mb", 8, int) * MB,
            multipart_chunksize=settings.option("multipart_chunksize_mb", 8, int) * MB,
            max_concurrency=settings.option("max_concurrency", 4, int),
        )
        adapter.staging = settings.staging
        settings.reject_unknown()
        return adapter

    def describe(self) -> str:
        return f"storage '{self.name}' (s3, bucket '{self.bucket}' at {self.endpoint_url or 'AWS'})"

    def check(self) -> None:
        self.check_as(self.describe())

    def check_as(self, label: str) -> None:
        """Validate endpoint, credentials and bucket; errors start with `label`."""
        access_key, secret_key = self.credentials
        # One quick attempt: a wrong endpoint should fail in seconds, not after retries.
        probe = make_client(self.endpoint_url, access_key, secret_key, self.region, attempts=1, connect_timeout=3)
        try:
            probe.list_objects_v2(Bucket=self.bucket, Prefix=self.prefix, MaxKeys=1)
        except EndpointConnectionError as error:
            raise StorageConfigError(f"{label}: cannot reach the server: connection refused or no route") from error
        except ClientError as error:
            code = error.response.get("Error", {}).get("Code", "")
            if code == "NoSuchBucket":
                raise StorageConfigError(f"{label}: the bucket '{self.bucket}' does not exist") from error
            if code in _CREDENTIAL_CODES:
                raise StorageConfigError(f"{label}: the server refused the credentials ({code})") from error
            raise StorageConfigError(self.redact(f"{label}: the server answered {code}: {error}")) from error
        except BotoCoreError as error:
            raise StorageConfigError(self.redact(f"{label}: cannot reach the server: {error}")) from error

    # ----- primitives -----

    def _key(self, path: str) -> str:
        return self.prefix + path

    def _dir_key(self, path: str) -> str:
        return self._key(path) + "/" if path else self.prefix

    @contextlib.contextmanager
    def _translated(self, path: str) -> Iterator[None]:
        """Turn boto errors into FileNotFoundError or a redacted StorageTransferError (its
        StorageUnavailableError kind when the server could not be reached or was not ready)."""
        try:
            yield
        except (ClientError, S3UploadFailedError) as error:
            # upload_file wraps the ClientError it caught in an S3UploadFailedError.
            answer = error if isinstance(error, ClientError) else error.__context__
            code = answer.response.get("Error", {}).get("Code", "") if isinstance(answer, ClientError) else ""
            if code in _MISSING_CODES:
                raise FileNotFoundError(errno.ENOENT, f"no such file in {self.describe()}", path) from error
            kind = StorageUnavailableError if code in _NOT_READY_CODES else StorageTransferError
            raise kind(self.redact(f"{self.describe()}: {path}: {error}")) from error
        except (BotoConnectionError, HTTPClientError) as error:  # refused, reset, timed out: after boto's retries
            raise StorageUnavailableError(self.redact(f"{self.describe()}: {path}: {error}")) from error
        except BotoCoreError as error:
            raise StorageTransferError(self.redact(f"{self.describe()}: {path}: {error}")) from error

    def _object_size(self, path: str) -> int | None:
        """The size of the object named `path`, or None when there is no such object."""
        try:
            return self._client.head_object(Bucket=self.bucket, Key=self._key(path))["ContentLength"]
        except ClientError as error:
            if error.response.get("Error", {}).get("Code", "") in _MISSING_CODES:
                return None
            raise

    def _info(self, path: str) -> FileInfo:
        if not path:
            return FileInfo("", DIRECTORY, 0)
        with self._translated(path):
            size = self._object_size(path)
            if size is not None:
                return FileInfo(path, FILE, size)
            listing = self._client.list_objects_v2(Bucket=self.bucket, Prefix=self._dir_key(path), MaxKeys=1)
        if listing.get("KeyCount", 0) > 0:
            return FileInfo(path, DIRECTORY, 0)
        raise FileNotFoundError(errno.ENOENT, f"no such file in {self.describe()}", path)

    def _ls(self, path: str) -> list[FileInfo]:
        directory_key = self._dir_key(path)
        entries: list[FileInfo] = []
        with self._translated(path):
            pages = self._client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=directory_key, Delimiter="/"
            )
            for page in pages:
                for common in page.get("CommonPrefixes", []):
                    entries.append(FileInfo(self._logical_of(common["Prefix"].rstrip("/")), DIRECTORY, 0))
                for item in page.get("Contents", []):
                    if item["Key"] != directory_key and not is_store_temporary(item["Key"]):
                        entries.append(FileInfo(self._logical_of(item["Key"]), FILE, item["Size"]))
        return entries

    def _logical_of(self, key: str) -> str:
        return key[len(self.prefix):]

    def _open(self, path: str, mode: str) -> StoreFile:
        if mode == "rb":
            with self._translated(path):
                return self._client.get_object(Bucket=self.bucket, Key=self._key(path))["Body"]
        descriptor, spool = tempfile.mkstemp(prefix="swiftcloud-s3-")

        def commit() -> None:
            try:
                self._put_file(spool, path)
            finally:
                remove_quietly(spool)

        return AtomicWriter(os.fdopen(descriptor, "wb"), commit, abort=lambda: remove_quietly(spool))

    def _download(self, path: str, sink: IO[bytes]) -> None:
        with self._translated(path):
            self._client.download_fileobj(self.bucket, self._key(path), sink, Config=self._transfer)

    def _put_file(self, local_path: str, path: str) -> None:
        with self._translated(path):
            self._client.upload_file(local_path, self.bucket, self._key(path), Config=self._transfer)

    def _rm(self, path: str) -> None:
        with self._translated(path):
            # A directory's marker may be absent (implicit directory): deleting it is then a no-op.
            key = self._key(path) if self._object_size(path) is not None else self._dir_key(path)
            self._client.delete_object(Bucket=self.bucket, Key=key)

    def _mkdir(self, path: str) -> None:
        with self._translated(path):
            self._client.put_object(Bucket=self.bucket, Key=self._dir_key(path), Body=b"")

    def _rename(self, src: str, dst: str) -> None:
        if self._info(src).type == FILE:
            moves = [(self._key(src), self._key(dst))]
        else:
            source_key, target_key = self._dir_key(src), self._dir_key(dst)
            with self._translated(src):
                pages = self._client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=source_key)
                keys = [item["Key"] for page in pages for item in page.get("Contents", [])]
            moves = [(key, target_key + key[len(source_key):]) for key in keys]
        with self._translated(src):
            for old, new in moves:
                self._client.copy({"Bucket": self.bucket, "Key": old}, self.bucket, new, Config=self._transfer)
                self._client.delete_object(Bucket=self.bucket, Key=old)
