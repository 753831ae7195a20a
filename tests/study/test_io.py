"""The study's I/O part on a small emulated cluster: one client per node, released together.

A tiny run (1 MB, two interleaved repeats) over the local reference and the S3, s3fs,
MosaStore and Chirp stores must give every pattern a positive rate, move exactly nodes x
size bytes (twice that for read-after-write), read back on every node what its source held,
record each round's CPU window in its measure, and clean up the nodes' files and its
clients."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cluster.state import ClusterState, cluster_dir, load
from hostkit.errors import ServiceError
from study.io import IoOptions, MB, run
from study.io_node import PATTERNS, WORK_DIR
from tests.cluster.conftest import Cluster, bring_up, pids_in, take_down

ROOT = Path(__file__).resolve().parents[2]
STORES = ["local", "s3", "s3fs", "mosastore", "chirp"]


@pytest.fixture(scope="module")
def small_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    cluster = bring_up(tmp_path_factory.mktemp("io") / "state", "--nodes", "3",
                       "--storage", "mosastore,s3,s3fs,chirp")
    try:
        yield cluster
    finally:
        take_down(cluster)


def test_a_tiny_run_moves_every_nodes_file_and_reads_back_its_source(small_cluster: Cluster, tmp_path: Path) -> None:
    state = load(cluster_dir(str(small_cluster.state)))
    assert isinstance(state, ClusterState)
    before = set(pids_in(small_cluster.record))
    said: list[str] = []
    report = run(state, STORES, IoOptions(sizes_mb=(1,), repeats=2, verify=True), str(tmp_path / "out"), said.append)

    nodes = report["parameters"]["nodes"]
    assert nodes == ["node1", "node2", "node3"]
    assert report["mode"] == "small" and report["parameters"]["sizes_mb"] == [1]
    rows = {(row["store"], row["pattern"]): row for row in report["results"]}
    assert set(rows) == {(store, pattern) for store in STORES for pattern in PATTERNS}
    for (store, pattern), row in rows.items():
        factor = 2 if pattern == "read_after_write" else 1
        first, only = row["rounds"]
        assert [first["repeat"], only["repeat"]] == [0, 1] and row["nodes"] == len(nodes)
        assert row["samples"] == [first["aggregate_mbps"], only["aggregate_mbps"]] and min(row["samples"]) > 0
        assert row["saturated"] == [first["cpu"]["saturated"], only["cpu"]["saturated"]]
        assert row["busy"] == [first["cpu"]["host_busy"], only["cpu"]["host_busy"]]
        assert row["ci95"] is None  # two repeats give no interval
        assert row["median"] is None or min(row["samples"]) <= row["median"] <= max(row["samples"])
        # The round's CPU window covers its timed part.
        assert only["cpu"]["seconds"] >= only["seconds"] - 0.001 and 0 <= only["cpu"]["host_busy"] <= 1
        assert only["bytes"] == len(nodes) * MB * factor, (store, pattern)
        assert only["per_node_bytes"] == {node: MB * factor for node in nodes}
        assert set(only["per_node_mbps"]) == set(nodes) and min(only["per_node_mbps"].values()) > 0
        # The aggregate's time spans every node's own, so it never exceeds the sum of their rates.
        assert only["aggregate_mbps"] <= sum(only["per_node_mbps"].values()) * (1 + 1e-9)
        if pattern != "write":
            assert only["read_sizes"] == {node: MB for node in nodes}
            assert only["verified"] is True, (store, pattern)
    assert report["methods"]["s3"] == "adapter get_file/put_file"
    assert report["methods"]["mosastore"] == report["methods"]["s3fs"] == "copy to/from the mount path"
    room = report["headroom"]
    assert room["repeats"] == 2 * len(STORES) * len(PATTERNS) and set(room["by_store"]) == set(STORES)
    assert room["saturated"] == sum(sum(row["saturated"]) for row in report["results"])

    out = tmp_path / "out"
    assert json.loads((out / "io.json").read_text())["results"][0]["store"] == "local"
    for figure in ("read.png", "write.png", "read_after_write.png", "spread.png"):
        assert (out / figure).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", figure
    for node in nodes:
        assert not os.path.exists(os.path.join(state.directory, "nodes", node, "scratch", WORK_DIR)), node
    assert set(pids_in(small_cluster.record)) <= before, "an I/O client is still running"
    assert any("io: [" in line for line in said)


def test_bad_arguments_are_usage_errors_without_a_traceback() -> None:
    for words in (["--sizes", "ten"], ["--stores", "floppy"], ["--repeats", "0"]):
        done = subprocess.run([sys.executable, "-m", "study.io", *words], cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 2, (words, done.stderr)
        assert "Traceback" not in done.stderr and "usage:" in done.stderr


def test_sizes_that_would_not_fit_on_the_disk_are_refused_before_any_client_starts(small_cluster: Cluster,
                                                                                   tmp_path: Path) -> None:
    state = load(cluster_dir(str(small_cluster.state)))
    assert isinstance(state, ClusterState)
    free_mb = shutil.disk_usage(state.directory).free // MB
    with pytest.raises(ServiceError, match="GB free"):
        run(state, ["local"], IoOptions(sizes_mb=(free_mb,), repeats=1), str(tmp_path / "out"), lambda line: None)
    assert not (tmp_path / "out").exists()
