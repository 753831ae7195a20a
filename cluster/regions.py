"""Regions of an emulated cluster: how many nodes each holds, their links, and how far they are.

A region file is TOML with one `[[region]]` table per region, nearest first:

    [[region]]
    name = "zone-a"      # the home region: the cluster's services run here
    nodes = 8            # how many of the cluster's nodes it holds (the last region takes the rest)
    node_mbit = 1000     # each node's link, both directions (tc htb on its veth)
    rtt_ms = 0           # round trip between this region and the home region
    wan_mbit = 0         # rate of that path, 0 = only the node links limit it
    s3_rtt_ms = 20       # round trip from this region's nodes to S3 (default: rtt_ms + 20)
    disk_mbps = 150      # each node's own disk, read and write, in MB/s (10^6 bytes/s); 0 = no disk of
                         # its own (the node's directory stays on the host's file system)
    cpu_cores = 0        # each node's CPU share, in cores (CFS quota; 0: no limit, any idle core)

and, optionally, paths between two regions that are not the home one, and S3's own cap:

    [[path]]
    regions = ["region-b", "continent-c"]
    rtt_ms = 170         # default: the larger of the two regions' rtt_ms
    wan_mbit = 50        # default: the smaller non-zero wan_mbit of the two (0 if both are 0)

    [s3]
    mbit = 800           # aggregate bandwidth of S3, both directions (default 800)

Nodes fill the regions in order. The defaults model one zone, a second region on the same
continent and a third across an ocean. Their round trips are typical of public cloud
inter-region latency tables (e.g. AWS us-east-1 to us-west-2 about 60-70 ms, to eu-west-1
about 70-80 ms, to Asia-Pacific 150-230 ms; within a zone well under 1 ms); they are not
figures from the study itself. Link rates are scaled down to what one 2-core machine can
carry for many nodes at once, so that the shaping, not the CPU, limits a transfer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hostkit.errors import StorageConfigError


@dataclass(frozen=True)
class Region:
    """One region: its name, capacity, per-node link rate and distance to the home region."""

    name: str
    nodes: int
    node_mbit: float
    rtt_ms: float = 0.0
    wan_mbit: float = 0.0
    s3_rtt_ms: float | None = None  # None: rtt_ms + S3_RTT_MS
    disk_mbps: float = 150.0
    cpu_cores: float = 0.0  # each node's CPU share in cores (0: no limit; cpulimit.py)


@dataclass(frozen=True)
class WanPath:
    """The round trip and rate between two regions that are not the home one (None: the default)."""

    regions: tuple[str, str]
    rtt_ms: float | None = None
    wan_mbit: float | None = None


@dataclass(frozen=True)
class Layout:
    """Everything a region file says: the regions, the paths set between remote ones, S3's cap."""

    regions: tuple[Region, ...]
    paths: tuple[WanPath, ...] = ()
    s3_mbit: float = 800.0


DEFAULT_REGIONS = (
    Region("zone-a", nodes=8, node_mbit=400, rtt_ms=0),
    Region("region-b", nodes=8, node_mbit=400, rtt_ms=60, wan_mbit=200),
    Region("continent-c", nodes=64, node_mbit=400, rtt_ms=150, wan_mbit=100),
)
MAX_NODES = 64
S3_RTT_MS = 20.0  # a GET's first byte from a cloud's S3 in the same region (order of 10-30 ms)
DEFAULT_S3_MBIT = 800.0


def _path(paths: Sequence[WanPath], a: str, b: str) -> WanPath | None:
    for path in paths:
        if set(path.regions) == {a, b}:
            return path
    return None


def _pair(regions: Sequence[Region], a: str, b: str) -> tuple[Region, Region, bool]:
    """The two regions named, and whether one of them is the home region (the first)."""
    named = {region.name: region for region in regions}
    for name in (a, b):
        if name not in named:
            raise StorageConfigError(f"no region {name!r} (regions: {', '.join(named)})")
    return named[a], named[b], regions[0].name in (a, b)


def _between(regions: Sequence[Region], paths: Sequence[WanPath], a: str, b: str, setting: str,
             default: Callable[[float, float], float]) -> float:
    """A path's `setting` (rtt_ms or wan_mbit) between regions `a` and `b`: 0 within one
    region; with the home region, the other region's own; between two remote regions, their
    [[path]]'s if set, else `default` of the two regions' own."""
    first, second, home = _pair(regions, a, b)
    if a == b:
        return 0.0
    if home:
        return getattr(second if first is regions[0] else first, setting)
    path = _path(paths, a, b)
    chosen = getattr(path, setting) if path else None
    return chosen if chosen is not None else default(getattr(first, setting), getattr(second, setting))


def _slower(one: float, other: float) -> float:
    """The slower of two WAN rates, where 0 means unlimited."""
    return min([rate for rate in (one, other) if rate > 0], default=0.0)


