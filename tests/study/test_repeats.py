"""The study's repeat order, measures and headroom (study/repeats.py), and the workers'
coordination wait (study/coordination.py), on hand-made inputs with known answers."""

from __future__ import annotations

import pytest

from engine.observe.spans import TaskSpan
from study.coordination import worker_gaps, wait_per_worker
from study.repeats import headroom, measure_from, median_index, round_robin


def test_repeats_go_round_robin_over_the_keys() -> None:
    order = round_robin(["a", "b", "c"], lambda key: 3 if key == "c" else 2)
    assert order == [(0, "a"), (0, "b"), (0, "c"), (1, "a"), (1, "b"), (1, "c"), (2, "c")]


def cpu(busy: float) -> dict[str, object]:
    return {"host_busy": busy, "saturated": busy > 0.85}


def test_a_measure_keeps_every_run_that_gave_a_value_and_its_saturation() -> None:
    runs = [{"v": 10.0, "cpu": cpu(0.5)}, {"v": None, "cpu": cpu(0.4)}, {"v": 12.0, "cpu": cpu(0.95)},
            {"v": 11.0, "cpu": cpu(0.6)}, {"v": 13.0, "cpu": cpu(0.7)}]
    measure = measure_from(runs, lambda run: run["v"])
    assert measure["samples"] == [10.0, 12.0, 11.0, 13.0]
    assert measure["saturated"] == [False, True, False, False] and measure["busy"] == [0.5, 0.95, 0.6, 0.7]
    assert measure["median"] == 11.0  # of 10, 11, 13: the saturated 12 is left out
    low, high = measure["ci95"]
    assert 10.0 <= low <= 11.0 <= high <= 13.0
    summary = headroom({"s3": [measure], "local": [measure_from(runs[:2], lambda run: run["v"])]})
    assert summary == {"threshold": 0.85, "repeats": 5, "saturated": 1, "by_store": {"s3": [1, 4], "local": [0, 1]}}


def test_the_median_run_stands_for_its_repeats() -> None:
    assert median_index([5.0, 1.0, 3.0]) == 2
    assert median_index([4.0, 1.0, 3.0, 2.0]) == 3  # the lower middle: 2.0
    with pytest.raises(ValueError):
        median_index([])


def span(worker: int, start: float, end: float) -> TaskSpan:
    return TaskSpan(task=int(start * 10), label="t", worker=worker, node="n", start=start, end=end, ok=True)


def test_coordination_wait_is_each_worker_idle_between_its_tasks() -> None:
    spans = [span(2, 5.0, 6.0), span(1, 0.0, 2.0), span(1, 3.5, 4.0), span(2, 0.5, 1.0), span(1, 2.0, 3.0),
             span(3, 1.0, 9.0)]
    gaps = [(gap.worker, gap.begin, gap.end) for gap in worker_gaps(spans)]
    # worker 1: 0-2, 2-3 (back to back: no gap), 3.5-4 -> 3.0 to 3.5; worker 2: 1.0 to 5.0; worker 3: one task
    assert gaps == [(1, 3.0, 3.5), (2, 1.0, 5.0)]
    assert wait_per_worker(spans) == {1: 0.5, 2: 4.0, 3: 0.0}


def test_overlapping_tasks_on_one_worker_wait_from_the_latest_end() -> None:
    spans = [span(1, 0.0, 5.0), span(1, 1.0, 2.0), span(1, 6.0, 7.0)]
    assert [(gap.begin, gap.end) for gap in worker_gaps(spans)] == [(5.0, 6.0)]


class FakeRunner:
    """Stands in for StudyRunner: records the calls in order and returns a finished run."""

    def __init__(self) -> None:
        from study.workflows import WorkflowOptions

        self.options = WorkflowOptions.quick()
        self.calls: list[tuple[int, str, str]] = []

    def measured(self, tag: str, script: str, table: str, args: list[str], repeat: int) -> dict[str, object]:
        self.calls.append((repeat, tag, table))
        return {"tag": tag, "error": None, "repeat": repeat, "summary": {"makespan_s": float(len(self.calls))},
                "cpu": cpu(0.5)}


def test_the_workflow_runs_are_interleaved_across_stores() -> None:
    from study.workflows import measure_all, measure_from, makespan

    runner = FakeRunner()
    runs = measure_all(runner, ["s3", "hdfs", "s3fs"], 3)  # type: ignore[arg-type]
    per_repeat = [f"{w}-{s}" for w, s in (("blast", "s3"), ("blast", "hdfs"), ("blast", "s3fs"),
                                          ("energyplus", "s3"), ("energyplus", "hdfs"), ("energyplus", "s3fs"),
                                          ("blast", "hdfs-staged"))]
    assert [(repeat, tag) for repeat, tag, _ in runner.calls] == [
        (repeat, f"{name}-r{repeat}") for repeat in (1, 2, 3) for name in per_repeat]
    tables = {tag: table for _, tag, table in runner.calls}
    assert tables["blast-hdfs-r1"] == "hdfs-shared" and tables["blast-hdfs-staged-r1"] == "hdfs"
    measure = measure_from(runs[("blast", "s3", "shared")], makespan)
    assert measure["samples"] == [1.0, 8.0, 15.0] and measure["median"] == 8.0  # one per repeat, in order


def test_the_default_runs_energyplus_on_the_stores_its_claim_compares() -> None:
    """The small default leaves EnergyPlus on s3fs, HDFS and Chirp to --full; BLAST (and its
    staged runs) stays on every store."""
    from dataclasses import replace

    from study.workflows import WorkflowOptions, jobs, measure_all

    stores = ["local", "s3", "s3fs", "mosastore", "hdfs", "chirp"]
    listed = jobs(stores, WorkflowOptions.small())
    assert [store for name, store, _ in listed if name == "energyplus"] == ["local", "s3", "mosastore"]
    assert [store for name, store, mode in listed if name == "blast" and mode == "shared"] == stores
    assert [store for name, store, mode in listed if mode == "staged"] == ["hdfs", "chirp"]
    assert [store for name, store, _ in jobs(stores, WorkflowOptions.full()) if name == "energyplus"] == stores
    runner = FakeRunner()
    runner.options = replace(runner.options, energyplus_stores=("s3",))
    runs = measure_all(runner, ["s3", "hdfs"], 1)  # type: ignore[arg-type]
    assert [tag for _, tag, _ in runner.calls] == ["blast-s3-r1", "blast-hdfs-r1", "energyplus-s3-r1",
                                                   "blast-hdfs-staged-r1"]
    assert ("energyplus", "hdfs", "shared") not in runs
