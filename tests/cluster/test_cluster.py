"""The emulated cluster end to end (issue 12): runs across node namespaces under MPI, MosaStore
with a benefactor per node and placement across them, shaped links and regional latency,
and `cluster down` leaving nothing behind, also after a killed run. A store mounted on the host
(MosaStore and its FUSE mount) is up while this module's clusters are: no process of a
cluster may hold a copy of that mount, which would keep its client serving after the host
unmounted it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path


import pytest

from cluster import lifecycle, probe
from hostkit.mounts import mounted_fstype
from hostkit.records import ServiceRecord
from mosastore.deploy import FSTYPE as MOSASTORE_FSTYPE
from storage_adapters.services import start_service, stop_service
from engine.observe.runlog import read_events
from cluster.regions import Region
from tests.cluster.conftest import ROOT, Cluster, assert_nothing_left, bring_up, environment, pids_in, traces
from tests.storage.mosastore.locality import chance_bar

WORKFLOW = """
import files;
app (file o) numbers (int i) { "seq" i (i + 40) @stdout=o }
app (file o) reverse (file i) { "sort" "-rn" @stdin=i @stdout=o }
app (file o) meet (string helper, string place, int need, int i) { "python3" helper place need i @stdout=o }
foreach i in [1:24] {
  file n <sprintf("out/numbers-%i.txt", i)> = numbers(i);
  file r <sprintf("out/reversed-%i.txt", i)> = reverse(n);
  file m <sprintf("out/meet-%i.txt", i)> = meet(argv("helper"), argv("place"), toint(argv("need")), i);
}
"""
# A meeting point: each task says which node runs it, then waits (for an observable condition,
# not a time) until tasks on NEED distinct nodes have arrived; it prints its node and host name.
# It can only be passed if the scheduler runs tasks on NEED nodes at once.
MEET = """
import os, socket, sys, time
place, need = sys.argv[1], int(sys.argv[2])
node = os.environ.get("SWIFTCLOUD_NODE", "local")
open(os.path.join(place, node), "a").close()
deadline = time.monotonic() + 120
while len(os.listdir(place)) < need:
    if time.monotonic() > deadline:
        sys.exit(f"only {sorted(os.listdir(place))} met within 120 s")
    time.sleep(0.01)
print(node, socket.gethostname())
"""
SPREAD = 4  # nodes that must run a task at once


@pytest.fixture(scope="module", autouse=True)
def host_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceRecord]:
    """A store mounted on the host before any cluster of this module comes up (MosaStore)."""
    state = str(tmp_path_factory.mktemp("host-store"))
    yield start_service("mosastore", state)
    stop_service("mosastore", state)


def assert_no_copy_of(mountpoint: str, record: dict) -> None:
    """No process of the cluster holds a mount namespace of its own that lists `mountpoint`."""
    ours = os.stat("/proc/self/ns/mnt").st_ino
    seen = 0
    for pid in pids_in(record):
        try:
            if os.stat(f"/proc/{pid}/ns/mnt").st_ino == ours:
                continue
        except OSError:
            continue  # ended meanwhile
        seen += 1
        assert mounted_fstype(mountpoint, f"/proc/{pid}/mountinfo") is None, \
            f"process {pid} of the cluster holds a copy of the host's mount {mountpoint}"
    assert seen > 0, "no process of the cluster has a mount namespace of its own"


def _nodes_of_run(run_dir: Path) -> Counter[str]:
    events = read_events(str(run_dir))
    return Counter(event["node"] for event in events if event.get("event") == "start")


def _meetings(run_dir: Path, helper: Path) -> dict[int, str]:
    """Task number -> the node the engine's log says ran that `meet` task (what the scheduler chose)."""
    events = read_events(str(run_dir))
    return {int(event["command"][-1]): event["node"] for event in events
            if event.get("event") == "start" and event["command"][:2] == ["python3", str(helper)]}


