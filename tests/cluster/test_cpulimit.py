"""A node's CPU share: every process started on it joins its cgroup, and a quota holds it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cluster import cpulimit, lifecycle
from cluster.node_exec import on_node
from cluster.regions import Region
from tests.cluster.conftest import assert_nothing_left, environment, traces

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


# Where an app runs: its host name, the inodes of its network, mount and host-name namespaces,
# its cgroup in the cpu hierarchy, and the command of its rank's parent.
WHERE = """
import os, socket
rank = open(f"/proc/{os.getppid()}/stat").read().rsplit(")", 1)[1].split()[1]
cpu = [line.split(":", 2)[2] for line in open("/proc/self/cgroup").read().splitlines() if line.split(":")[1] == "cpu"]
print(socket.gethostname(), *(os.stat(f"/proc/self/ns/{kind}").st_ino for kind in ("net", "mnt", "uts")), *cpu,
      open(f"/proc/{rank}/cmdline").read().replace("\\0", " "))
"""
WHERE_WORKFLOW = """
app (file o) where (string helper, int i) { "python3" helper i @stdout=o }
foreach i in [1:6] {
  file w <sprintf("where-%i.txt", i)> = where(argv("helper"), i);
}
"""


def test_worker_ranks_forked_on_the_host_run_inside_their_nodes(tmp_path: Path) -> None:
    """`run --cluster`'s worker ranks come from a zygote on the host (engine.scheduler.zygote),
    and each joins its node: its namespaces, and its CPU share's cgroup, which the apps
    it starts are born in."""
    state = tmp_path / "state"
    cluster = lifecycle.up(str(state), 2, (Region("home", 2, 100.0, disk_mbps=0, cpu_cores=1.0),))
    made = traces(json.loads(Path(cluster.path("cluster.json")).read_text()))
    try:
        (tmp_path / "where.py").write_text(WHERE)
        (tmp_path / "where.swift").write_text(WHERE_WORKFLOW)
        run = subprocess.run([sys.executable, "-m", "swiftcloud", "run", "--cluster", "-n", "3", "where.swift",
                              f"--helper={tmp_path / 'where.py'}"], cwd=tmp_path, env=environment(state),
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        nodes = {node.name: node for node in cluster.nodes}
        seen = set()
        for i in range(1, 7):
            host, net, mnt, uts, cpu, *parent = (tmp_path / f"where-{i}.txt").read_text().split()
            node = nodes[host]
            holder = [os.stat(f"/proc/{node.holder_pid}/ns/{kind}").st_ino for kind in ("net", "mnt", "uts")]
            assert [int(net), int(mnt), int(uts)] == holder, (host, net, mnt, uts, holder)
            assert node.cpu_cgroup.endswith(cpu), (cpu, node.cpu_cgroup)
            assert parent[-2:] == ["-m", "engine.scheduler.zygote"], parent
            seen.add(host)
        assert seen == set(nodes)  # both nodes' worker ranks ran apps
    finally:
        lifecycle.down(str(state))
    assert_nothing_left(made)
