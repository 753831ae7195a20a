"""`swiftcloud study --compare`: two runs' verdicts side by side, one verdict for both."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from study.compare import combined, load, side_by_side

REPO = Path(__file__).resolve().parents[2]


def case(name: str, verdict: str, measured: str, note: str = "") -> dict[str, Any]:
    return {"name": name, "verdict": verdict, "measured": measured, "note": note, "counted": True}


def run(verdicts: dict[str, str], seconds: float = 2900.0) -> dict[str, Any]:
    claims = [{"key": key, "claim": f"claim {key}", "verdict": verdict, "summary": verdict,
               "cases": [case(f"{key} case", verdict, f"{key} measured {verdict}")],
               "counts": {verdict: 1}} for key, verdict in verdicts.items()]
    return {"mode": "small", "seconds": seconds, "claims": claims}


@pytest.mark.parametrize("first, second, verdict, reason", [
    ("holds", "holds", "holds", ""),
    ("differs", "differs", "differs", ""),
    ("holds (with a larger gain than claimed)", "holds", "holds", ""),
    ("holds", "differs", "inconclusive", "flipped: holds in run 1, differs in run 2"),
    ("differs", "holds", "inconclusive", "flipped: differs in run 1, holds in run 2"),
    ("holds", "inconclusive", "inconclusive", "the runs disagree: holds in run 1, inconclusive in run 2"),
    ("not testable", "differs", "inconclusive", "the runs disagree: not testable in run 1, differs in run 2"),
])
def test_one_verdict_for_two_runs(first: str, second: str, verdict: str, reason: str) -> None:
    assert combined(first, second) == (verdict, reason)


def test_the_table_sets_claims_and_cases_side_by_side() -> None:
    text = side_by_side([run({"a": "holds", "b": "differs", "c": "holds"}),
                         run({"a": "holds", "b": "holds", "c": "inconclusive"}, seconds=3000.0)])
    rows = {line.split(" | ")[0].lstrip("| "): line for line in text.splitlines() if line.startswith("| claim ")}
    assert rows["claim a"].endswith("| **holds** |")
    assert "**inconclusive** (flipped: differs in run 1, holds in run 2)" in rows["claim b"]
    assert "**inconclusive** (the runs disagree: holds in run 1, inconclusive in run 2)" in rows["claim c"]
    assert "| duration | 48 min | 50 min |" in text
    assert "| b case | b measured differs: differs | b measured holds: holds | inconclusive (flipped" in text
    assert "different sizes" not in text


def test_a_claim_missing_from_one_run_is_not_measured_there() -> None:
    text = side_by_side([run({"a": "holds"}), {"mode": "quick", "seconds": 600.0, "claims": []}])
    assert "| claim a | holds (1 holds) | not measured | **inconclusive** (the runs disagree" in text
    assert "different sizes" in text


def test_load_refuses_what_is_not_a_study(tmp_path: Path) -> None:
    (tmp_path / "study.json").write_text(json.dumps({"parts": {}}))
    with pytest.raises(ValueError, match="no claims"):
        load(str(tmp_path))
    with pytest.raises(ValueError, match="not a study's results"):
        load(str(tmp_path / "missing"))


def test_the_command_prints_the_table_and_refuses_a_missing_run(tmp_path: Path) -> None:
    for name, verdict in (("one", "holds"), ("two", "differs")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "study.json").write_text(json.dumps(run({"a": verdict})))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "swiftcloud", "study", "--compare"]
    done = subprocess.run(command + [str(tmp_path / "one"), str(tmp_path / "two")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "**inconclusive** (flipped: holds in run 1, differs in run 2)" in done.stdout
    missing = subprocess.run(command + [str(tmp_path / "one"), str(tmp_path / "none")], env=env,
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "--compare:" in missing.stderr and "Traceback" not in missing.stderr
