"""Under CI=true a skipped test fails (tests/ci_rule.py), so no component can be missed silently."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(tmp_path: Path, ci: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text("from tests.ci_rule import pytest_runtest_makereport  # noqa: F401\n")
    (tmp_path / "test_skips.py").write_text("import pytest\n\ndef test_needs_a_server():\n"
                                            "    pytest.skip('MinIO cannot run here')\n")
    env = dict(os.environ, CI=ci, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           "-p", "no:xdist", str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_a_skip_fails_under_ci(tmp_path: Path) -> None:
    done = _run(tmp_path, "true")
    assert done.returncode == 1
    assert "skipped under CI=true" in done.stdout and "MinIO cannot run here" in done.stdout


def test_a_skip_stays_a_skip_elsewhere(tmp_path: Path) -> None:
    done = _run(tmp_path, "")
    assert done.returncode == 0 and "1 skipped" in done.stdout
