"""Under `CI=true` a skipped test fails instead: setup installs every component the suite
uses (MinIO, s3fs-fuse, sshd, MPI, FUSE, BLAST+, EnergyPlus, ...), so a test that skips
there hides a missing install step (issue 16). A hook of tests/conftest.py."""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, None, None]:
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI") == "true" and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, where setup installs every component: {reason}"
