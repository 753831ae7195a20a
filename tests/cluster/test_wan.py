"""Distance on every path between regions (issue 26, items 3 and 4): the delay line gives a
remote node its region's round trip and WAN rate to every home node, not only to the
services; nodes of one region stay close; S3 answers after its configured round trip; and a
MosaStore read across regions pays the round trip. Each figure is compared with the region
file written here, and the within-region or in-namespace reference measured in the same run."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cluster import netns, probe, state
from cluster.cpuwatch import CpuWatch
from cluster.state import S3_ADDRESS
from cluster.stores import services_dir
from hostkit.records import load_record
from storage_adapters.s3client import make_client
from tests.cluster.conftest import Cluster, bring_up, take_down

RTT_MS, WAN_MBIT = 60.0, 100.0
REGIONS = f"""
[[region]]
name = "home"
nodes = 2
node_mbit = 400

[[region]]
name = "far"
nodes = 1
node_mbit = 400
rtt_ms = {RTT_MS}
wan_mbit = {WAN_MBIT}
"""
S3_RTT_MS = 20.0  # the home region's default


@pytest.fixture(scope="module")
def far(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """node1 and node2 at home, node3 60 ms away behind a 100 Mbit/s WAN; MosaStore and S3."""
    directory = tmp_path_factory.mktemp("wan")
    cluster = bring_up(directory, "--nodes", "3", "--storage", "mosastore,s3", regions=REGIONS)
    try:
        yield cluster
    finally:
        take_down(cluster)


def _record(cluster: Cluster) -> state.ClusterState:
    loaded = state.load(str(cluster.state / "cluster"))
    assert loaded is not None
    return loaded


def test_a_remote_node_is_its_round_trip_away_from_a_home_node(far: Cluster) -> None:
    record = _record(far)
    node1, node2, node3 = record.nodes
    assert record.round_trip_ms("far", "home") == RTT_MS and record.round_trip_ms("home", "home") == 0
    remote = statistics.median(probe.round_trips(node3, node1, 15)) * 1000
    back = statistics.median(probe.round_trips(node1, node3, 15)) * 1000
    near = statistics.median(probe.round_trips(node2, node1, 15)) * 1000
    print(f"round trip node3->node1 {remote:.2f} ms, node1->node3 {back:.2f} ms, node2->node1 {near:.3f} ms")
    for measured in (remote, back):
        assert abs(measured - RTT_MS) <= 0.10 * RTT_MS, f"{measured:.2f} ms for a configured {RTT_MS} ms"
    assert near < 2.0, f"{near:.2f} ms within one region"


def test_a_long_transfer_between_regions_runs_at_the_wan_rate(far: Cluster) -> None:
    """The WAN (100 Mbit/s), not the node links (400), limits node3 -> node1. TCP carries
    1448 bytes in a 1500-byte IP packet, so a full path shows about 96.5%. The probe sends
    several streams (`probe.steady_mbit`): one stream alone measured 89.9 twice in full suites,
    on an idle host too, when a burst lost at the path's full queue cost it a retransmission
    timeout and a slow start. Its two ends are this process: a transfer during which the
    host was saturated measured the host (the study's rule, `cluster.cpuwatch`), and is
    measured again, three times at most."""
    record = _record(far)
    node1, _, node3 = record.nodes
    for _ in range(3):
        with CpuWatch(None) as watch:
            rate = probe.steady_mbit(node3, node1, seconds=10.0)
        assert watch.window is not None
        print(f"node3 -> node1: {rate:.1f} Mbit/s over a {WAN_MBIT} Mbit/s WAN, "
              f"host {watch.window.host_busy:.0%} busy")
        if not watch.window.saturated:
            break
    assert abs(rate - WAN_MBIT) <= 0.10 * WAN_MBIT, (
        f"{rate:.1f} Mbit/s for a configured {WAN_MBIT} (host {watch.window.host_busy:.0%} busy)")


def _first_byte(client: object, namespace: str) -> float:
    """Time (s) to the first byte of a GET of a small object from `namespace`, over the
    client's kept-alive connection (made in that namespace)."""
    def measure() -> float:
        began = time.perf_counter()
        body = client.get_object(Bucket="swiftcloud", Key="wan/small")["Body"]  # type: ignore[attr-defined]
        body.read(1)
        elapsed = time.perf_counter() - began
        body.read()  # the rest, so the connection is kept for the next GET
        return elapsed
    return netns.in_namespace(namespace, measure)


def test_s3_answers_a_home_node_after_its_round_trip(far: Cluster) -> None:
    """The round trip S3 adds is the time to the first byte from node1 less that of the same
    GET made inside S3's own namespace (MinIO's own time), the two made in turn."""
    record = _record(far)
    minio = load_record(services_dir(record), "minio")
    assert minio is not None
    assert record.s3_round_trip_ms("home") == S3_RTT_MS
    namespaces = (record.nodes[0].namespace, record.s3_namespace)
    clients = [make_client(f"http://{S3_ADDRESS}:9000", minio.secrets["access_key"], minio.secrets["secret_key"])
               for _ in namespaces]
    netns.in_namespace(namespaces[0], lambda: clients[0].put_object(Bucket="swiftcloud", Key="wan/small",
                                                                     Body=b"x" * 100))
    for client, namespace in zip(clients, namespaces):
        _first_byte(client, namespace)  # opens the connection
    pairs = [[_first_byte(client, namespace) * 1000 for client, namespace in zip(clients, namespaces)]
             for _ in range(21)]
    added = statistics.median(node - inside for node, inside in pairs)
    print(f"S3 first byte from node1 {statistics.median(p[0] for p in pairs):.2f} ms, inside S3's namespace "
          f"{statistics.median(p[1] for p in pairs):.2f} ms: {added:.2f} ms added")
    assert abs(added - S3_RTT_MS) <= 0.15 * S3_RTT_MS, f"S3 added {added:.2f} ms, configured {S3_RTT_MS}"


READ = """
import sys, time
began = time.perf_counter()
with open(sys.argv[1], "rb") as handle:
    size = len(handle.read())
print(size, time.perf_counter() - began)
"""


def test_a_mosastore_read_from_a_remote_region_pays_the_round_trip(far: Cluster) -> None:
    """A file whose chunks sit on node1's benefactor, read whole from node2 (home) and node3
    (60 ms away), each for the first time on that node: node3's read takes at least one
    configured round trip more (it asks the manager and the benefactor, both on node1)."""
    mount = f"{far.state}/cluster/mnt/mosastore"
    made = far.on_node("node1", sys.executable, "-c", "import os, sys; os.makedirs(sys.argv[1], exist_ok=True);"
                       " os.setxattr(sys.argv[1], 'user.mosastore.placement', b'local');"
                       " open(os.path.join(sys.argv[1], 'data'), 'wb').write(os.urandom(1 << 20))", f"{mount}/wan")
    assert made.returncode == 0, made.stderr
    seconds = {}
    for node in ("node2", "node3"):
        read = far.on_node(node, sys.executable, "-c", READ, f"{mount}/wan/data")
        assert read.returncode == 0, read.stderr
        size, elapsed = read.stdout.split()
        assert int(size) == 1 << 20
        seconds[node] = float(elapsed)
    print(f"MosaStore read of 1 MB on node1: from node2 {seconds['node2'] * 1000:.1f} ms, "
          f"from node3 {seconds['node3'] * 1000:.1f} ms")
    assert seconds["node3"] - seconds["node2"] >= RTT_MS / 1000, seconds


def test_nodes_reach_every_service_at_one_address(far: Cluster) -> None:
    record = far.record
    head = record["nodes"][0]["address"]
    for name, where in (("s3", S3_ADDRESS), ("mosastore-manager", head), ("hdfs-namenode", head)):
        for node in ("node2", "node3"):
            assert far.on_node(node, "getent", "hosts", name).stdout.split()[0] == where, (name, node)


def test_the_delay_line_is_a_recorded_process_of_the_hub(far: Cluster) -> None:
    record = far.record
    (line,) = [entry for entry in record["processes"] if entry["role"] == "delayline"]
    assert line["pid"] in netns.pids(record["hub"])
    assert Path(record["directory"], "delayline.json").exists()
