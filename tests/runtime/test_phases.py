"""Per-task phase times and bytes in the run log's `end` records, from real runs.

A small app workflow over input files of known sizes runs through the CLI with
local worker processes and under MPI (`-n 2`: one engine rank, one worker
rank); every app's `end` record must carry exactly the byte counts of its
declared inputs and outputs (sizes chosen by the test, outputs checked on disk
too) and non-negative phase times that fit inside the attempt, while Python
leaves and worker builtins carry none of the keys.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from engine.scheduler.launch import mpi_installed
from tests.marked import left_after

REPO = Path(__file__).resolve().parents[2]
MARK = "SWIFTCLOUD_TEST_MARK"
PHASE_KEYS = {"stage_in_s", "run_s", "stage_out_s", "bytes_in", "bytes_out"}
SIZE_A, SIZE_B = 70_001, 12_345

SCRIPT = """\
import files;
app (file o) join (file x, file y) { "cat" x y @stdout=o }
app (file o) count (file i) { "wc" "-c" @stdin=i @stdout=o }
app (file o) fails (file i) { "sh" "-c" "exit 3" @stdout=o }
file a = input_file("in/a.bin");
file b = input_file("in/b.bin");
file joined <"out/joined.bin"> = join(a, b);
file counted <"out/count.txt"> = count(joined);
string s = python("", "'leaf'");
trace(s);
sleep(0.01) => trace("slept");
"""


def run_workflow(tmp_path: Path, *options: str, script: str = SCRIPT) -> subprocess.CompletedProcess[str]:
    (tmp_path / "in").mkdir(exist_ok=True)
    (tmp_path / "in" / "a.bin").write_bytes(os.urandom(SIZE_A))
    (tmp_path / "in" / "b.bin").write_bytes(os.urandom(SIZE_B))
    (tmp_path / "w.swift").write_text(script)
    mark = uuid.uuid4().hex
    env = {**os.environ, "PYTHONPATH": str(REPO), MARK: mark}
    try:
        return subprocess.run([sys.executable, "-m", "swiftcloud", "run", *options, "--run-dir", "run",
                               "w.swift"], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300, stdin=subprocess.DEVNULL)
    finally:
        left = left_after(MARK, mark, 5.0)
        for process in left:
            process.kill()
        assert not left, f"processes left behind: {[p.pid for p in left]}"


def end_records(tmp_path: Path) -> dict[str, dict]:
    lines = (tmp_path / "run" / "events.jsonl").read_text().splitlines()
    ends = [record for record in map(json.loads, lines) if record["event"] == "end"]
    return {record["label"]: record for record in ends}


def starts(tmp_path: Path) -> dict[int, float]:
    lines = (tmp_path / "run" / "events.jsonl").read_text().splitlines()
    return {r["task"]: r["time"] for r in map(json.loads, lines) if r["event"] == "start"}


def check_phases(tmp_path: Path) -> None:
    ends = end_records(tmp_path)
    joined = ends["join"]
    counted = ends["count"]
    assert (joined["bytes_in"], joined["bytes_out"]) == (SIZE_A + SIZE_B, SIZE_A + SIZE_B)
    assert (tmp_path / "out" / "joined.bin").stat().st_size == SIZE_A + SIZE_B
    count_text = (tmp_path / "out" / "count.txt").read_bytes()
    assert int(count_text) == SIZE_A + SIZE_B
    assert (counted["bytes_in"], counted["bytes_out"]) == (SIZE_A + SIZE_B, len(count_text))
    began = starts(tmp_path)
    for record in (joined, counted):
        assert record["stage_in_s"] == 0.0 and record["stage_out_s"] == 0.0  # nothing staged
        assert record["run_s"] > 0.0
        assert record["stage_in_s"] + record["run_s"] + record["stage_out_s"] <= record["time"] - began[record["task"]]
    for label in ("python", "sleep"):
        assert not PHASE_KEYS & set(ends[label]), ends[label]


def test_local_workers_log_phases_of_app_tasks_only(tmp_path: Path) -> None:
    result = run_workflow(tmp_path, "-n", "2", "--transport", "local")
    assert result.returncode == 0, result.stderr
    check_phases(tmp_path)


@pytest.mark.skipif(not mpi_installed(), reason="MPI is not installed (setup.d/10-mpi.sh)")
def test_mpi_ranks_log_phases_of_app_tasks_only(tmp_path: Path) -> None:
    result = run_workflow(tmp_path, "-n", "2")
    assert result.returncode == 0, result.stderr
    check_phases(tmp_path)


def test_a_failed_app_logs_its_phases_and_no_output_bytes(tmp_path: Path) -> None:
    script = SCRIPT.replace('file counted <"out/count.txt"> = count(joined);',
                            'file failed <"out/failed.txt"> = fails(a);')
    result = run_workflow(tmp_path, "-n", "2", "--transport", "local", script=script)
    assert result.returncode == 1 and "exited with code: 3" in result.stderr
    failed = end_records(tmp_path)["fails"]
    assert failed["status"] == "failed"
    assert (failed["bytes_in"], failed["bytes_out"]) == (SIZE_A, 0)
    assert failed["run_s"] > 0.0 and not (tmp_path / "out" / "failed.txt").exists()


def test_an_app_with_many_inputs_counts_each_distinct_one_once(tmp_path: Path) -> None:
    # More inputs than SIZE_ON_THREADS_ABOVE: they are sized on threads while the app runs.
    sizes = [1_000 * (k + 1) + k for k in range(12)]
    script = """
app (file o) cat_all (file i[]) { "cat" i @stdout=o }
file parts[];
foreach k in [0:11] { parts[k] = input_file(sprintf("in/p%i.bin", k)); }
parts[12] = input_file("in/p0.bin");
file all <"out/all.bin"> = cat_all(parts);
"""
    (tmp_path / "in").mkdir()
    for k, size in enumerate(sizes):
        (tmp_path / "in" / f"p{k}.bin").write_bytes(os.urandom(size))
    result = run_workflow(tmp_path, "-n", "2", "--transport", "local", script=script)
    assert result.returncode == 0, result.stderr
    ended = end_records(tmp_path)["cat_all"]
    assert ended["bytes_in"] == sum(sizes)  # p0 named twice, counted once
    assert ended["bytes_out"] == (tmp_path / "out" / "all.bin").stat().st_size == sum(sizes) + sizes[0]
