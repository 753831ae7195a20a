"""The conformance suite on the `s3` backend against a real MinIO, plus multipart checks."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from hostkit.records import ServiceRecord
from storage_adapters.s3 import MB, S3Adapter
from storage_adapters.s3client import make_client

from .abstract import StorageConformance
from .conftest import unique_name


def s3_adapter(server: ServiceRecord, prefix: str, **options: int) -> S3Adapter:
    return S3Adapter(
        bucket=server.info["bucket"], access_key=server.secrets["access_key"],
        secret_key=server.secrets["secret_key"], endpoint_url=server.info["endpoint_url"],
        prefix=prefix, **options,
    )


class TestS3(StorageConformance):
    @pytest.fixture
    def adapter(self, minio_server: ServiceRecord) -> Iterator[S3Adapter]:
        store = s3_adapter(minio_server, unique_name("s3"))
        store.check()
        yield store
        store.close()


def test_large_uploads_are_multipart_and_leave_no_pending_upload(minio_server: ServiceRecord, tmp_path: Path) -> None:
    prefix = unique_name("multipart")
    store = s3_adapter(minio_server, prefix, multipart_threshold=5 * MB, multipart_chunksize=5 * MB)
    source = tmp_path / "twelve"
    source.write_bytes(os.urandom(12 * MB))
    store.put_file(str(source), "twelve.bin")
    client = make_client(minio_server.info["endpoint_url"], *store.credentials)
    head = client.head_object(Bucket=store.bucket, Key=f"{prefix}/twelve.bin")
    # A multipart ETag is "<md5 of part md5s>-<number of parts>".
    assert head["ETag"].strip('"').endswith("-3")
    pending = client.list_multipart_uploads(Bucket=store.bucket, Prefix=prefix).get("Uploads", [])
    assert pending == []


def test_mkdir_marker_is_what_s3fs_expects(minio_server: ServiceRecord) -> None:
    prefix = unique_name("marker")
    store = s3_adapter(minio_server, prefix)
    store.mkdir("empty/dir")
    client = make_client(minio_server.info["endpoint_url"], *store.credentials)
    keys = [item["Key"] for item in client.list_objects_v2(Bucket=store.bucket, Prefix=prefix)["Contents"]]
    assert keys == [f"{prefix}/empty/dir/"]
