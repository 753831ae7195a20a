"""Mounting an S3 bucket with s3fs-fuse, and the `s3fs` service built on it.

`mount` runs `s3fs BUCKET[:/PREFIX] MOUNTPOINT -f` in the foreground (so its
PID is ours to stop) with the endpoint's URL, path-style requests and a
mode-600 passwd file, and waits until the kernel lists the mount. `unmount`
releases it with `fusermount3 -u` / `fusermount -u` (or `umount`), by the
mountpoint the caller created, then makes sure the s3fs process is gone.
The `s3fs` service mounts the bucket of our MinIO (started if needed) at
`<state>/s3fs/mnt`.
"""

from __future__ import annotations

import contextlib
import os
import shutil

from hostkit.errors import MissingDependencyError, ServiceError, StorageConfigError
from hostkit.mounts import fusermount, mounted_fstype
from hostkit.mounts import unmount as release
from hostkit.processes import Process, is_running, spawn, wait_until
from hostkit.records import (
    LOG_FILE,
    ServiceRecord,
    load_record,
    record_process,
    running_record,
    save_record,
    service_dir,
)
from storage_adapters.services import minio

NAME = "s3fs"
FUSE_DEVICE = "/dev/fuse"
S3FS_FSTYPE = "fuse.s3fs"


def check_fuse(device: str = FUSE_DEVICE) -> None:
    """Fail unless s3fs, a fusermount and a usable FUSE device are present."""
    if shutil.which("s3fs") is None:
        raise MissingDependencyError("s3fs is not installed: apt-get install s3fs fuse3")
    if fusermount() is None and os.geteuid() != 0:
        raise MissingDependencyError("fusermount is not installed: apt-get install fuse3")
    if not os.path.exists(device):
        raise StorageConfigError(f"FUSE is unavailable: {device} does not exist (load the fuse module, or give the container the device)")
    if not os.access(device, os.R_OK | os.W_OK):
        raise StorageConfigError(f"FUSE is unavailable: {device} is not readable and writable by this user")


def mount(
    bucket: str,
    mountpoint: str,
    endpoint_url: str,
    access_key: str,
    secret_key: str,
    work_dir: str,
    prefix: str = "",
) -> ServiceRecord:
    """Mount `bucket` (or `bucket:/prefix`) at `mountpoint`; the record holds the s3fs PID."""
    check_fuse()
    os.makedirs(mountpoint, exist_ok=True)
    os.makedirs(work_dir, mode=0o700, exist_ok=True)
    if mounted_fstype(mountpoint) is not None:
        raise ServiceError(f"{mountpoint} is already a mount point")
    passwd = os.path.join(work_dir, "passwd-s3fs")
    descriptor = os.open(passwd, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(f"{access_key}:{secret_key}\n")
    source = f"{bucket}:/{prefix.strip('/')}" if prefix.strip("/") else bucket
    options = ",".join([
        f"passwd_file={passwd}", f"url={endpoint_url}", "use_path_request_style",
        # Another client may change the bucket: keep cached metadata short-lived.
        "stat_cache_expire=1", "dbglevel=warn",
    ])
    log_path = os.path.join(work_dir, LOG_FILE)
    process = spawn(["s3fs", source, mountpoint, "-f", "-o", options], log_path)
    wait_until(lambda: mounted_fstype(mountpoint) == S3FS_FSTYPE, process, "s3fs", log_path,
               timeout=30, secrets=(access_key, secret_key))
    info = {"mountpoint": os.path.realpath(mountpoint), "bucket": bucket, "endpoint_url": endpoint_url,
            "passwd_file": passwd, "log": log_path}
    return record_process(NAME, process, info, {})


def unmount(record: ServiceRecord, timeout: float = 20.0) -> None:
    """Unmount what `mount` mounted, wait for its s3fs process to end, drop the passwd file."""
    client = Process("client", record.pid, record.create_time, record.info["log"])
    try:
        release(record.info["mountpoint"], S3FS_FSTYPE, client, timeout)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.remove(record.info["passwd_file"])


def start(state_dir: str) -> ServiceRecord:
    """Mount the `swiftcloud` bucket of our MinIO (starting MinIO if needed)."""
    existing = running_record(state_dir, NAME)
    if existing is not None:
        return existing
    started_minio = running_record(state_dir, minio.NAME) is None
    server = minio.start(state_dir)
    directory = service_dir(state_dir, NAME)
    try:
        record = mount(
            server.info["bucket"], os.path.join(directory, "mnt"), server.info["endpoint_url"],
            server.secrets["access_key"], server.secrets["secret_key"], directory,
        )
    except BaseException:
        if started_minio:
            minio.stop(state_dir)
        raise
    record.info["started_minio"] = started_minio
    save_record(state_dir, record)
    return record


def stop(state_dir: str) -> bool:
    """Unmount the service's mount point, and stop MinIO if `start` started it."""
    record = load_record(state_dir, NAME)
    if record is None:
        return False
    was_running = is_running(record.pid, record.create_time)
    if was_running:
        unmount(record)
    if record.info.get("started_minio"):
        was_running = minio.stop(state_dir) or was_running
    return was_running


def status(state_dir: str) -> ServiceRecord | None:
    """The mount's record while s3fs runs and the mount is there, or None."""
    record = running_record(state_dir, NAME)
    if record is None or mounted_fstype(record.info["mountpoint"]) != S3FS_FSTYPE:
        return None
    return record