def test_a_run_spreads_over_the_nodes_and_gives_the_outputs_of_one_host(cluster8: Cluster, tmp_path: Path) -> None:
    script, helper = tmp_path / "spread.swift", tmp_path / "meet.py"
    script.write_text(WORKFLOW)
    helper.write_text(MEET)
    for where in ("here", "there", "place-here", "place-there"):
        (tmp_path / where).mkdir()
    alone = subprocess.run([sys.executable, "-m", "swiftcloud", "run", "--transport", "local", "-n", "3",
                            "--run-dir", str(tmp_path / "run-here"), str(script), f"--helper={helper}",
                            f"--place={tmp_path / 'place-here'}", "--need=1"], cwd=tmp_path / "here",
                           env=environment(cluster8.state), capture_output=True, text=True, timeout=300)
    assert alone.returncode == 0, alone.stderr
    run = cluster8.swiftcloud("run", "--cluster", "-n", "9", "--run-dir", str(tmp_path / "run-there"),
                              str(script), f"--helper={helper}", f"--place={tmp_path / 'place-there'}",
                              f"--need={SPREAD}", cwd=tmp_path / "there")
    assert run.returncode == 0, run.stderr
    for i in range(1, 25):
        for name in (f"numbers-{i}.txt", f"reversed-{i}.txt"):
            assert (tmp_path / "there" / "out" / name).read_bytes() == (tmp_path / "here" / "out" / name).read_bytes()
        expected = "\n".join(str(n) for n in range(i + 40, i - 1, -1)) + "\n"
        assert (tmp_path / "there" / "out" / f"reversed-{i}.txt").read_text() == expected
    names = {node["name"] for node in cluster8.record["nodes"]}
    chosen = _meetings(tmp_path / "run-there", helper)
    assert sorted(chosen) == list(range(1, 25)), chosen
    for i, node in chosen.items():  # each task ran in the node the scheduler chose, under its host name
        assert (tmp_path / "there" / "out" / f"meet-{i}.txt").read_text().split() == [node, node]
    assert set(chosen.values()) <= names
    assert len(set(os.listdir(tmp_path / "place-there"))) >= SPREAD
    used = _nodes_of_run(tmp_path / "run-there")
    assert set(used) <= names and len(used) >= SPREAD, used


LOCALITY_TASKS = 40
LOCALITY = f"""
app (file o) produce (int i) {{ "head" "-c" "262144" "/dev/urandom" @stdout=o }}
app (file o) digest (file i) {{ "sha256sum" @i @stdout=o }}
foreach i in [1:{LOCALITY_TASKS}] {{
  file part <sprintf("stage1/part_%i.dat", i)> = produce(i);
  file sum <sprintf("stage2/part_%i.sha", i)> = digest(part);
}}
"""
COUNT = """
import json, sys
from mosastore.adapter import MosaStoreAdapter
from tests.storage.mosastore.locality import count_locality
adapter = MosaStoreAdapter(sys.argv[1], "mosastore")
count = count_locality(sys.argv[2], adapter)
holders = [adapter.locations(f"stage1/part_{i}.dat") for i in range(1, int(sys.argv[3]) + 1)]
print(json.dumps({"local": count.local, "counted": count.counted, "holders": holders}))
"""


