"""Region files and node placement (cluster/regions.py), and the launcher's argument handling."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cluster.node_exec import main as node_exec
from cluster.regions import DEFAULT_REGIONS, Region, load, place
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
    assert load(str(path)) == (Region("home", 4, 1000.0), Region("far-away", 2, 100.0, 150.0, 50.0))
    assert [region.disk_mbps for region in load(str(path))] == [150.0, 150.0]  # the default disk
    for text, message in [('[[region]]\nname = "a"\nnodes = 1\nnode_mbit = 1\nspeed = 3\n', "unknown setting(s) speed"),
                          ('[[region]]\nname = "a b"\nnodes = 1\nnode_mbit = 1\n', "'name' must be letters"),
                          ('[[region]]\nname = "a"\nnodes = 1\nnode_mbit = 1\ndisk_mbps = -5\n',
                           "(a): 'disk_mbps' must be a number >= 0"),
                          ('[[region]]\nname = "a"\nnodes = 0\nnode_mbit = 1\n', "must be more than 0"),
                          ('[[region]]\nname = "a"\nnodes = 1\nnode_mbit = 1\n' * 2, "region names must differ"),
                          ("x = 1\n", "no [[region]] tables"), ("[[region\n", "regions.toml")]:
        path.write_text(text)
        with pytest.raises(StorageConfigError, match=re.escape(message)):
            load(str(path))
    path.write_text('[[region]]\nname = "a"\nnodes = 1\nnode_mbit = 10\ndisk_mbps = 80\n\n'
                    '[[region]]\nname = "b"\nnodes = 1\nnode_mbit = 10\ndisk_mbps = 0\n')
    assert [region.disk_mbps for region in load(str(path))] == [80.0, 0.0]  # 0: the host's directory
    with pytest.raises(StorageConfigError, match="between 1 and 64"):
        place(65, DEFAULT_REGIONS)


def test_the_launcher_refuses_without_a_cluster(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("SWIFTCLOUD_CLUSTER_STATE", raising=False)
    assert node_exec(["-x", "node2", "'/bin/true'"]) == 255
    assert "no cluster record" in capsys.readouterr().err
    assert node_exec(["-x"]) == 255
