"""The conformance suite on the `s3fs` backend: MinIO's bucket mounted with s3fs-fuse."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from hostkit.records import ServiceRecord
from storage_adapters.s3 import S3Adapter
from storage_adapters.s3fs import S3fsAdapter

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


def test_stopping_the_s3fs_service_stops_the_minio_it_started(tmp_path: Path) -> None:
    """`services stop s3fs` after `services start s3fs` leaves no MinIO behind (issue 16 item 8),
    but keeps a MinIO that was running before."""
    from hostkit.processes import is_running
    from hostkit.records import load_record
    from storage_adapters.services import minio, s3fs_mount

    state_dir = str(tmp_path / "own")
    record = s3fs_mount.start(state_dir)
    server = load_record(state_dir, minio.NAME)
    assert server is not None and is_running(server.pid, server.create_time)
    assert s3fs_mount.stop(state_dir)
    assert not is_running(record.pid, record.create_time)
    assert not is_running(server.pid, server.create_time)

    shared_dir = str(tmp_path / "shared")
    earlier = minio.start(shared_dir)
    try:
        s3fs_mount.start(shared_dir)
        assert s3fs_mount.stop(shared_dir)
        assert is_running(earlier.pid, earlier.create_time)
    finally:
        minio.stop(shared_dir)
