"""The report's pure data: spans with phases, summaries, completion curves, overlays, trace events."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import UsageError
from engine.observe.spans import completion_curve, load_run, overlay_data, summarize
from engine.observe.timeline import chrome_trace, timeline_data
from tests.observe.logs import task_records, write_log


def run_a(tmp_path: Path) -> Path:
    """Three tasks on two workers: one with every phase field, one older-style, one without a submit."""
    return write_log(tmp_path / "a", [
        {"event": "run_start", "script": "a.swift", "args": [], "workers": 2, "time": 100.0},
        *task_records(1, 100.0, 100.5, 103.0, worker=0, stage_in_s=0.5, run_s=1.5, stage_out_s=0.25,
                      bytes_in=1000, bytes_out=200),
        *task_records(2, 100.0, 101.0, 102.0, worker=1),
        *task_records(3, None, 103.0, 104.0, worker=0),
        {"event": "run_end", "exit_status": 0, "elapsed": 4.5, "time": 104.5}])


def test_wait_is_start_minus_submit_and_phases_follow_the_start(tmp_path: Path) -> None:
    run = load_run(str(run_a(tmp_path)))
    spans = {s.task: s for s in run.spans}
    assert run.workers == 2 and run.t0 == 100.0 and run.t1 == 104.5
    assert spans[1].wait == 0.5 and spans[2].wait == 1.0 and spans[3].wait == 0.0
    assert spans[1].phases() == [("wait", 100.0, 100.5), ("stage_in", 100.5, 101.0), ("run", 101.0, 102.5),
                                 ("stage_out", 102.5, 102.75)]
    # Without phase fields the whole execution is run; without a submit record there is no wait.
    assert spans[2].phases() == [("wait", 100.0, 101.0), ("run", 101.0, 102.0)]
    assert spans[3].phases() == [("run", 103.0, 104.0)]
    assert spans[1].command == ["app", "1"] and spans[1].bytes_in == 1000 and spans[2].bytes_in is None


def test_summary_sums_phases_and_bytes(tmp_path: Path) -> None:
    run = load_run(str(run_a(tmp_path)))
    figures = summarize(run.spans, run.workers).as_dict()
    assert figures["tasks"] == 3 and figures["failed"] == 0
    assert figures["makespan_s"] == 3.5 and figures["task_seconds"] == 4.5
    assert figures["wait_s_total"] == 1.5 and figures["wait_s_mean"] == 0.5
    assert figures["stage_in_s_total"] == 0.5 and figures["stage_out_s_total"] == 0.25
    assert figures["run_s_total"] == 3.5 and figures["run_s_mean"] == pytest.approx(3.5 / 3, abs=1e-6)
    assert figures["bytes_in"] == 1000 and figures["bytes_out"] == 200 and figures["phased_tasks"] == 1


def test_a_worker_clock_behind_the_engine_counts_as_no_wait(tmp_path: Path) -> None:
    run = load_run(str(write_log(tmp_path / "skew", task_records(1, 10.2, 10.0, 11.0))))
    assert run.spans[0].wait == 0.0 and run.spans[0].phases()[0] == ("wait", 10.0, 10.0)


def test_completion_and_overlay_time_each_run_from_its_first_task_start(tmp_path: Path) -> None:
    a = load_run(str(run_a(tmp_path)))
    b = load_run(str(write_log(tmp_path / "b", task_records(7, 49.0, 50.0, 50.25) + task_records(8, 49.0, 50.5, 52.0))))
    assert completion_curve(a.spans, a.first_start) == [(1.5, 1), (2.5, 2), (3.5, 3)]
    overlay = overlay_data([a, b], ["first", "second"])
    assert [entry["label"] for entry in overlay] == ["first", "second"]
    assert [entry["makespan_s"] for entry in overlay] == [3.5, 2.0]
    assert overlay[1]["completion"] == [[0.25, 1], [2.0, 2]] and overlay[1]["run_dir"] == str(tmp_path / "b")
    with pytest.raises(UsageError, match="1 label"):
        overlay_data([a, b], ["only"])


def test_chrome_trace_has_an_event_per_phase_and_nothing_overlaps_on_a_track(tmp_path: Path) -> None:
    # Three tasks queued at once on one worker: their waits overlap each other and the runs.
    records = [r for i in range(3) for r in task_records(i + 1, 0.0, 1.0 + i, 2.0 + i, stage_in_s=0.25,
                                                         run_s=0.5, stage_out_s=0.25)]
    run = load_run(str(write_log(tmp_path / "q", records)))
    events = [e for e in chrome_trace(run)["traceEvents"] if e["ph"] == "X"]
    assert sorted((e["args"]["task"], e["cat"]) for e in events) == sorted(
        (task, phase) for task in (1, 2, 3) for phase in ("wait", "stage_in", "run", "stage_out"))
    run_events = [e for e in events if e["cat"] == "run"]
    assert {e["tid"] for e in run_events} == {0} and {e["pid"] for e in events} == {1}
    assert sorted(e["ts"] for e in run_events) == [1.25e6, 2.25e6, 3.25e6]
    by_track: dict[int, list[tuple[float, float]]] = {}
    for e in events:
        by_track.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
    assert len(by_track) == 4  # the worker's own track and three wait lanes
    for spans in by_track.values():
        spans.sort()
        assert all(later[0] >= earlier[1] for earlier, later in zip(spans, spans[1:]))


def test_timeline_data_has_a_row_per_worker_and_times_from_the_run_start(tmp_path: Path) -> None:
    data = timeline_data(load_run(str(run_a(tmp_path))))
    assert data["rows"] == ["n1 / worker 0", "n1 / worker 1"]
    task1 = next(t for t in data["tasks"] if t["id"] == 1)
    assert task1["row"] == 0 and task1["submit"] == 0.0 and task1["start"] == 0.5 and task1["end"] == 3.0
    assert [p[0] for p in task1["phases"]] == ["wait", "stage_in", "run", "stage_out"]
    assert task1["command"] == "app 1" and task1["bytes_out"] == 200


@pytest.mark.parametrize("content, message", [
    (None, "no event log"), ("{not json\n", "not valid JSON lines"),
    ('{"event": "start", "task": 1}\n{"event": "end", "task": 1, "time": 2}\n', "not a swiftcloud event log")])
def test_unreadable_logs_are_usage_errors(tmp_path: Path, content: str | None, message: str) -> None:
    if content is not None:
        (tmp_path / "events.jsonl").write_text(content)
    with pytest.raises(UsageError, match=message):
        load_run(str(tmp_path if content is not None else tmp_path / "missing"))
