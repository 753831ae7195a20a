"""Fixtures of the workflow tests: a MinIO for runs of the apps on S3."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from hostkit.errors import MissingDependencyError, StorageConfigError
from storage_adapters.services import start_service, stop_service

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def minio_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The environment of runs whose `--storage s3` is a MinIO started for this module."""
    state = tmp_path_factory.mktemp("minio-state")
    try:
        start_service("minio", str(state))
    except (MissingDependencyError, StorageConfigError) as error:
        pytest.skip(f"MinIO cannot run here: {error}")
    try:
        yield {**os.environ, "PYTHONPATH": str(ROOT), "SWIFTCLOUD_STATE_DIR": str(state)}
    finally:
        stop_service("minio", str(state))
