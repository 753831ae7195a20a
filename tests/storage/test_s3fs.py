"""The conformance suite on the `s3fs` backend: MinIO's bucket mounted with s3fs-fuse."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from storage_adapters.s3 import S3Adapter
from storage_adapters.s3fs import S3fsAdapter
from storage_adapters.services.common import ServiceRecord

from .abstract import StorageConformance
from .conftest import unique_name
from .test_s3 import s3_adapter


def s3fs_adapter(server: ServiceRecord, mounted: ServiceRecord, subdir: str) -> S3fsAdapter:
    return S3fsAdapter(mounted.info["mountpoint"], s3_adapter(server, ""), os.path.dirname(mounted.info["passwd_file"]),
                       subdir=subdir, auto_mount=False)


class TestS3fs(StorageConformance):
    @pytest.fixture
    def adapter(self, minio_server: ServiceRecord, s3fs_mounted: ServiceRecord) -> Iterator[S3fsAdapter]:
        store = s3fs_adapter(minio_server, s3fs_mounted, unique_name("s3fs"))
        store.check()
        yield store
        store.close()


def test_files_written_through_s3_are_seen_on_the_mount(minio_server: ServiceRecord, s3fs_mounted: ServiceRecord) -> None:
    subdir = unique_name("interop")
    direct: S3Adapter = s3_adapter(minio_server, subdir)
    direct.pipe("from-s3/data.txt", b"written with boto3")
    direct.mkdir("from-s3/empty")
    mounted = s3fs_adapter(minio_server, s3fs_mounted, subdir)
    mounted.check()
    assert mounted.cat("from-s3/data.txt") == b"written with boto3"
    assert [entry.path for entry in mounted.ls("from-s3")] == ["from-s3/data.txt", "from-s3/empty"]
    mounted.pipe("from-s3fs.txt", b"written on the mount")
    assert direct.cat("from-s3fs.txt") == b"written on the mount"