def test_mosastore_placement_keeps_consumers_on_the_node_with_their_input(cluster8: Cluster, tmp_path: Path) -> None:
    mount = f"{cluster8.state}/cluster/mnt/mosastore"
    made = cluster8.on_node("node1", sys.executable, "-c", "import os, sys; os.makedirs(sys.argv[1], exist_ok=True);"
                            " os.setxattr(sys.argv[1], 'user.mosastore.placement', b'local')", f"{mount}/stage1")
    assert made.returncode == 0, made.stderr
    script = tmp_path / "locality.swift"
    script.write_text(LOCALITY)
    run = cluster8.swiftcloud("run", "--cluster", "--storage", "mosastore", "--run-dir", str(tmp_path / "run"),
                              str(script), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    counted = cluster8.on_node("node1", sys.executable, "-c", COUNT, mount, str(tmp_path / "run" / "events.jsonl"),
                               str(LOCALITY_TASKS))
    assert counted.returncode == 0, counted.stderr
    result = json.loads(counted.stdout)
    holders = result["holders"]
    assert all(len(held) == 1 for held in holders), holders  # `local`: every chunk on the writer's node
    assert len({held[0] for held in holders}) >= 4, "producers should have run on several nodes"
    assert result["counted"] == LOCALITY_TASKS
    print(f"locality: {result['local']}/{result['counted']} consumers on the node holding their input")
    # 33-40 of 40 are seen, the low end on a loaded machine (placement is a soft preference with
    # a locality wait); placement blind to data, one worker per node, reaches the bar (15 of 40
    # on 8 nodes) with probability at most 1e-4.
    bar = chance_bar(LOCALITY_TASKS, len(cluster8.record["nodes"]))
    assert result["local"] >= bar, f"only {result['local']} of {LOCALITY_TASKS} consumers ran where their input is"
    for i in (1, LOCALITY_TASKS):  # and the digests are of the data the producers wrote
        digest = cluster8.on_node("node2", "sha256sum", f"{mount}/stage1/part_{i}.dat")
        stored = cluster8.on_node("node3", "cat", f"{mount}/stage2/part_{i}.sha")
        assert digest.stdout.split()[0] == stored.stdout.split()[0]


SEEN = """
import files;
app (file o) host () { "hostname" @stdout=o }
app (file o) node () { "printenv" "SWIFTCLOUD_NODE" @stdout=o }
foreach i in [1:24] {
  file h <sprintf("seen/host-%i.txt", i)> = host();
  file e <sprintf("seen/node-%i.txt", i)> = node();
  trace("seen", i, read(h), read(e));
}
"""


def test_mosastore_files_written_on_one_node_are_whole_on_the_others(cluster8: Cluster, tmp_path: Path) -> None:
    """The engine (node1) reads what apps on other nodes wrote while they wrote more in the
    same directory. Seen broken twice: sizes cached by a host's kernel while another host
    wrote (FUSE writeback cache), and an app's write landing during its worker's commit."""
    script = tmp_path / "seen.swift"
    script.write_text(SEEN)
    names = {node["name"] for node in cluster8.record["nodes"]}
    for attempt in range(2):  # the second run replaces every file the first one wrote
        run = cluster8.swiftcloud("run", "--cluster", "--storage", "mosastore", str(script), cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        traced = [line.replace("trace: seen,", "").split(",") for line in run.stdout.replace("\n,", ",").splitlines()
                  if line.startswith("trace: seen,")]
        assert len(traced) == 24, run.stdout
        empty = [fields[0] for fields in traced if fields[1].strip() not in names or fields[2].strip() not in names]
        assert not empty, f"run {attempt + 1}: iterations {empty} read an empty or partial file: {run.stdout}"


def test_nodes_are_separate_hosts(cluster8: Cluster) -> None:
    seen = cluster8.on_node("node5", "hostname")
    assert seen.stdout.strip() == "node5"
    resolved = cluster8.on_node("node2", "getent", "hosts", "node7")
    assert resolved.stdout.split()[0] == cluster8.record["nodes"][6]["address"]
    scratch = cluster8.on_node("node4", sys.executable, "-c", "import tempfile; print(tempfile.mkdtemp())")
    made = scratch.stdout.strip()
    assert made.startswith(f"{cluster8.state}/cluster/scratch/")  # TMPDIR: the node's own scratch
    assert cluster8.on_node("node4", "test", "-d", made).returncode == 0
    assert cluster8.on_node("node6", "test", "-d", made).returncode == 1 and not os.path.exists(made)
    missing = cluster8.swiftcloud("cluster", "exec", "node99", "--", "true")
    assert missing.returncode == 1 and "no node 'node99'" in missing.stderr


def test_the_nodes_hold_no_copy_of_a_store_mounted_on_the_host(cluster8: Cluster, host_store: ServiceRecord) -> None:
    mountpoint = host_store.info["mountpoint"]
    assert mounted_fstype(mountpoint) == MOSASTORE_FSTYPE
    assert_no_copy_of(mountpoint, cluster8.record)


def test_down_after_a_killed_run_leaves_nothing(tmp_path: Path) -> None:
    cluster = bring_up(tmp_path / "state", "--nodes", "2", "--storage", "mosastore")
    made = traces(cluster.record)
    script = tmp_path / "long.swift"
    script.write_text('app (void o) nap (int i) { "sleep" "600" }\nforeach i in [1:2] { nap(i); }\n')
    run = subprocess.Popen([sys.executable, "-m", "swiftcloud", "run", "--cluster", "--storage", "mosastore",
                            str(script)], cwd=tmp_path, env=cluster.env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while _sleeping(pids_in(cluster.record)) < 2:
            assert run.poll() is None, "the run ended before its apps started"
            assert time.monotonic() < deadline, "the apps never started"
            time.sleep(0.1)
        inside = pids_in(cluster.record)
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
        down = cluster.swiftcloud("cluster", "down")
        assert down.returncode == 0, down.stderr
        assert_nothing_left(made, inside)
    finally:
        if run.poll() is None:
            run.kill()
        cluster.swiftcloud("cluster", "down")


def _sleeping(pids: list[int]) -> int:
    count = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                count += cmdline.read().split(b"\0")[:2] == [b"sleep", b"600"]
        except OSError:
            continue
    return count


def test_links_are_shaped_and_remote_regions_are_far(tmp_path: Path, host_store: ServiceRecord) -> None:
    """Lower bounds only (a loaded machine can be slower, never faster): a transfer takes at
    least its size over the configured rate, and a round trip between regions at least the
    configured one. test_wan.py and bench/cluster_links.py measure how close they come. The
    delay line between the regions holds no copy of the host's mounts either."""
    regions = (Region("home", 1, 40.0), Region("remote", 1, 40.0, rtt_ms=50.0))
    state = str(tmp_path / "state")
    cluster = lifecycle.up(state, 2, regions)
    record = json.loads(Path(cluster.path("cluster.json")).read_text())
    made = traces(record)
    try:
        assert any(entry["role"] == "delayline" for entry in record["processes"])
        assert_no_copy_of(host_store.info["mountpoint"], record)
        home, remote = cluster.nodes
        transfer = probe.bandwidth(remote, home, 4 << 20)
        assert transfer.mbit <= 40.0 * 1.02, f"{transfer.mbit:.1f} Mbit/s through a 40 Mbit/s link"
        far = min(probe.round_trips(remote, home))
        assert far >= 0.050, f"{far * 1000:.2f} ms between regions 50 ms apart"
    finally:
        lifecycle.down(state)
    assert_nothing_left(made)


def test_a_cluster_whose_record_was_deleted_can_still_be_taken_down(tmp_path: Path) -> None:
    cluster = bring_up(tmp_path / "state", "--nodes", "2")
    made = traces(cluster.record)
    tag = cluster.record["tag"]
    # As a user deleting the state directory with `rm -rf`: the nodes' disks are mounted in it,
    # so their mount points stay (busy) while everything else goes, their images included.
    shutil.rmtree(tmp_path / "state", ignore_errors=True)
    assert not (tmp_path / "state" / "cluster" / "cluster.json").exists()
    (tmp_path / "state").mkdir(exist_ok=True)
    try:
        down = cluster.swiftcloud("cluster", "down")
        assert down.returncode == 0 and f"swiftcloud cluster down --tag {tag}" in down.stderr
        by_tag = cluster.swiftcloud("cluster", "down", "--tag", tag)
        assert by_tag.returncode == 0 and "removed 4 namespaces and 2 node disks" in by_tag.stderr, by_tag.stderr
    finally:
        cluster.swiftcloud("cluster", "down", "--tag", tag)
    assert_nothing_left(made)


def test_usage_errors_are_clear(tmp_path: Path) -> None:
    cluster = Cluster(tmp_path, environment(tmp_path))
    try:
        _usage_errors(cluster, tmp_path)
    finally:  # an `up` that wrongly succeeded must not leave a cluster behind
        cluster.swiftcloud("cluster", "down")


def _usage_errors(cluster: Cluster, tmp_path: Path) -> None:
    run = cluster.swiftcloud("run", "--cluster", str(ROOT / "examples" / "hello.swift"))
    assert run.returncode == 1 and "no cluster is up" in run.stderr and "cluster up --nodes" in run.stderr
    bad = cluster.swiftcloud("cluster", "up", "--nodes", "0")
    assert bad.returncode == 2 and "--nodes must be between 1 and 64" in bad.stderr
    store = cluster.swiftcloud("cluster", "up", "--storage", "nfs")
    assert store.returncode == 1 and "the cluster can start local, mosastore, s3, hdfs, chirp" in store.stderr
    regions = tmp_path / "regions.toml"
    regions.write_text('[[region]]\nname = "a"\nnodes = 2\nnode_mbit = -1\n')
    wrong = cluster.swiftcloud("cluster", "up", "--regions", str(regions))
    assert wrong.returncode == 2 and "region 1 (a): 'node_mbit' must be a number >= 0" in wrong.stderr
    assert not (tmp_path / "cluster" / "cluster.json").exists()
