"""The hub as the router between regions: forwarding, policy routing into the delay line.

Each region has its own bridge and /24 in the hub (state.region_octet), and S3 its own
(state.S3_OCTET); the hub forwards between them. A packet from one subnet to another
whose path has a round trip or a WAN rate is routed into the TUN device of the delay
line (delayline.py) by policy routing: `ip rule iif BRIDGE lookup TABLE`, where the
source bridge's table routes those destinations to the device. What the delay line
writes back arrives on the device and is routed by the main table (a rule of higher
priority), on to the destination's bridge. Traffic inside a region stays on its bridge.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from cluster import netns
from cluster.state import PREFIX, S3_OCTET, SUBNET, ClusterState, region_octet
from hostkit.processes import spawn, started, wait_until
from hostkit.program import module_environment

DEVICE = "dl0"
S3 = "s3"  # the pseudo-region of S3 in the paths
TABLE_BASE = 100  # the routing table of source subnet X is TABLE_BASE + X
RULE_FROM_DEVICE = 1000  # before every source bridge's rule (TABLE_BASE + 1000 + X)
MIN_BOUND = 128 << 10


def bridge(octet: int) -> str:
    """The hub's bridge of the subnet with third octet `octet`."""
    return f"br{octet}"


def octets(cluster: ClusterState) -> dict[str, int]:
    """Every subnet of the cluster by the name of its region (S3 as `s3`)."""
    named = {region["name"]: region_octet(index) for index, region in enumerate(cluster.regions)}
    return {**named, S3: S3_OCTET}


def distance(cluster: ClusterState, a: str, b: str) -> tuple[float, float]:
    """Round trip (ms) and WAN rate (Mbit/s, 0 = unlimited) between subnets `a` and `b`. A
    region reaches S3 with its own s3_rtt_ms, over its WAN to the home region (S3 stands
    in the home region, as the cluster's services do); S3's own cap is its link's HTB."""
    if S3 in (a, b):
        region = b if a == S3 else a
        home = cluster.regions[0]["name"]
        return cluster.s3_round_trip_ms(region), cluster.wan_mbit(region, home)
    return cluster.round_trip_ms(a, b), cluster.wan_mbit(a, b)


def paths(cluster: ClusterState) -> list[dict[str, Any]]:
    """The delay line's paths: every ordered pair of subnets with a round trip or a rate."""
    found = []
    named = octets(cluster)
    for a, source in named.items():
        for b, destination in named.items():
            if a == b:
                continue
            rtt_ms, mbit = distance(cluster, a, b)
            if rtt_ms <= 0 and mbit <= 0:
                continue
            rate = mbit * 1e6 / 8
            found.append({"source": source, "destination": destination, "one_way_s": rtt_ms / 2000,
                          "rate_bytes": rate, "bound_bytes": max(MIN_BOUND, rate * rtt_ms / 1000)})
    return found


def enable_forwarding(hub: str) -> None:
    """Forwarding on, reverse-path filtering off, in the hub only: replies come back from the
    delay line's device, not the bridge the route names. Set before any link is made, so
    every link inherits it."""
    for setting in ("net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0"):
        netns.run("ip", "netns", "exec", hub, "sysctl", "-q", "-w", setting)


def start(cluster: ClusterState) -> None:
    """Make the device and the routes into it, and start the delay line (recorded)."""
    hub = cluster.hub
    config = {"device": DEVICE, "paths": paths(cluster)}
    path = cluster.path("delayline.json")
    with open(path, "w") as handle:
        json.dump(config, handle, indent=2)
    # A device of its own (not the process's), so that with no delay line reading it, packets
    # between regions are lost rather than sent on undelayed.
    netns.run("ip", "-n", hub, "tuntap", "add", "dev", DEVICE, "mode", "tun", "vnet_hdr")
    netns.run("ip", "-n", hub, "link", "set", DEVICE, "txqueuelen", "10000", "up")
    netns.run("ip", "-n", hub, "rule", "add", "pref", str(RULE_FROM_DEVICE), "iif", DEVICE, "lookup", "main")
    for source in sorted({entry["source"] for entry in config["paths"]}):
        table = str(TABLE_BASE + source)
        for entry in config["paths"]:
            if entry["source"] == source:
                netns.run("ip", "-n", hub, "route", "add", f"{SUBNET}.{entry['destination']}.0/{PREFIX}",
                          "dev", DEVICE, "table", table)
        netns.run("ip", "-n", hub, "rule", "add", "pref", str(RULE_FROM_DEVICE + TABLE_BASE + source),
                  "iif", bridge(source), "lookup", table)
    log = cluster.path("delayline.log")
    process = spawn(netns.inside(hub, [sys.executable, "-m", "cluster.delayline", path]), log, module_environment())
    cluster.record_started(started("delayline", process, log, 0, "hub"))
    wait_until(lambda: "LOWER_UP" in netns.run("ip", "-n", hub, "link", "show", DEVICE), process,
               "the delay line", log, timeout=20)
