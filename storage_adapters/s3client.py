"""The boto3 S3 client every S3 user here shares: the adapter, and the MinIO starter that makes buckets.

Every client of a process comes from one boto3 session: a client made from a fresh session
loads the S3 service's model again (120 ms), one from a session that has it takes 7 ms, and a
process makes several (the check's probe, the adapter's own; a forked worker inherits the
session its engine loaded). Clients are thread-safe, a session is not: they are made under a
lock.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import boto3
from botocore.config import Config

_session: boto3.session.Session | None = None
_session_lock = threading.Lock()


def _new_lock() -> None:
    global _session_lock
    _session_lock = threading.Lock()  # one held by another thread when the process forked stays held


os.register_at_fork(after_in_child=_new_lock)


def make_client(
    endpoint_url: str | None,
    access_key: str,
    secret_key: str,
    region: str = "us-east-1",
    attempts: int = 4,
    connect_timeout: float = 5.0,
) -> Any:
    """A thread-safe boto3 S3 client using path-style addressing (what MinIO expects)."""
    config = Config(
        signature_version="s3v4",
        s3={"addressing_style": "path"},
        connect_timeout=connect_timeout,
        read_timeout=60,
        retries={"max_attempts": attempts, "mode": "standard"},
    )
    global _session
    with _session_lock:
        if _session is None:
            _session = boto3.session.Session()
        return _session.client(
            "s3", endpoint_url=endpoint_url, aws_access_key_id=access_key,
            aws_secret_access_key=secret_key, region_name=region, config=config,
        )
