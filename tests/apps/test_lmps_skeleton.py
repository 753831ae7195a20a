"""Hourly LMP tasks, their recorded durations, and skeleton mode (apps/lmps --skeleton).

One real run of 6 hours in one-hour chunks is recorded; its durations file is checked
against the run log and the real output files. Skeleton runs of the same hours, on local
paths and staged through a real MinIO, must then write every output under the real name
with exactly the recorded size, take at least each task's recorded computation time (a
lower bound only: a loaded machine can only be slower), and show in each chunk's header the sizes and
SHA-256 hashes of the inputs they read, which must equal those of the run's own inputs.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


pytest.importorskip("highspy", reason="highspy (HiGHS) is not installed: run setup.d/50-lmps.sh")

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "apps" / "lmps" / "lmps.swift"
START, HOURS = 4848, 6
HOUR_ARGS = ["--chunk=1", f"--hours={HOURS}", f"--start={START}"]


def swiftcloud(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = env or {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "swiftcloud", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def solve_records(run_dir: Path, module: str) -> dict[int, dict[str, Any]]:
    """Per first hour: the start and end records of the solve tasks whose command names `module`."""
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines() if line]
    starts = {e["task"]: e for e in events if e["event"] == "start" and isinstance(e["command"], list)
              and "--first" in e["command"] and any(word.endswith(module) for word in e["command"])}
    found = {}
    for end in (e for e in events if e["event"] == "end" and e["task"] in starts):
        command = starts[end["task"]]["command"]
        found[int(command[command.index("--first") + 1])] = {"start": starts[end["task"]], "end": end}
    return found


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real hourly run and the durations file written from it with the CLI."""
    cwd = tmp_path_factory.mktemp("lmps-real")
    done = swiftcloud(["run", "-n", "3", "--run-dir", "run", str(WORKFLOW), *HOUR_ARGS, "--out=out"], cwd)
    assert done.returncode == 0, done.stderr
    written = subprocess.run([sys.executable, "-m", "apps.lmps.durations", "run", "-o", "durations.json"], cwd=cwd,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60)
    assert written.returncode == 0, written.stderr
    return {"cwd": cwd, "durations": json.loads((cwd / "durations.json").read_text()),
            "path": cwd / "durations.json"}


def test_hourly_real_run_solves_every_hour(recorded: dict[str, Any]) -> None:
    out = recorded["cwd"] / "out"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["hours"] == HOURS and summary["first_hour"] == START
    assert sorted(p.name for p in (out / "chunks").iterdir()) == [f"hours_{h:05d}.json" for h in
                                                                  range(START, START + HOURS)]


def test_durations_match_the_run_log(recorded: dict[str, Any]) -> None:
    cwd, durations = recorded["cwd"], recorded["durations"]
    log = solve_records(cwd / "run", "apps.lmps.solve_chunk")
    assert sorted(log) == list(range(START, START + HOURS))
    assert [task["first"] for task in durations["tasks"]] == sorted(log)
    for task in durations["tasks"]:
        records = log[task["first"]]
        expected = records["end"].get("run_s", records["end"]["time"] - records["start"]["time"])
        assert task["seconds"] == pytest.approx(expected, abs=1e-6)
        assert task["hours"] == [task["first"]] and task["count"] == 1
        chunk = cwd / "out" / "chunks" / f"hours_{task['first']:05d}.json"
        assert task["output_bytes"] == chunk.stat().st_size
        timing = json.loads(chunk.read_text())["timing"]  # the task's own split of its time
        assert task["compute_s"] == pytest.approx(timing["compute_s"], abs=1e-6) and task["compute_s"] > 0
        assert task["read_s"] == pytest.approx(timing["read_s"], abs=1e-6)
        assert task["compute_s"] + task["read_s"] + task["write_s"] == pytest.approx(task["seconds"], abs=1e-5)
    assert durations["prepare_model"]["output_bytes"] == (cwd / "out" / "model.json").stat().st_size
    assert durations["recorded_hours"] == HOURS and "cycle" in durations["reuse"]


def check_skeleton_outputs(out: Path, run_dir: Path, durations: dict[str, Any]) -> None:
    """Real names, recorded sizes, at least the recorded time, inputs really read."""
    assert (out / "model.json").stat().st_size == durations["prepare_model"]["output_bytes"]
    inputs = {name: {"bytes": (out / name).stat().st_size, "sha256": sha256(out / name)}
              for name in ("model.json", "profile.csv")}
    log = solve_records(run_dir, "skeleton_chunk.py")
    assert sorted(log) == list(range(START, START + HOURS))
    for task in durations["tasks"]:
        chunk = out / "chunks" / f"hours_{task['first']:05d}.json"
        assert chunk.stat().st_size == task["output_bytes"]
        header = json.loads(chunk.read_bytes().split(b"\n", 1)[0])
        assert header["mode"] == "skeleton" and header["hours"] == [task["first"]]
        assert {item["name"]: {"bytes": item["bytes"], "sha256": item["sha256"]} for item in header["inputs"]} == inputs
        records = log[task["first"]]
        assert records["end"]["time"] - records["start"]["time"] >= task["compute_s"]
        assert header["compute_s"] == task["compute_s"] and header["read_s"] >= 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mode"] == "skeleton" and summary["hours"] == HOURS


def test_skeleton_run_on_local_paths(recorded: dict[str, Any], tmp_path: Path) -> None:
    done = swiftcloud(["run", "-n", "3", "--storage", "local", "--run-dir", "run", str(WORKFLOW), *HOUR_ARGS,
                       f"--skeleton={recorded['path']}", "--out=out"], tmp_path)
    assert done.returncode == 0, done.stderr
    out = tmp_path / ".swiftcloud" / "store" / "out"  # the local store's default root
    assert not (out / "lmp.csv").exists(), "a skeleton run wrote real result tables"
    check_skeleton_outputs(out, tmp_path / "run", recorded["durations"])


def test_skeleton_run_staged_through_s3(recorded: dict[str, Any], minio_env: dict[str, str], tmp_path: Path) -> None:
    out = f"out/lmps-skeleton-{tmp_path.name}"
    done = swiftcloud(["run", "-n", "3", "--storage", "s3", "--run-dir", "run", str(WORKFLOW), *HOUR_ARGS,
                       f"--skeleton={recorded['path']}", f"--out={out}"], tmp_path, minio_env)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / out).exists(), "the staged run wrote its outputs outside the store"
    got = swiftcloud(["get", "--storage", "s3", out, str(tmp_path / "fetched")], tmp_path, minio_env)
    assert got.returncode == 0, got.stderr
    check_skeleton_outputs(tmp_path / "fetched", tmp_path / "run", recorded["durations"])


def test_hours_beyond_the_recording_reuse_it_in_a_cycle(recorded: dict[str, Any], tmp_path: Path) -> None:
    from apps.lmps.skeleton_chunk import recorded_solve

    durations = recorded["durations"]
    assert recorded_solve(durations, START + 2)["first"] == START + 2
    assert recorded_solve(durations, START + HOURS + 1)["first"] == START + 1
    assert recorded_solve(durations, START - 1)["first"] == START + HOURS - 1
