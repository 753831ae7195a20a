"""Region files and node placement (cluster/regions.py), and the launcher's argument handling."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from cluster.node_exec import LAUNCH_TABLE, LAUNCHER, STATE_VARIABLE, install, installed, script, write_table
from cluster.regions import (DEFAULT_REGIONS, Layout, Region, WanPath, load, place, round_trip_ms, s3_round_trip_ms,
                             wan_mbit)
from hostkit.errors import StorageConfigError


def test_nodes_fill_the_regions_in_order_and_the_last_takes_the_rest() -> None:
    regions = (Region("a", 2, 100), Region("b", 1, 50, 60), Region("c", 1, 10, 150))
    assert [region.name for region in place(6, regions)] == ["a", "a", "b", "c", "c", "c"]
    assert [region.name for region in place(1, regions)] == ["a"]
    assert {region.name for region in place(8, DEFAULT_REGIONS)} == {"zone-a"}
    assert [region.name for region in place(10, DEFAULT_REGIONS)][8:] == ["region-b", "region-b"]


def test_a_region_file_is_read_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "regions.toml"
    path.write_text('[[region]]\nname = "home"\nnodes = 4\nnode_mbit = 1000\n\n'
                    '[[region]]\nname = "far-away"\nnodes = 2\nnode_mbit = 100\nrtt_ms = 150\nwan_mbit = 50\n')
    assert load(str(path)) == Layout((Region("home", 4, 1000.0), Region("far-away", 2, 100.0, 150.0, 50.0)))
    assert [region.disk_mbps for region in load(str(path)).regions] == [150.0, 150.0]  # the default disk
    for text, message in [('[[region]]\nname = "a"\nnodes = 1\nnode_mbit = 1\nspeed = 3\n', "unknown setting(s) speed"),
                          ('[[region]]\nname = "a b"\nnodes = 1\nnode_mbit = 1\n', "'name' must be letters"),
                          ('[[region]]\nname = "a"\nnodes = 1\nnode_mbit = 1\ndisk_mbps = -5\n',
                           "(a): 'disk_mbps' must be a number >= 0"),
                          ('[[region]]\nname = "a"\nnodes = 0\nnode_mbit = 1\n', "must be more than 0"),
                          ('[[region]]\nname = "a"\nnodes = 1\nnode_mbit = 1\n' * 2, "region names must differ"),
                          ("x = 1\n", "unknown table(s) x"), ("[s3]\n", "no [[region]] tables"),
                          ('[[region]]\nname = "a"\nnodes = 1\nnode_mbit = 1\n[[path]]\nregions = ["a", "b"]\n',
                           "'regions' must name two different regions other than the home one"),
                          ('[[region]]\nname = "a"\nnodes = 1\nnode_mbit = 1\n[s3]\nmbit = 0\n', "'mbit' must be more"),
                          ("[[region\n", "regions.toml")]:
        path.write_text(text)
        with pytest.raises(StorageConfigError, match=re.escape(message)):
            load(str(path))
    path.write_text('[[region]]\nname = "a"\nnodes = 1\nnode_mbit = 10\ndisk_mbps = 80\n\n'
                    '[[region]]\nname = "b"\nnodes = 1\nnode_mbit = 10\ndisk_mbps = 0\n')
    assert [region.disk_mbps for region in load(str(path)).regions] == [80.0, 0.0]  # 0: the host's directory
    with pytest.raises(StorageConfigError, match="between 1 and 64"):
        place(65, DEFAULT_REGIONS)


def test_paths_and_s3_are_read_with_their_defaults(tmp_path: Path) -> None:
    path = tmp_path / "regions.toml"
    path.write_text('[[region]]\nname = "a"\nnodes = 1\nnode_mbit = 10\n\n'
                    '[[region]]\nname = "b"\nnodes = 1\nnode_mbit = 10\nrtt_ms = 60\nwan_mbit = 200\ns3_rtt_ms = 70\n\n'
                    '[[region]]\nname = "c"\nnodes = 1\nnode_mbit = 10\nrtt_ms = 150\nwan_mbit = 100\n\n'
                    '[[region]]\nname = "d"\nnodes = 1\nnode_mbit = 10\nrtt_ms = 90\n\n'
                    '[[path]]\nregions = ["c", "d"]\nrtt_ms = 200\n\n[s3]\nmbit = 300\n')
    layout = load(str(path))
    assert layout.s3_mbit == 300 and layout.paths == (WanPath(("c", "d"), 200.0, None),)
    regions, paths = layout.regions, layout.paths
    expected = {("a", "a"): (0, 0), ("a", "b"): (60, 200), ("c", "a"): (150, 100),
                ("b", "c"): (150, 100),  # the larger round trip, the smaller rate
                ("b", "d"): (90, 200),  # d has no WAN rate of its own: b's
                ("d", "c"): (200, 100)}  # the path's round trip, the default rate
    for (a, b), (rtt, rate) in expected.items():
        for x, y in ((a, b), (b, a)):
            assert (round_trip_ms(regions, paths, x, y), wan_mbit(regions, paths, x, y)) == (rtt, rate), (x, y)
    assert [s3_round_trip_ms(region) for region in regions] == [20, 70, 170, 110]
    with pytest.raises(StorageConfigError, match="no region 'x'"):
        round_trip_ms(regions, paths, "a", "x")


def test_the_launcher_refuses_without_a_cluster_a_node_or_a_live_holder(tmp_path: Path) -> None:
    """`node-exec` as Hydra runs it (the script `cluster up` writes): it ends with ssh's status
    for a failed connection (255) and says why, before it enters any namespace."""
    launcher = tmp_path / "node-exec"
    launcher.write_text(script())
    launcher.chmod(0o700)
    environ = {key: value for key, value in os.environ.items() if key != STATE_VARIABLE}

    def node_exec(*words: str, record: str | None = None) -> tuple[int, str]:
        env = environ if record is None else {**environ, STATE_VARIABLE: record}
        done = subprocess.run([str(launcher), *words], env=env, capture_output=True, text=True, timeout=30)
        return done.returncode, done.stderr

    assert node_exec("-x", "node2", "'/bin/true'") == (
        255, "node-exec: no cluster record at $SWIFTCLOUD_CLUSTER_STATE (unset) naming node2\n")
    assert node_exec("-x") == (255, "node-exec: usage: node-exec [-x] HOST COMMAND...\n")
    record = str(tmp_path / "cluster.json")
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        write_table(str(tmp_path / LAUNCH_TABLE), {"node2": (sleeper.pid, [])})
        assert node_exec("-x", "node3", "'/bin/true'", record=record)[1].startswith("node-exec: no cluster record")
        # A holder that has ended (its PID may go to another process): never entered.
        sleeper.kill()
        sleeper.wait()
        status, said = node_exec("-x", "node2", "'/bin/true'", record=record)
        assert status == 255 and said.startswith("node-exec: node2: node node2 is not running"), said
    finally:
        if sleeper.poll() is None:
            sleeper.kill()
            sleeper.wait()
    with pytest.raises(ValueError, match="white space"):
        write_table(str(tmp_path / LAUNCH_TABLE), {"node 2": (os.getpid(), [])})


def test_a_launcher_from_an_older_swiftcloud_is_replaced(tmp_path: Path) -> None:
    """`run --cluster` installs this version's launcher on a cluster an older one brought up
    (its node-exec imported what is gone): `installed` tells, `install` writes both files."""
    assert not installed(str(tmp_path))
    install(str(tmp_path), {"node2": (os.getpid(), [])})
    assert installed(str(tmp_path))
    assert (tmp_path / LAUNCH_TABLE).read_text().split()[:2] == ["node2", str(os.getpid())]
    assert os.access(tmp_path / LAUNCHER, os.X_OK)
    (tmp_path / LAUNCHER).write_text("#!/usr/bin/python3\nfrom cluster.node_exec import main\n")
    assert not installed(str(tmp_path))
    install(str(tmp_path), {"node2": (os.getpid(), [])})
    assert (tmp_path / LAUNCHER).read_text() == script()
