"""A job's own store across several nodes: `batch.store_node` as one MPI rank per emulated node.

The trial Slurm has one node, so the many-node side of `submit --storage mosastore`
(the manager on the first node, a benefactor and a mount on every node, rank 0
learning of every node's start) is tested here, on the emulated cluster, with the
same program the job's driver starts under `srun --ntasks-per-node=1`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from batch.store_node import READY_FILE, STOP_FILE
from cluster.launch import NETWORK_ONLY, node_environment, per_node
from cluster.node_exec import SHARED_SCRATCH
from cluster.state import cluster_dir, load
from engine.scheduler.launch import venv_mpiexec
from mosastore.auth import new_secret, write_secret_file
from tests.cluster.conftest import Cluster, bring_up, take_down

NODES = ("node1", "node2", "node3")


@pytest.fixture(scope="module")
def cluster3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    cluster = bring_up(tmp_path_factory.mktemp("cluster3"), "--nodes", "3")
    try:
        yield cluster
    finally:
        take_down(cluster)


def wait_for(path: Path, step: subprocess.Popen[str], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert step.poll() is None, step.communicate()[0]
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.1)


def mounts_on(cluster: Cluster, node: str) -> str:
    return cluster.on_node(node, "cat", "/proc/mounts").stdout


def test_the_store_spans_every_node_and_ends_on_every_node(cluster3: Cluster, tmp_path: Path) -> None:
    state = load(cluster_dir(str(cluster3.state)))
    assert [node.name for node in state.nodes] == list(NODES)
    shared = tmp_path / "store"
    shared.mkdir(mode=0o700)
    write_secret_file(str(shared / "secret"), new_secret())
    node_dir = os.path.join(state.path(SHARED_SCRATCH), "job-store")  # node-local: each node has its own
    argv = per_node(state, [sys.executable, "-m", "batch.store_node", "mosastore",
                            "--mpi", "--node-dir", node_dir, "--shared-dir", str(shared)], venv_mpiexec())
    step = subprocess.Popen(argv, env={**cluster3.env, **NETWORK_ONLY, **node_environment(state)}, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        wait_for(shared / READY_FILE, step)
        outcome = json.loads((shared / READY_FILE).read_text())
        assert "error" not in outcome, outcome
        table = outcome["table"]
        assert table["manager"].split(":")[0] == state.nodes[0].address  # the head is the first node
        assert sorted(p.name for p in shared.glob("*-benefactor.log")) == [f"{n}-benefactor.log" for n in NODES]
        mount = table["mount_path"]
        for node in NODES:
            assert f"{mount} fuse.mosastore" in mounts_on(cluster3, node)
        written = cluster3.on_node("node2", sys.executable, "-c",
                                   f"open({mount + '/from-node2.txt'!r}, 'w').write('seen from node2\\n' * 5000)")
        assert written.returncode == 0, written.stderr
        for node in ("node1", "node3"):
            read = cluster3.on_node(node, "cat", f"{mount}/from-node2.txt")
            assert read.stdout == "seen from node2\n" * 5000
    finally:
        (shared / STOP_FILE).touch()
        output, _ = step.communicate(timeout=120)
    assert step.returncode == 0, output
    for node in NODES:
        # This mount only: a node's mount table also shows the host's (its namespace is the
        # host's slave), where other tests may have stores of their own mounted meanwhile.
        assert f"{mount} fuse.mosastore" not in mounts_on(cluster3, node)
        assert cluster3.on_node(node, "ls", node_dir).returncode != 0  # the node-local directory is gone