def round_trip_ms(regions: Sequence[Region], paths: Sequence[WanPath], a: str, b: str) -> float:
    """The round trip between regions `a` and `b` (0 within one region)."""
    return _between(regions, paths, a, b, "rtt_ms", max)


def wan_mbit(regions: Sequence[Region], paths: Sequence[WanPath], a: str, b: str) -> float:
    """The rate of the path between regions `a` and `b`; 0 = unlimited (only the links)."""
    return _between(regions, paths, a, b, "wan_mbit", _slower)


def s3_round_trip_ms(region: Region) -> float:
    """The round trip from `region`'s nodes to S3 (to a GET's first byte)."""
    return region.s3_rtt_ms if region.s3_rtt_ms is not None else region.rtt_ms + S3_RTT_MS


def load(path: str) -> Layout:
    """The regions, paths and S3 settings of a region file, checked."""
    import tomllib  # deferred: `run --cluster` loads the regions of a cluster that is up, never a file

    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as error:
        raise StorageConfigError(f"cannot read the region file {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise StorageConfigError(f"{path}: {error}") from None
    unknown = set(data) - {"region", "path", "s3"}
    if unknown:
        raise StorageConfigError(f"{path}: unknown table(s) {', '.join(sorted(unknown))}")
    tables = data.get("region")
    if not isinstance(tables, list) or not tables:
        raise StorageConfigError(f"{path}: no [[region]] tables")
    regions = tuple(_region(table, f"{path}: region {index}") for index, table in enumerate(tables, 1))
    if len({region.name for region in regions}) != len(regions):
        raise StorageConfigError(f"{path}: region names must differ")
    paths = tuple(_wan_path(table, f"{path}: path {index}", regions)
                  for index, table in enumerate(data.get("path", []), 1))
    s3 = data.get("s3", {})
    if not isinstance(s3, dict) or set(s3) - {"mbit"}:
        raise StorageConfigError(f"{path}: [s3] takes only 'mbit'")
    mbit = _number(s3, "mbit", DEFAULT_S3_MBIT, f"{path}: [s3]")
    if mbit <= 0:
        raise StorageConfigError(f"{path}: [s3] 'mbit' must be more than 0")
    return Layout(regions, paths, mbit)


def _number(table: dict[str, Any], key: str, default: float, where: str) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise StorageConfigError(f"{where}: '{key}' must be a number >= 0")
    return float(value)


def _region(table: dict[str, Any], where: str) -> Region:
    unknown = set(table) - {"name", "nodes", "node_mbit", "rtt_ms", "wan_mbit", "s3_rtt_ms", "disk_mbps",
                            "cpu_cores"}
    if unknown:
        raise StorageConfigError(f"{where}: unknown setting(s) {', '.join(sorted(unknown))}")
    name = table.get("name")
    if not isinstance(name, str) or not name.replace("-", "").isalnum():
        raise StorageConfigError(f"{where}: 'name' must be letters, digits and '-'")
    where = f"{where} ({name})"
    numbers = {key: _number(table, key, 0.0, where) for key in ("nodes", "node_mbit", "rtt_ms", "wan_mbit")}
    if numbers["nodes"] < 1 or numbers["node_mbit"] <= 0:
        raise StorageConfigError(f"{where}: 'nodes' and 'node_mbit' must be more than 0")
    s3_rtt = _number(table, "s3_rtt_ms", 0.0, where) if "s3_rtt_ms" in table else None
    return Region(name, int(numbers["nodes"]), numbers["node_mbit"], numbers["rtt_ms"], numbers["wan_mbit"], s3_rtt,
                  _number(table, "disk_mbps", 150.0, where), _number(table, "cpu_cores", 0.0, where))


def _wan_path(table: dict[str, Any], where: str, regions: tuple[Region, ...]) -> WanPath:
    unknown = set(table) - {"regions", "rtt_ms", "wan_mbit"}
    if unknown:
        raise StorageConfigError(f"{where}: unknown setting(s) {', '.join(sorted(unknown))}")
    names = table.get("regions")
    remote = [region.name for region in regions[1:]]
    if (not isinstance(names, list) or len(names) != 2 or names[0] == names[1]
            or not all(name in remote for name in names)):
        raise StorageConfigError(f"{where}: 'regions' must name two different regions other than the home one "
                                 f"({', '.join(remote) or 'there are none'})")
    return WanPath((names[0], names[1]),
                   _number(table, "rtt_ms", 0.0, where) if "rtt_ms" in table else None,
                   _number(table, "wan_mbit", 0.0, where) if "wan_mbit" in table else None)


def place(nodes: int, regions: tuple[Region, ...]) -> list[Region]:
    """The region of each of `nodes` nodes: the regions fill in order; the last takes the rest."""
    if not 1 <= nodes <= MAX_NODES:
        raise StorageConfigError(f"--nodes must be between 1 and {MAX_NODES}, not {nodes}")
    placed: list[Region] = []
    for region in regions:
        placed.extend([region] * region.nodes)
    placed.extend([regions[-1]] * max(0, nodes - len(placed)))
    return placed[:nodes]
