"""s3fs on the cluster: the cluster's MinIO bucket mounted with s3fs-fuse inside every node.

`--storage s3fs` alone starts S3 too; a file written through the mount on one node is read
whole on another and is an object of the bucket; the keys are in no process's argv; the
mounts exist only inside the nodes, and `down` leaves none of them behind."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import psutil

from hostkit.mounts import mounted_fstype
from storage_adapters.services.s3fs_mount import S3FS_FSTYPE
from tests.cluster.conftest import bring_up, take_down


def test_a_file_written_through_s3fs_on_one_node_is_read_whole_on_another(tmp_path: Path) -> None:
    cluster = bring_up(tmp_path / "state", "--nodes", "3", "--storage", "s3fs")
    try:
        record = cluster.record
        assert record["storage"] == ["s3", "s3fs"], record["storage"]
        services = tmp_path / "state" / "cluster" / "services"
        mount = json.loads((services / "s3fs" / "state.json").read_text())["info"]
        keys = json.loads((services / "minio" / "state.json").read_text())["secrets"]
        assert os.stat(mount["passwd_file"]).st_mode & 0o777 == 0o600
        clients = [psutil.Process(process["pid"]) for process in mount["processes"]]
        assert len(clients) == 3
        for client in clients:
            command = " ".join(client.cmdline())
            assert "s3fs" in command and not any(key in command for key in keys.values())
        # Mounted inside each node's own mount namespace, not on the host.
        assert mounted_fstype(mount["mountpoint"]) is None
        for node in record["nodes"]:
            assert mounted_fstype(mount["mountpoint"], f"/proc/{node['holder_pid']}/mountinfo") == S3FS_FSTYPE

        data = os.urandom(3 * 1024 * 1024 + 17)
        (tmp_path / "source.bin").write_bytes(data)
        written = cluster.on_node("node2", "cp", str(tmp_path / "source.bin"), f"{mount['mountpoint']}/shared.bin")
        assert written.returncode == 0, written.stderr
        read = cluster.on_node("node3", "sha256sum", f"{mount['mountpoint']}/shared.bin")
        assert read.returncode == 0, read.stderr
        assert read.stdout.split()[0] == hashlib.sha256(data).hexdigest()
        fetched = cluster.on_node("node1", sys.executable, "-m", "swiftcloud", "get", "--storage", "s3",
                                  "shared.bin", str(tmp_path / "from-bucket.bin"))
        assert fetched.returncode == 0, fetched.stderr
        assert (tmp_path / "from-bucket.bin").read_bytes() == data
    finally:
        take_down(cluster)  # also asserts that no mount under the cluster's directory is left
