"""Regions of an emulated cluster: how many nodes each holds, their links, and how far they are.

A region file is TOML with one `[[region]]` table per region, nearest first:

    [[region]]
    name = "zone-a"      # the home region: the cluster's services run here
    nodes = 8            # how many of the cluster's nodes it holds (the last region takes the rest)
    node_mbit = 1000     # each node's link, both directions (tc htb on its veth)
    rtt_ms = 0           # round trip added between this region and the home region's services
    wan_mbit = 0         # bandwidth of that path, 0 = only the node links limit it
    disk_mbps = 150      # each node's own disk, read and write, in MB/s (10^6 bytes/s); 0 = no disk of
                         # its own (the node's directory stays on the host's file system)

Nodes fill the regions in order. The defaults model one zone, a second region on the same
continent and a third across an ocean. Their round trips are typical of public cloud
inter-region latency tables (e.g. AWS us-east-1 to us-west-2 about 60-70 ms, to eu-west-1
about 70-80 ms, to Asia-Pacific 150-230 ms; within a zone well under 1 ms); they are not
figures from the study itself. Link rates are scaled down to what one 2-core machine can
carry for many nodes at once, so that the shaping, not the CPU, limits a transfer.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass

from hostkit.errors import StorageConfigError


@dataclass(frozen=True)
class Region:
    """One region: its name, capacity, per-node link rate and distance to the home region."""

    name: str
    nodes: int
    node_mbit: float
    rtt_ms: float = 0.0
    wan_mbit: float = 0.0
    disk_mbps: float = 150.0


DEFAULT_REGIONS = (
    Region("zone-a", nodes=8, node_mbit=400, rtt_ms=0),
    Region("region-b", nodes=8, node_mbit=400, rtt_ms=60, wan_mbit=200),
    Region("continent-c", nodes=64, node_mbit=400, rtt_ms=150, wan_mbit=100),
)
MAX_NODES = 64


def load(path: str) -> tuple[Region, ...]:
    """The regions of a region file, checked."""
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as error:
        raise StorageConfigError(f"cannot read the region file {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise StorageConfigError(f"{path}: {error}") from None
    tables = data.get("region")
    if not isinstance(tables, list) or not tables:
        raise StorageConfigError(f"{path}: no [[region]] tables")
    regions = []
    for index, table in enumerate(tables, 1):
        where = f"{path}: region {index}"
        unknown = set(table) - {"name", "nodes", "node_mbit", "rtt_ms", "wan_mbit", "disk_mbps"}
        if unknown:
            raise StorageConfigError(f"{where}: unknown setting(s) {', '.join(sorted(unknown))}")
        name = table.get("name")
        if not isinstance(name, str) or not name.replace("-", "").isalnum():
            raise StorageConfigError(f"{where}: 'name' must be letters, digits and '-'")
        numbers = {key: table.get(key, default) for key, default in
                   (("nodes", 0), ("node_mbit", 0), ("rtt_ms", 0.0), ("wan_mbit", 0.0),
                    ("disk_mbps", 150.0))}
        for key, value in numbers.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise StorageConfigError(f"{where} ({name}): '{key}' must be a number >= 0")
        if numbers["nodes"] < 1 or numbers["node_mbit"] <= 0:
            raise StorageConfigError(f"{where} ({name}): 'nodes' and 'node_mbit' must be more than 0")
        regions.append(Region(name, int(numbers["nodes"]), float(numbers["node_mbit"]),
                              float(numbers["rtt_ms"]), float(numbers["wan_mbit"]), float(numbers["disk_mbps"])))
    if len({region.name for region in regions}) != len(regions):
        raise StorageConfigError(f"{path}: region names must differ")
    return tuple(regions)


def place(nodes: int, regions: tuple[Region, ...]) -> list[Region]:
    """The region of each of `nodes` nodes: the regions fill in order; the last takes the rest."""
    if not 1 <= nodes <= MAX_NODES:
        raise StorageConfigError(f"--nodes must be between 1 and {MAX_NODES}, not {nodes}")
    placed: list[Region] = []
    for region in regions:
        placed.extend([region] * region.nodes)
    placed.extend([regions[-1]] * max(0, nodes - len(placed)))
    return placed[:nodes]
