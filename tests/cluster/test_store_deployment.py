"""Chirp and HDFS deployed as the study deployed them, on a 3-node cluster.

Chirp: one multi-server volume over every node's chirp_server. Files written through the
mount and by staging land on at least 3 data servers (counted in each server's directory on
its node), read back byte-identical through the mount of every node, are invisible under
their name until complete, and deleting one removes its data on its server. HDFS: a file
written through the mount and one by staging each have 3 replicas on 3 distinct DataNodes
and 128 MiB blocks, as the NameNode reports them.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster.conftest import Cluster, bring_up, take_down

FILES = 100
STAGED = 6


@pytest.fixture(scope="module")
def cluster3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    cluster = bring_up(tmp_path_factory.mktemp("deploy"), "--nodes", "3", "--storage", "chirp,hdfs")
    try:
        yield cluster
    finally:
        take_down(cluster)


def content(name: str) -> bytes:
    """A file's expected bytes, from its name alone (sizes from 0 to ~200 KB)."""
    seed = hashlib.sha256(name.encode()).digest()
    return seed * (int.from_bytes(seed[:2], "big") * 3 // 32)


def on_node_python(cluster: Cluster, node: str, code: str, *args: str) -> subprocess.CompletedProcess[str]:
    run = cluster.on_node(node, sys.executable, "-c", code, *args)
    assert run.returncode == 0, run.stderr
    return run


WRITE = """
import hashlib, os, sys
directory = sys.argv[1]
os.makedirs(directory, exist_ok=True)
for i in range(int(sys.argv[2])):
    name = f"f{i:03d}"
    seed = hashlib.sha256(name.encode()).digest()
    with open(os.path.join(directory, name), "wb") as out:
        out.write(seed * (int.from_bytes(seed[:2], "big") * 3 // 32))
"""
DIGESTS = """
import hashlib, json, os, sys
directory = sys.argv[1]
print(json.dumps({name: hashlib.sha256(open(os.path.join(directory, name), "rb").read()).hexdigest()
                  for name in sorted(os.listdir(directory))}))
"""


def chirp_root(cluster: Cluster, node: str) -> Path:
    """What node `node`'s chirp_server serves, in the node's own directory."""
    return cluster.state / "cluster" / "nodes" / node / "chirp" / "root"


def data_files(cluster: Cluster) -> dict[str, set[str]]:
    """The data files on each node's server (without the server's own `.__acl`)."""
    return {node: {path.name for path in (chirp_root(cluster, node) / "volume" / "data").glob("*")
                   if not path.name.startswith(".__")}
            for node in ("node1", "node2", "node3")}


def stub(cluster: Cluster, logical: str) -> tuple[str, Path]:
    """The node and on-disk path of a file's data, read from its stub on the directory server."""
    magic, server, path, size = (chirp_root(cluster, "node1") / "volume" / "root" / logical).read_text().splitlines()
    assert magic == "chirp-multi 1" and size.startswith("size ")
    node = server.split(":")[0]
    return node, chirp_root(cluster, node) / path.lstrip("/")


def test_chirp_files_spread_over_the_data_servers_and_read_back_everywhere(cluster3: Cluster, tmp_path: Path) -> None:
    record = json.loads((cluster3.state / "cluster" / "services" / "chirp" / "state.json").read_text())
    mount = record["info"]["mountpoint"]
    assert record["info"]["volume"] == "multi"
    on_node_python(cluster3, "node1", WRITE, f"{mount}/spread", str(FILES))
    for i in range(STAGED):
        name = f"s{i}"
        (tmp_path / name).write_bytes(content(name))
        put = cluster3.on_node(f"node{i % 3 + 1}", sys.executable, "-m", "swiftcloud", "put", "--storage", "chirp",
                               str(tmp_path / name), f"spread/{name}")
        assert put.returncode == 0, put.stderr
    expected = {f"f{i:03d}": content(f"f{i:03d}") for i in range(FILES)}
    expected |= {f"s{i}": content(f"s{i}") for i in range(STAGED)}
    spread = data_files(cluster3)
    assert sum(map(len, spread.values())) == FILES + STAGED, spread
    assert all(len(files) >= 10 for files in spread.values()), {node: len(files) for node, files in spread.items()}
    for name, data in expected.items():
        node, path = stub(cluster3, f"spread/{name}")
        assert path.read_bytes() == data, (name, node)
    digests = {name: hashlib.sha256(data).hexdigest() for name, data in expected.items()}
    for node in ("node1", "node2", "node3"):
        seen = json.loads(on_node_python(cluster3, node, DIGESTS, f"{mount}/spread").stdout)
        assert seen == digests, node


HOLD = """
import os, sys
out = open(sys.argv[1], "wb")
out.write(b"x" * 100000)
out.flush()
print("half", flush=True)
sys.stdin.readline()
out.write(b"y" * 100000)
out.close()
print("closed", flush=True)
"""


def test_a_chirp_file_is_invisible_until_complete_and_delete_removes_its_data(cluster3: Cluster) -> None:
    mount = json.loads((cluster3.state / "cluster" / "services" / "chirp" / "state.json").read_text())["info"]["mountpoint"]
    on_node_python(cluster3, "node1", "import os, sys; os.makedirs(sys.argv[1], exist_ok=True)", f"{mount}/held")
    writer = subprocess.Popen([sys.executable, "-m", "swiftcloud", "cluster", "exec", "node1", "--", sys.executable,
                               "-c", HOLD, f"{mount}/held/big"], cwd=cluster3.state, env=cluster3.env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None and writer.stdin is not None
        assert writer.stdout.readline().strip() == "half"
        listed = cluster3.on_node("node2", "ls", "-A", f"{mount}/held")
        assert listed.returncode == 0 and listed.stdout.split() == [], listed.stdout
        assert not (chirp_root(cluster3, "node1") / "volume" / "root" / "held" / "big").exists()
        writer.stdin.write("go\n")
        writer.stdin.flush()
        assert writer.stdout.readline().strip() == "closed"
    finally:
        writer.communicate(timeout=60)
    assert writer.returncode == 0
    size = cluster3.on_node("node2", "stat", "-c", "%s", f"{mount}/held/big")
    assert size.stdout.strip() == "200000", size.stderr
    node, data = stub(cluster3, "held/big")
    assert data.read_bytes() == b"x" * 100000 + b"y" * 100000
    removed = cluster3.on_node("node3", "rm", f"{mount}/held/big")
    assert removed.returncode == 0, removed.stderr
    assert not data.exists(), f"the data of a deleted file is left on {node}"
    assert not (chirp_root(cluster3, "node1") / "volume" / "root" / "held" / "big").exists()


FILE_FACTS = """
import json, sys, urllib.request
base = "http://hdfs-namenode:9870/webhdfs/v1"
def ask(path, op):
    with urllib.request.urlopen(f"{base}{path}?op={op}&user.name=root", timeout=30) as answer:
        return json.load(answer)
out = {}
for path in sys.argv[1:]:
    status = ask(path, "GETFILESTATUS")["FileStatus"]
    blocks = ask(path, "GETFILEBLOCKLOCATIONS")["BlockLocations"]["BlockLocation"]
    out[path] = {"replication": status["replication"], "blockSize": status["blockSize"],
                 "hosts": [block["hosts"] for block in blocks]}
print(json.dumps(out))
"""


def test_hdfs_files_have_three_replicas_on_distinct_datanodes_and_hadoops_block_size(cluster3: Cluster,
                                                                                      tmp_path: Path) -> None:
    record = json.loads((cluster3.state / "cluster" / "services" / "hdfs" / "state.json").read_text())
    assert (record["info"]["replication"], record["info"]["block_size"]) == (3, 134217728)
    mount = record["info"]["mountpoint"]
    on_node_python(cluster3, "node2", "import os, sys; os.makedirs(sys.argv[1], exist_ok=True); "
                   "open(sys.argv[1] + '/mounted.bin', 'wb').write(os.urandom(1 << 20))", f"{mount}/deploy")
    (tmp_path / "staged.bin").write_bytes(b"z" * (1 << 20))
    put = cluster3.on_node("node3", sys.executable, "-m", "swiftcloud", "put", "--storage", "hdfs",
                           str(tmp_path / "staged.bin"), "deploy/staged.bin")
    assert put.returncode == 0, put.stderr
    # A DataNode the NameNode saw as stale when a block was allocated (a loaded host) gets its
    # replica from HDFS's re-replication a few seconds later: wait for that, boundedly.
    deadline = time.monotonic() + 60
    while True:
        facts = json.loads(on_node_python(cluster3, "node1", FILE_FACTS, "/deploy/mounted.bin",
                                          "/deploy/staged.bin").stdout)
        placed = all(fact["hosts"] and all(sorted(hosts) == ["node1", "node2", "node3"] for hosts in fact["hosts"])
                     for fact in facts.values())
        if placed or time.monotonic() > deadline:
            break
        time.sleep(1)
    for path, fact in facts.items():
        assert (fact["replication"], fact["blockSize"]) == (3, 134217728), path
        assert fact["hosts"] and all(sorted(hosts) == ["node1", "node2", "node3"] for hosts in fact["hosts"]), fact
