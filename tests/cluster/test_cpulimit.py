"""A node's CPU share: every process started on it joins its cgroup, and a quota holds it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cluster import cpulimit, lifecycle
from cluster.regions import Region
from tests.cluster.conftest import assert_nothing_left, traces

# Burns CPU for 1.5 s of wall time; prints the CPU seconds it got per wall second.
BURN = ("import time\nwall, cpu = time.monotonic(), time.process_time()\n"
        "while time.monotonic() - wall < 1.5: pass\n"
        "print((time.process_time() - cpu) / (time.monotonic() - wall))")


def _throttled(directory: str) -> int:
    with open(Path(directory) / ("cpu.stat"), encoding="ascii") as stat:
        fields = dict(line.split() for line in stat)
    return int(fields.get("nr_throttled", 0))


def test_a_node_quota_holds_its_processes_to_their_share(tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    cluster = lifecycle.up(state, 1, (Region("home", 1, 100.0, disk_mbps=0, cpu_cores=0.25),))
    made = traces(json.loads(Path(cluster.path("cluster.json")).read_text()))
    node = cluster.nodes[0]
    try:
        assert cpulimit.quota(node.cpu_cgroup) == 0.25
        from cluster.node_exec import on_node
        import subprocess

        before = _throttled(node.cpu_cgroup)
        share = float(subprocess.run(on_node(node, [sys.executable, "-c", BURN]), capture_output=True, text=True,
                                     check=True).stdout)
        assert 0.1 <= share <= 0.33, share  # a quarter of a core, give or take the scheduler's period
        assert _throttled(node.cpu_cgroup) > before  # the quota, not other load, held it back
        cpulimit.set_quota(node.cpu_cgroup, None)
        assert cpulimit.quota(node.cpu_cgroup) is None
        before = _throttled(node.cpu_cgroup)
        subprocess.run(on_node(node, [sys.executable, "-c", BURN]), capture_output=True, check=True)
        assert _throttled(node.cpu_cgroup) == before  # no quota: never throttled
    finally:
        lifecycle.down(state)
    assert_nothing_left(made)
    assert not Path(made["cgroup"][0]).exists()
