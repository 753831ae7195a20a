"""Fixtures for the emulated-cluster tests: a cluster brought up with the real CLI, and the
check that `down` left nothing of it behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from cluster.launch import runs_environment

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Cluster:
    """A cluster that is up: its state directory, environment for commands, and record."""

    state: Path
    env: dict[str, str]

    @property
    def record(self) -> dict:
        return json.loads((self.state / "cluster" / "cluster.json").read_text())

    def swiftcloud(self, *words: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "swiftcloud", *words], cwd=cwd or self.state, env=self.env,
                              capture_output=True, text=True, timeout=timeout)

    def on_node(self, node: str, *argv: str) -> subprocess.CompletedProcess[str]:
        return self.swiftcloud("cluster", "exec", node, "--", *argv)


def environment(state: Path) -> dict[str, str]:
    return {**runs_environment(str(state)), "PYTHONPATH": str(ROOT)}


def traces(record: dict) -> dict[str, list]:
    """What a cluster made, from its record: namespaces, link names, processes, the directory,
    the nodes' disks' throttle rules (MAJ:MIN) and cgroup."""
    pids = [(node["holder_pid"], node["holder_create_time"]) for node in record["nodes"]]
    pids += [(entry["pid"], entry["create_time"]) for entry in record["processes"]]
    return {"namespaces": [node["namespace"] for node in record["nodes"]] + [record["s3_namespace"], record["hub"]],
            "links": [node["hub_end"] for node in record["nodes"]], "pids": pids,
            "directory": [record["directory"]], "rules": [disk["rule"] for disk in record.get("disks", [])],
            "cgroup": [path for path in (record.get("cgroup"), record.get("cpu_cgroup")) if path]}


def assert_nothing_left(made: dict[str, list], also_pids: list[int] = ()) -> None:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    left = [name for name in made["namespaces"] if name in listed.split()]
    assert not left, f"namespaces left: {left}"
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True, check=True).stdout
    assert not [name for name in made["links"] if name in links], "links left in the host's namespace"
    for pid, create_time in made["pids"]:
        try:
            process = psutil.Process(pid)
            alive = abs(process.create_time() - create_time) < 0.01 and process.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            alive = False
        assert not alive, f"process {pid} of the cluster is still running"
    for pid in also_pids:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE, \
            f"process {pid} that ran in the cluster is still running"
    directory = made["directory"][0]
    loops = subprocess.run(["losetup", "--list", "--noheadings", "--output", "NAME,BACK-FILE"], capture_output=True,
                           text=True, check=True).stdout
    assert directory not in loops, f"loop devices over files of the cluster are left: {loops}"
    for rules in ("read_bps_device", "write_bps_device"):
        path = Path("/sys/fs/cgroup/blkio") / f"blkio.throttle.{rules}"
        if path.exists():
            set_rules = [line.split()[0] for line in path.read_text().splitlines()]
            assert not set(made.get("rules", [])) & set(set_rules), f"throttle rules left in {path}"
    assert not [path for path in made.get("cgroup", []) if os.path.exists(path)], "the cluster's cgroup is left"
    for process in psutil.process_iter():
        try:
            with open(f"/proc/{process.pid}/mountinfo") as table:
                assert directory not in table.read(), f"a mount under {directory} is left (seen by {process.pid})"
        except (OSError, psutil.Error):
            continue


def pids_in(record: dict) -> list[int]:
    """Every process inside the cluster's namespaces now."""
    found = []
    for namespace in traces(record)["namespaces"]:
        out = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True, text=True).stdout
        found += [int(word) for word in out.split()]
    return found


def bring_up(state: Path, *words: str, regions: str | None = None) -> Cluster:
    """`cluster up WORDS` in `state`, with `regions` (TOML) as its regions file when given."""
    state.mkdir(parents=True, exist_ok=True)
    if regions is not None:
        (state / "regions.toml").write_text(regions)
        words = (*words, "--regions", str(state / "regions.toml"))
    cluster = Cluster(state, environment(state))
    up = cluster.swiftcloud("cluster", "up", *words)
    assert up.returncode == 0, up.stderr + up.stdout
    return cluster


def take_down(cluster: Cluster) -> None:
    made = traces(cluster.record)
    down = cluster.swiftcloud("cluster", "down")
    assert down.returncode == 0, down.stderr
    assert_nothing_left(made)


@pytest.fixture(scope="module")
def cluster8(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Eight nodes, each with a MosaStore benefactor and client (the default regions put
    all eight in the home zone)."""
    cluster = bring_up(tmp_path_factory.mktemp("cluster8"), "--nodes", "8", "--storage", "mosastore")
    try:
        yield cluster
    finally:
        take_down(cluster)
