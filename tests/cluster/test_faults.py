"""The storage fault matrix (cluster/fault_matrix.py) on a 4-node cluster with MosaStore, HDFS, Chirp
and S3: in every cell, a daemon killed with SIGKILL under a 101-task workflow (bench/faults.py's
has 201), and the workflow either completes, or stops with an error naming the store's mount,
the node and the file, then completes with `--resume` once the daemon is back. Either way its
outputs are byte for byte a clean run's (digests computed independently) and `swiftcloud
verify` reads them back whole from the store; no run prints a traceback or leaves a temporary
visible."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from cluster import faults
from cluster.state import ClusterState, load
from cluster.fault_matrix import CELLS, NODES, STORAGE, Cell, Matrix
from tests.cluster.conftest import Cluster, bring_up, take_down

# What a stopped run's error names beyond the task and the store (`cluster.fault_matrix` checks
# those): the server that was gone, or the client that died.
NAMES = {("mosastore", "benefactor", "node3"): "10.231.1.13:7100",
         ("hdfs-r1", "datanode", "node3"): "(its data is on node3)",
         ("mosastore", "client", "node2"): "on node2: Transport endpoint is not connected (its client has died"}
# ... and the file, where a reader failed: the input it could not read.
READER = re.compile(r"app function 'digest' \(task \d+\) failed")
INPUT = re.compile(r"input data/\d+\.dat cannot be read|'data/\d+\.dat' \(its data is on node3\) could not be read")
WRITERS = 50  # half the benchmark's workflow: the cells' outcomes are the same, in less time
# One zone, and S3 2 ms away rather than 20: the S3 cell makes thousands of requests.
REGIONS = """\
[[region]]
name = "zone-a"
nodes = 4
node_mbit = 400
rtt_ms = 0
s3_rtt_ms = 2
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    cluster = bring_up(tmp_path_factory.mktemp("faults"), "--nodes", str(NODES), "--storage", ",".join(STORAGE),
                       regions=REGIONS)
    try:
        yield cluster
    finally:
        take_down(cluster)


@pytest.fixture(scope="module")
def matrix(cluster: Cluster) -> Matrix:
    record = load(str(cluster.state / "cluster"))
    assert record is not None
    return Matrix(record, str(cluster.state), str(cluster.state / "work"), writers=WRITERS)


@pytest.mark.parametrize("cell", CELLS, ids=[f"{cell.table}-{cell.role}-{cell.node}" for cell in CELLS])
def test_a_killed_daemon_loses_no_data(matrix: Matrix, cell: Cell) -> None:
    outcome = matrix.run(cell)
    assert not outcome.problems, "\n".join(outcome.problems)
    assert outcome.outcome == cell.expect, outcome.error
    if (cell.table, cell.role, cell.node) in NAMES:
        assert NAMES[cell.table, cell.role, cell.node] in outcome.error, outcome.error
        if cell.role != "client" and READER.search(outcome.error):
            assert INPUT.search(outcome.error), outcome.error


def test_a_restarted_daemon_replaces_the_dead_one_in_both_records(matrix: Matrix) -> None:
    """`cluster.faults`: the restarted process is what the store's record and the cluster's
    record name (so `down`, checked by the fixture, ends it)."""
    cluster: ClusterState = matrix.cluster
    before = faults.find(cluster, "chirp", "chirp", "node2")
    killed = faults.kill(cluster, "chirp", "chirp", "node2")
    assert not before.running()
    after = faults.restart(cluster, killed)
    assert after.running() and after.pid != before.pid and after.port == before.port
    assert faults.find(cluster, "chirp", "chirp", "node2") == after
    reloaded = load(cluster.directory)
    assert reloaded is not None and any(entry["pid"] == after.pid for entry in reloaded.processes)
