"""`swiftcloud cluster check`: what the cluster gives, measured, beside what it was configured to give.

- Links: a TCP bulk transfer from a node to the hub's address on the node's subnet and back
  (the hub's end is not shaped and the transfer is not forwarded, so only the node's link
  limits it), on the first node of each region and the cluster's
  last node (a sample: every node's link is made the same way).
- Paths: for every ordered pair of regions, the first node of one to the first node of the
  other (within a region, its first to its second node): a TCP echo round trip (the median
  of 20 small messages) and a bulk transfer (between regions, the steady rate after slow
  start: 3 s counted after 1.5 s). The rate configured for a path is the slower of its two
  links and, between regions, of the WAN.
- Disks: on every node with a disk of its own (or, when sampled, on the nodes whose links are
  measured: every node's disk is made the same way), one after the other (the host's disk could
  not carry every node's rate at once): `dd conv=fsync` of about 2 s at the configured rate,
  then the same file read back with `iflag=direct` (from the disk, not the page cache).
- S3 (when it is up): the first-byte latency of a GET of a small object from the first node
  of each region (median of 5 on one connection), less the same GET's time from inside S3's
  own namespace (MinIO's own time to answer, which no network setting decides): what is left
  is the path's round trip, judged against the region's `s3_rtt_ms`.

A measure off by more than 15% from its configured value is taken once more (a busy host
is slower once; a wrong setting is wrong twice); still off, it is a failure. A configured 0
(unlimited, or no delay) is reported, not judged. Transfers are sized to take about a second.
"""

from __future__ import annotations

import http.client
import os
import re
import statistics
import subprocess
import time
from collections.abc import Callable
from typing import Any

from cluster import netns, probe
from cluster.node_exec import on_node
from cluster.regions import Region
from cluster.state import S3_ADDRESS, ClusterState, Node, gateway, region_octet
from cluster.stores import services_dir
from hostkit.errors import ServiceError
from hostkit.records import load_record

TOLERANCE = 0.15
ECHOES = 20
S3_GETS = 5
DISK_SECONDS = 2.0
TRANSFER_SECONDS = 1.0
STEADY_SECONDS, SLOW_START_SECONDS = 4.5, 1.5
DD_RESULT = re.compile(r"^(\d+) bytes .* copied, ([0-9.]+) s", re.MULTILINE)
Say = Callable[[str], None]


