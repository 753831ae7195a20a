"""The boto3 S3 client every S3 user here shares: the adapter, and the MinIO starter that makes buckets."""

from __future__ import annotations

from typing import Any

import boto3
from botocore.config import Config


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
    return boto3.session.Session().client(
        "s3", endpoint_url=endpoint_url, aws_access_key_id=access_key,
        aws_secret_access_key=secret_key, region_name=region, config=config,
    )
