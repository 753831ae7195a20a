"""A MinIO S3 server on 127.0.0.1 for the s3 and s3fs backends.

`start` runs `minio server` on two free loopback ports (API and console) with
root credentials generated once and kept in the state file, waits for the
health endpoint, and creates the default bucket `swiftcloud`. Started again in
the same state directory, it takes the ports it had if they are free: clients
that were using it (a run's workers, a config naming its endpoint) reconnect to
the restarted server as to a real one. The binary is
found through `$SWIFTCLOUD_MINIO`, `$SWIFTCLOUD_TOOLS_BIN`, `PATH`,
`/opt/swiftcloud/bin` (where setup.d/20-storage.sh builds it) or `~/go/bin`.
"""

from __future__ import annotations

import os
import secrets
import shutil
import urllib.error
import urllib.request

from hostkit.errors import MissingDependencyError, ServiceError
from hostkit.ports import LOOPBACK, bindable, free_port
from hostkit.processes import spawn, stop_process, wait_until
from hostkit.records import (
    LOG_FILE,
    ServiceRecord,
    load_record,
    record_process,
    running_record,
    save_record,
    service_dir,
)

NAME = "minio"
DEFAULT_BUCKET = "swiftcloud"
SEARCH_PATHS = ("/opt/swiftcloud/bin/minio", os.path.expanduser("~/go/bin/minio"))


def find_binary() -> str:
    """The MinIO server binary, or a MissingDependencyError saying how to build it."""
    tools_bin = os.environ.get("SWIFTCLOUD_TOOLS_BIN")
    candidates = [
        os.environ.get("SWIFTCLOUD_MINIO"), tools_bin and os.path.join(tools_bin, "minio"),
        shutil.which("minio"), *SEARCH_PATHS,
    ]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise MissingDependencyError(
        "the MinIO server binary was not found (looked at $SWIFTCLOUD_MINIO, $SWIFTCLOUD_TOOLS_BIN, PATH, "
        f"{', '.join(SEARCH_PATHS)}); build it with: bash setup.d/20-storage.sh"
    )


# Loopback must never go through an HTTP proxy configured in the environment.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def healthy(port: int, host: str = LOOPBACK) -> bool:
    """Does the MinIO at host:port answer its liveness check?"""
    try:
        with _DIRECT.open(f"http://{host}:{port}/minio/health/live", timeout=1) as reply:
            return reply.status == 200
    except (urllib.error.URLError, OSError):
        return False


def new_credentials() -> dict[str, str]:
    """Fresh root credentials for a new MinIO data directory."""
    return {"access_key": "swiftcloud-" + secrets.token_hex(4), "secret_key": secrets.token_urlsafe(24)}


def server_environment(credentials: dict[str, str]) -> dict[str, str]:
    """What `minio server` reads from its environment: the root credentials, no browser, no updates."""
    return {"MINIO_ROOT_USER": credentials["access_key"], "MINIO_ROOT_PASSWORD": credentials["secret_key"],
            "MINIO_BROWSER": "off", "MINIO_UPDATE": "off"}


def server_argv(binary: str, data_dir: str, host: str, port: int, console_port: int) -> list[str]:
    return [binary, "server", data_dir, "--address", f"{host}:{port}", "--console-address",
            f"{host}:{console_port}", "--quiet"]


def start(state_dir: str) -> ServiceRecord:
    """Start MinIO (or return the running one) and make sure the default bucket exists."""
    existing = running_record(state_dir, NAME)
    if existing is not None:
        return existing
    binary = find_binary()
    directory = service_dir(state_dir, NAME)
    previous = load_record(state_dir, NAME)
    # Keep the credentials of an earlier run: the data directory was created with them.
    credentials = previous.secrets if previous else new_credentials()
    env = {**os.environ, **server_environment(credentials)}
    log_path = os.path.join(directory, LOG_FILE)
    hidden = tuple(credentials.values())
    earlier = (previous.info.get("port"), previous.info.get("console_port")) if previous else (None, None)
    for attempt in range(3):
        if attempt == 0 and all(isinstance(p, int) and bindable(p) for p in earlier):
            port, console_port = earlier  # type: ignore[assignment]
        else:
            port, console_port = free_port(), free_port()
        argv = server_argv(binary, os.path.join(directory, "data"), LOOPBACK, port, console_port)
        process = spawn(argv, log_path, env)
        try:
            wait_until(lambda: healthy(port), process, "MinIO", log_path, timeout=60, secrets=hidden)
            break
        except ServiceError:
            # Another program may have taken a port between our probe and MinIO's bind.
            if attempt == 2:
                raise
    endpoint = f"http://{LOOPBACK}:{port}"
    record = record_process(
        NAME, process,
        {"endpoint_url": endpoint, "port": port, "console_port": console_port, "bucket": DEFAULT_BUCKET,
         "data_dir": os.path.join(directory, "data"), "log": log_path},
        credentials,
    )
    save_record(state_dir, record)
    try:
        create_bucket(record, DEFAULT_BUCKET)
    except BaseException:
        stop_process(record.pid, record.create_time)
        raise
    return record


def create_bucket(record: ServiceRecord, bucket: str, endpoint_url: str | None = None) -> None:
    """Create `bucket` on the MinIO of `record` (reached at `endpoint_url`, else the one it
    records) if it is not there yet."""
    from storage_adapters.s3client import make_client

    client = make_client(endpoint_url or record.info["endpoint_url"], record.secrets["access_key"],
                         record.secrets["secret_key"])
    existing = {entry["Name"] for entry in client.list_buckets().get("Buckets", [])}
    if bucket not in existing:
        client.create_bucket(Bucket=bucket)


def stop(state_dir: str) -> bool:
    """Stop our MinIO; its data and credentials stay for the next start."""
    record = load_record(state_dir, NAME)
    return record is not None and stop_process(record.pid, record.create_time)


def status(state_dir: str) -> ServiceRecord | None:
    """The running MinIO's record, or None."""
    return running_record(state_dir, NAME)