def measure(cluster: ClusterState, say: Say, every_disk: bool = True) -> dict[str, Any]:
    """Measure the cluster (see the module docstring); `say` hears of each step. Without
    `every_disk`, only the disks of the nodes whose links are measured."""
    regions = [Region(**region) for region in cluster.regions]
    by_name = {region.name: region for region in regions}
    failures: list[str] = []
    judge = _Judge(failures)
    octet = {region.name: region_octet(index) for index, region in enumerate(regions)}
    links = []
    for node in _sampled(cluster):
        rate = by_name[node.region].node_mbit
        hub = Node("hub", node.region, gateway(octet[node.region]), cluster.hub, "")
        say(f"link of {node.name}")
        up = judge.rate(lambda: _mbit(node, hub, rate), rate, f"{node.name} link up")
        down = judge.rate(lambda: _mbit(hub, node, rate), rate, f"{node.name} link down")
        links.append({"node": node.name, "region": node.region, "configured_mbit": rate, "up_mbit": up,
                      "down_mbit": down})
    pairs = []
    for a in regions:
        for b in regions:
            client, server = _ends(cluster, a.name, b.name)
            rtt, wan = cluster.round_trip_ms(a.name, b.name), cluster.wan_mbit(a.name, b.name)
            rate = min([a.node_mbit, b.node_mbit] + ([wan] if wan else []))
            entry = {"from": a.name, "to": b.name, "configured_rtt_ms": rtt, "rtt_ms": None,
                     "configured_mbit": rate, "mbit": None}
            if client is not None and server is not None:
                say(f"path {a.name} -> {b.name} ({client.name} -> {server.name})")
                entry["rtt_ms"] = judge.value(lambda: _echo_ms(client, server), rtt,
                                              f"round trip {a.name} -> {b.name}", "ms")
                measure = (lambda: _mbit(client, server, rate)) if a == b else (
                    lambda: probe.steady_mbit(client, server, STEADY_SECONDS, SLOW_START_SECONDS))
                entry["mbit"] = judge.rate(measure, rate, f"path {a.name} -> {b.name}")
            pairs.append(entry)
    disks = []
    for record in measured_disks(cluster, every_disk):
        node = cluster.node(record["node"])
        configured = record["bytes_per_second"] / 1e6
        say(f"disk of {node.name}")
        path = os.path.join(record["mountpoint"], "check-disk")
        size = max(1, int(configured * DISK_SECONDS))  # MB, in 1 MB blocks
        try:
            write = judge.value(lambda: _dd(node, ["if=/dev/zero", f"of={path}", "bs=1M", f"count={size}",
                                                   "conv=fsync"]), configured, f"{node.name} disk write", "MB/s")
            read = judge.value(lambda: _dd(node, [f"if={path}", "of=/dev/null", "bs=1M", "iflag=direct"]),
                               configured, f"{node.name} disk read", "MB/s")
        finally:
            subprocess.run(on_node(node, ["rm", "-f", path]), capture_output=True, check=False)
        disks.append({"node": node.name, "configured_mbps": configured, "write_mbps": write, "read_mbps": read})
    s3 = []
    if "s3" in cluster.storage:
        path, port = _s3_object(cluster)
        for region in regions:
            node = next(node for node in cluster.nodes if node.region == region.name)
            configured = cluster.s3_round_trip_ms(region.name)
            say(f"S3 from {region.name} ({node.name})")
            served: list[float] = []

            def added() -> float:
                first = _first_byte_ms(node.name, node.namespace, port, path)
                served.append(_first_byte_ms("S3 itself", cluster.s3_namespace, port, path))
                return first - served[-1]

            network = judge.value(added, configured, f"S3 first byte from {region.name} (less MinIO's own time)",
                                  "ms")
            s3.append({"region": region.name, "configured_rtt_ms": configured, "first_byte_ms": network,
                       "server_ms": served[-1]})
    return {"links": links, "pairs": pairs, "disks": disks, "s3": s3, "ok": not failures, "failures": failures}


class _Judge:
    """Takes a measure, again when it is off, and notes a failure when it stays off."""

    def __init__(self, failures: list[str]) -> None:
        self.failures = failures

    def value(self, take: Callable[[], float], configured: float, what: str, unit: str) -> float:
        measured = take()
        if configured > 0 and _off(measured, configured):
            measured = take()
            if _off(measured, configured):
                self.failures.append(f"{what}: {measured:.1f} {unit} measured, {configured:g} {unit} configured "
                                     f"(off by {abs(measured / configured - 1):.0%}, more than {TOLERANCE:.0%})")
        return measured

    def rate(self, take: Callable[[], float], configured: float, what: str) -> float:
        return self.value(take, configured, what, "Mbit/s")


def _off(measured: float, configured: float) -> bool:
    return abs(measured / configured - 1) > TOLERANCE


def measured_disks(cluster: ClusterState, every_disk: bool) -> list[dict[str, Any]]:
    """The disk records `measure` takes: every one, or those of the nodes whose links it measures."""
    sampled = {node.name for node in _sampled(cluster)}
    return [disk for disk in cluster.disks if every_disk or disk["node"] in sampled]


def _sampled(cluster: ClusterState) -> list[Node]:
    """The first node of each region and the cluster's last node."""
    chosen: dict[str, Node] = {}
    for node in cluster.nodes:
        chosen.setdefault(node.region, node)
    picked = list(chosen.values())
    return picked + [cluster.nodes[-1]] if cluster.nodes[-1] not in picked else picked


def _ends(cluster: ClusterState, a: str, b: str) -> tuple[Node | None, Node | None]:
    """The nodes a path from region `a` to region `b` is measured between (None: only one node)."""
    first = [node for node in cluster.nodes if node.region == a]
    if a == b:
        return (first[0], first[1]) if len(first) > 1 else (None, None)
    return first[0], next(node for node in cluster.nodes if node.region == b)


