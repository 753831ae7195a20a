"""`swiftcloud report`: per-run files, --json figures, --overlay, and clear usage errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from engine.observe.plots import draw_overlay
from engine.observe.spans import load_run, overlay_data
from tests.observe.logs import task_records, write_log

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG"


def swiftcloud(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "swiftcloud", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    slow = write_log(tmp_path / "slow", task_records(1, 0.0, 1.0, 3.0, stage_in_s=0.5, run_s=1.0,
                                                     stage_out_s=0.5, bytes_in=10, bytes_out=20)
                     + task_records(2, 0.0, 1.0, 4.0, worker=1))
    fast = write_log(tmp_path / "fast", task_records(1, 5.0, 5.5, 6.0) + task_records(2, 5.0, 5.5, 6.5, worker=1))
    return slow, fast


def test_json_figures_include_phases_and_every_file_is_written(tmp_path: Path) -> None:
    slow, _ = two_runs(tmp_path)
    result = swiftcloud("report", "slow", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["run_dir"] == "slow" and figures["tasks"] == 2 and figures["makespan_s"] == 3.0
    assert figures["wait_s_total"] == 2.0 and figures["stage_in_s_total"] == 0.5 and figures["run_s_total"] == 4.0
    assert figures["bytes_in"] == 10 and figures["bytes_out"] == 20
    for name in ("trace.png", "completion.png"):
        assert (slow / name).read_bytes()[:4] == PNG
    assert "timeline.html" in (slow / "report.html").read_text()
    assert len([e for e in json.loads((slow / "trace.json").read_text())["traceEvents"] if e["ph"] == "X"]) == 6


def test_overlay_from_the_command_line_labels_runs_by_directory(tmp_path: Path) -> None:
    two_runs(tmp_path)
    result = swiftcloud("report", "slow", "fast", "--no-plots", "--overlay", "cmp", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    overlay = json.loads((tmp_path / "cmp" / "overlay.json").read_text())["runs"]
    assert [(r["label"], r["makespan_s"]) for r in overlay] == [("slow", 3.0), ("fast", 1.0)]
    assert overlay[1]["completion"] == [[0.5, 1], [1.0, 2]]
    assert not (tmp_path / "slow" / "trace.png").exists()
    for name in ("overlay_completion.png", "overlay_makespan.png"):
        assert (tmp_path / "cmp" / name).read_bytes()[:4] == PNG


def test_draw_overlay_is_importable_with_labels(tmp_path: Path) -> None:
    runs = [load_run(str(path)) for path in two_runs(tmp_path)]
    paths = draw_overlay(runs, ["s3", "mosastore"], str(tmp_path / "out"))
    assert sorted(paths) == ["overlay.json", "overlay_completion.png", "overlay_makespan.png"]
    assert json.loads(Path(paths["overlay.json"]).read_text())["runs"] == json.loads(
        json.dumps(overlay_data(runs, ["s3", "mosastore"])))


def test_usage_errors_say_what_is_wrong_and_exit_2(tmp_path: Path) -> None:
    two_runs(tmp_path)
    (tmp_path / "a-file").write_text("")
    cases = [(("report", "nowhere"), "no event log in nowhere"),
             (("report", "a-file"), "no event log in a-file"),
             (("report", "slow", "--labels", "x"), "--labels goes with --overlay"),
             (("report", "slow", "fast", "--overlay", "o", "--labels", "x"), "one non-empty label per run (2)"),
             (("report", "slow", "fast", "--overlay", "o", "--labels", "x,"), "one non-empty label per run")]
    for args, message in cases:
        result = swiftcloud(*args, cwd=tmp_path)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert not (tmp_path / "o").exists()
    unwritable = swiftcloud("report", "slow", "--overlay", "a-file/out", cwd=tmp_path)
    assert unwritable.returncode == 1 and "cannot write the report a-file/out: Not a directory" in unwritable.stderr
