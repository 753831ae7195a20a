"""Fixtures for the storage suite: real servers on 127.0.0.1, started and stopped by PID.

MinIO, sshd and the s3fs mount are started once per session with the same
service code users run (`swiftcloud services start`), each in a temporary
state directory, and stopped in teardown by the PID they recorded; the s3fs
mount is released by the mountpoint this fixture created. A component that
cannot run here (MinIO not built, FUSE missing) skips its tests with a reason
naming it.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from hostkit.errors import MissingDependencyError, StorageConfigError
from hostkit.mounts import mounted_fstype
from hostkit.processes import Process, stop_process
from hostkit.records import ServiceRecord
from storage_adapters.services import minio, s3fs_mount, sshd

LARGE_SIZE = 200 * 1024 * 1024


@dataclass(frozen=True)
class LargeFile:
    """A local file of random bytes and its SHA-256."""

    path: str
    digest: str
    size: int


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(4 * 1024 * 1024), b""):
            digest.update(block)
    return digest.hexdigest()


@pytest.fixture(scope="session")
def large_file(tmp_path_factory: pytest.TempPathFactory) -> LargeFile:
    """200 MB of random bytes, written once per session."""
    path = tmp_path_factory.mktemp("large") / "large.bin"
    digest = hashlib.sha256()
    with open(path, "wb") as handle:
        for _ in range(LARGE_SIZE // (8 * 1024 * 1024)):
            block = os.urandom(8 * 1024 * 1024)
            digest.update(block)
            handle.write(block)
    return LargeFile(str(path), digest.hexdigest(), LARGE_SIZE)


def started_minio(state_dir: str) -> ServiceRecord:
    """MinIO started in `state_dir` on free loopback ports, with bucket `swiftcloud` (the test
    is skipped, naming why, when MinIO cannot run here)."""
    try:
        minio.find_binary()
    except MissingDependencyError as error:
        pytest.skip(f"MinIO cannot run here: {error}")
    return minio.start(state_dir)


@pytest.fixture(scope="session")
def minio_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceRecord]:
    """A MinIO on a free loopback port with bucket `swiftcloud`."""
    record = started_minio(str(tmp_path_factory.mktemp("minio-state")))
    yield record
    stop_process(record.pid, record.create_time)


@pytest.fixture(scope="session")
def sshd_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceRecord]:
    """An OpenSSH sshd on a free loopback port with generated host and user keys."""
    try:
        sshd.find_binaries()
    except MissingDependencyError as error:
        pytest.skip(f"sshd cannot run here: {error}")
    state_dir = str(tmp_path_factory.mktemp("sshd-state"))
    record = sshd.start(state_dir)
    yield record
    stop_process(record.pid, record.create_time)


@pytest.fixture(scope="session")
def s3fs_mounted(minio_server: ServiceRecord, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceRecord]:
    """The MinIO bucket mounted with s3fs-fuse; unmounted in teardown."""
    try:
        s3fs_mount.check_fuse()
    except (MissingDependencyError, StorageConfigError) as error:
        pytest.skip(f"s3fs-fuse cannot run here: {error}")
    work_dir = tmp_path_factory.mktemp("s3fs-state")
    record = s3fs_mount.mount(
        minio_server.info["bucket"], str(work_dir / "mnt"), minio_server.info["endpoint_url"],
        minio_server.secrets["access_key"], minio_server.secrets["secret_key"], str(work_dir),
    )
    yield record
    s3fs_mount.unmount(record)


def assert_service_gone(processes: list[Process], mountpoint: str) -> None:
    """Every process a service started has ended, its mount is gone, and no log of theirs
    holds a Python traceback (a handler's internal error, or a crash at exit)."""
    alive = [f"{p.role} {p.node} (pid {p.pid})" for p in processes if p.running()]
    assert alive == [], f"processes left running: {alive}"
    assert mounted_fstype(mountpoint) is None, "the mount was left behind"
    logs = {p.log for p in processes if p.log and os.path.isfile(p.log)}
    broken = sorted(log for log in logs if "Traceback (most recent call last)" in _text(log))
    assert broken == [], f"tracebacks in the logs: {broken}"


def _text(path: str) -> str:
    with open(path, errors="replace") as handle:
        return handle.read()


def unique_name(prefix: str) -> str:
    """A fresh name so tests sharing one server never see each other's files."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"