def _mbit(sender: Node, receiver: Node, mbit: float) -> float:
    chunks = max(32, int(mbit * 1e6 / 8 * TRANSFER_SECONDS) // probe.CHUNK)  # probe sends whole chunks
    size = chunks * probe.CHUNK
    return probe.bandwidth(sender, receiver, size).mbit


def _echo_ms(client: Node, server: Node) -> float:
    return statistics.median(probe.round_trips(client, server, ECHOES)) * 1000


def _dd(node: Node, operands: list[str]) -> float:
    """MB/s of a dd run on `node` (as dd itself counts: bytes over its own elapsed time)."""
    done = subprocess.run(on_node(node, ["dd", *operands]), capture_output=True, text=True, check=False)
    found = DD_RESULT.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise ServiceError(f"dd on {node.name} failed: {done.stderr.strip()[-300:]}")
    return int(found.group(1)) / float(found.group(2)) / 1e6


def _s3_object(cluster: ClusterState) -> tuple[str, int]:
    """Put a small object in the cluster's bucket; its presigned path and S3's port."""
    from storage_adapters.s3client import make_client
    from storage_adapters.services import minio

    record = load_record(services_dir(cluster), minio.NAME)
    if record is None:
        raise ServiceError("the cluster's S3 left no record: bring the cluster up again")
    port, bucket = int(record.info["port"]), record.info["bucket"]

    def put() -> str:
        # Signed for the address every node dials (the names resolve only inside the nodes).
        client = make_client(f"http://{S3_ADDRESS}:{port}", record.secrets["access_key"],
                             record.secrets["secret_key"])
        client.put_object(Bucket=bucket, Key="swiftcloud-check", Body=b"x" * 1024)
        return client.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "swiftcloud-check"},
                                             ExpiresIn=600)

    url = netns.in_namespace(cluster.hub, put)
    return url.split(f":{port}", 1)[1], port


def _first_byte_ms(where: str, namespace: str, port: int, path: str) -> float:
    """Median time (ms) from sending a GET of `path` from `namespace` to the first byte of the answer."""
    def get() -> float:
        connection = http.client.HTTPConnection(S3_ADDRESS, port, timeout=30)
        connection.connect()
        times = []
        try:
            for _ in range(S3_GETS):
                began = time.perf_counter()
                connection.request("GET", path, headers={"Host": f"{S3_ADDRESS}:{port}"})
                answer = connection.getresponse()  # returns once the status line has come
                times.append(time.perf_counter() - began)
                body = answer.read()
                if answer.status != 200:
                    raise ServiceError(f"S3 answered {answer.status} from {where}: {body[:200]!r}")
        finally:
            connection.close()
        return statistics.median(times) * 1000

    return netns.in_namespace(namespace, get)


def report(measured: dict[str, Any]) -> str:
    """The measurements as a table, each beside its configured value."""
    def number(value: float | None, digits: int = 1) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    lines = ["links (Mbit/s)          configured        up      down"]
    lines += [f"  {link['node']:8} {link['region']:12} {link['configured_mbit']:9g} {number(link['up_mbit']):>9}"
              f" {number(link['down_mbit']):>9}" for link in measured["links"]]
    lines.append("paths                   rtt ms: configured  measured   Mbit/s: configured  measured")
    lines += [f"  {pair['from'] + ' -> ' + pair['to']:30} {pair['configured_rtt_ms']:9g} {number(pair['rtt_ms'], 2):>9}"
              f"         {pair['configured_mbit']:9g} {number(pair['mbit']):>9}" for pair in measured["pairs"]]
    if measured["disks"]:
        lines.append("disks (MB/s)            configured     write      read")
        lines += [f"  {disk['node']:21} {disk['configured_mbps']:9g} {number(disk['write_mbps']):>9}"
                  f" {number(disk['read_mbps']):>9}" for disk in measured["disks"]]
    if measured["s3"]:
        lines.append("S3 first byte (ms)      configured  measured  (less MinIO's own time)")
        lines += [f"  {entry['region']:21} {entry['configured_rtt_ms']:9g} {number(entry['first_byte_ms'], 2):>9}"
                  f"  ({number(entry.get('server_ms'), 2)} served)" for entry in measured["s3"]]
    lines.append(f"ok: every measure within {TOLERANCE:.0%} of its configured value (0: not judged)" if measured["ok"] else
                 "FAILED:\n" + "\n".join(f"  {failure}" for failure in measured["failures"]))
    return "\n".join(lines)
