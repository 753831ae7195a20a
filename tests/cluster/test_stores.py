"""Every store the cluster can start, on nodes in two regions (issue 12): MosaStore (a benefactor
and a client per node), S3 (MinIO in its own namespace, reached through the delay line),
HDFS (a DataNode per node) and Chirp (a chirp_server per node). One workflow runs on each
with a worker on every node, the remote one included, and gives the outputs of a run on plain local
paths; every file that names its writer's node is read on another node. Where the tasks run is the
scheduler's choice (batching and data-aware placement may keep them on one node): the test reads
it from the run log rather than requiring a spread."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cluster.state import S3_ADDRESS
from storage_adapters.chirp import service as chirp
from tests.cluster.conftest import Cluster, bring_up, environment, take_down

WORKFLOW = """
import files;
app (file o) numbers (int i) { "seq" i (i + 30) @stdout=o }
app (file o) reverse (file i) { "sort" "-rn" @stdin=i @stdout=o }
app (file o) node () { "printenv" "SWIFTCLOUD_NODE" @stdout=o }
foreach i in [1:9] {
  file n <sprintf("out/numbers-%i.txt", i)> = numbers(i);
  file r <sprintf("out/reversed-%i.txt", i)> = reverse(n);
  file e <sprintf("out/node-%i.txt", i)> = node();
  trace(i, read(r), read(e));
}
"""
REGIONS = """
[[region]]
name = "home"
nodes = 2
node_mbit = 200

[[region]]
name = "far"
nodes = 1
node_mbit = 100
rtt_ms = 20
"""


@pytest.fixture(scope="module")
def two_regions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    state = tmp_path_factory.mktemp("two-regions")
    cluster = bring_up(state, "--nodes", "3", "--storage", "mosastore,s3,hdfs,chirp", regions=REGIONS)
    chirp_data = chirp.data_directory(str(state / "cluster" / "services"), "node1")
    try:
        yield cluster
    finally:
        take_down(cluster)
        assert not Path(chirp_data).exists(), f"chirp_server data left in {chirp_data}"


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    here = tmp_path_factory.mktemp("reference")
    (here / "flow.swift").write_text(WORKFLOW)
    run = subprocess.run([sys.executable, "-m", "swiftcloud", "run", "--transport", "local", "-n", "3", "flow.swift"],
                         cwd=here, env=environment(here), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return here / "out"


@pytest.mark.parametrize("store", ["mosastore", "s3", "hdfs", "chirp"])
def test_a_store_on_the_cluster_gives_the_outputs_of_local_paths(two_regions: Cluster, reference: Path,
                                                                store: str, tmp_path: Path) -> None:
    (tmp_path / "flow.swift").write_text(WORKFLOW)
    run = two_regions.swiftcloud("run", "--cluster", "-n", "4", "--storage", store, "--run-dir", str(tmp_path / "run"),
                                 "flow.swift", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    def fetch(node: str, name: str) -> bytes:
        got = two_regions.on_node(node, sys.executable, "-m", "swiftcloud", "get", "--storage", store,
                                  f"out/{name}", str(tmp_path / name))
        assert got.returncode == 0, got.stderr
        return (tmp_path / name).read_bytes()

    writers = {}
    for i in range(1, 10):
        assert fetch("node2", f"reversed-{i}.txt") == (reference / f"reversed-{i}.txt").read_bytes()
        writer = fetch("node2", f"node-{i}.txt").decode().strip()
        if writer == "node2":  # read it where it was not written too: the far region's node
            assert fetch("node3", f"node-{i}.txt").decode().strip() == writer
        writers[i] = writer
    events = [json.loads(line) for line in (tmp_path / "run" / "events.jsonl").read_text().splitlines()]
    nodes = {event["node"] for event in events if event.get("event") == "start"}
    assert nodes and nodes <= {"node1", "node2", "node3"}, nodes
    # Each file names a node the scheduler recorded for a task of its run.
    assert set(writers.values()) <= nodes, writers


def test_every_node_reaches_the_services_at_their_own_addresses(two_regions: Cluster) -> None:
    record = two_regions.record
    home, far = record["nodes"][0], record["nodes"][2]
    for name, where in (("s3", S3_ADDRESS), ("hdfs-namenode", home["address"]), ("chirp-server", home["address"])):
        for node in ("node2", "node3"):  # home, and the far region
            assert two_regions.on_node(node, "getent", "hosts", name).stdout.split()[0] == where, (name, node)
    assert far["region"] == "far"
