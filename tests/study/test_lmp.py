"""The study's LMP sweep (study/lmp.py) on a real emulated cluster of 3 nodes in 2 regions.

The sweep records durations with a real hourly run, then runs the skeleton workflow with
workers on 2 and on 3 nodes (the third in the remote region), once at 2 and twice at 3 (the
largest count), interleaved. Checked against each run's own log: the workers ran on exactly
the nodes asked for, and lmp.json holds per point the measure of its runs' makespans, each
equal to the log's first task start to last task end.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cluster import lifecycle
from cluster.regions import Region
from cluster.state import ClusterState
from study import lmp
from tests.cluster.conftest import assert_nothing_left, traces

pytest.importorskip("highspy", reason="highspy (HiGHS) is not installed: run setup.d/50-lmps.sh")

REGIONS = (Region("home", nodes=2, node_mbit=400), Region("far", nodes=1, node_mbit=400, rtt_ms=60))
COUNTS = (2, 3)
HOURS = 6


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterState]:
    state = tmp_path_factory.mktemp("lmp-cluster")
    up = lifecycle.up(str(state), 3, REGIONS)
    made = traces(json.loads((state / "cluster" / "cluster.json").read_text()))
    try:
        yield up
    finally:
        assert lifecycle.down(str(state))
        assert_nothing_left(made)


@pytest.fixture(scope="module")
def sweep(cluster: ClusterState, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    out = tmp_path_factory.mktemp("lmp-out")
    options = lmp.LmpOptions("test", hours=HOURS, node_counts=COUNTS, start=4848, repeats=1, top_repeats=2)
    return lmp.run(cluster, ["local"], options, str(out), lambda line: None), out


def log_of(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines() if line]


def runs_of(results: dict[str, Any]) -> list[dict[str, Any]]:
    return [run for point in results["points"] for run in point["runs"]]


def test_one_measure_per_point_as_the_logs_say(sweep: tuple[dict[str, Any], Path]) -> None:
    results, out = sweep
    assert json.loads((out / "lmp.json").read_text())["points"] == results["points"]
    assert results["mode"] == "skeleton" and results["recorded_hours"] == HOURS and results["tasks"] == HOURS
    assert results["home_nodes"] == 2
    assert [(p["store"], p["nodes"], len(p["runs"])) for p in results["points"]] == [("local", 2, 1), ("local", 3, 2)]
    # interleaved: repeat 1 of both counts, then the largest count's repeat 2
    first = {run["run_dir"]: min(e["time"] for e in log_of(out / run["run_dir"])) for run in runs_of(results)}
    assert sorted(first, key=first.__getitem__) == [f"runs/local-k0{k}-r{r}" for k, r in ((2, 1), (3, 1), (3, 2))]
    for point in results["points"]:
        assert point["samples"] == [run["makespan_s"] for run in point["runs"]]
        assert point["saturated"] == [run["cpu"]["saturated"] for run in point["runs"]]
        for run in point["runs"]:
            events = log_of(out / run["run_dir"])
            starts = [e["time"] for e in events if e["event"] == "start"]
            ends = [e["time"] for e in events if e["event"] == "end"]
            assert run["makespan_s"] == pytest.approx(max(ends) - min(starts), abs=2e-3)
            assert run["solve_tasks"] == HOURS and run["failed"] == 0
    headroom = results["headroom"]
    assert headroom["repeats"] == 3 and headroom["by_store"]["local"][1] == 3
    assert (out / lmp.FIGURE).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_workers_run_on_the_nodes_asked_for(sweep: tuple[dict[str, Any], Path], cluster: ClusterState) -> None:
    results, out = sweep
    for run in runs_of(results):
        expected = {node.name for node in cluster.nodes[:run["nodes"]]}
        events = log_of(out / run["run_dir"])
        seen = {e["node"] for e in events if e["event"] in ("end", "dispatch")}
        assert seen == expected and set(run["worker_nodes"]) == expected and run["placement_ok"]
        regions = {node.region for node in cluster.nodes if node.name in expected}
        assert set(run["regions"]) == regions
    assert results["points"][-1]["runs"][0]["regions"] == ["far", "home"]
    assert [bound["first_node"] for bound in results["regions"]] == [1, 3]


def test_each_run_writes_its_own_outputs(sweep: tuple[dict[str, Any], Path]) -> None:
    _, out = sweep
    stores = list((out / "work" / ".swiftcloud" / "store" / "study-lmp").iterdir())
    assert len(stores) == 1
    tags = sorted(p.name for p in stores[0].iterdir())
    assert tags == ["local-k02-r1", "local-k03-r1", "local-k03-r2"]
    for tag in tags:
        chunks = sorted(p.name for p in (stores[0] / tag / "chunks").iterdir())
        assert chunks == [f"hours_{h:05d}.json" for h in range(4848, 4848 + HOURS)]
