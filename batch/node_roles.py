"""What each store runs where, when a batch job brings it up (`batch.store_node` drives these).

A role starts the store's head on the first node, its daemon on every node, checks from
the head that every node joined, mounts the store on every node at the same path, and
names the `[storage.NAME]` table the run uses. Daemons listen on the node's address
(never the wildcard) on a port picked free there; logs go to the shared directory, data
to the node-local one. Everything a role started is stopped by the PID it recorded.
"""

from __future__ import annotations

import os
import subprocess
from typing import Any, ClassVar

from hostkit.mounts import detach, unmount
from hostkit.ports import free_port
from hostkit.processes import Process, started
from mosastore.deploy import FSTYPE as MOSASTORE_FSTYPE
from storage_adapters.chirp.service import FSTYPE as CHIRP_FSTYPE
from storage_adapters.hdfs.service import FSTYPE as HDFS_FSTYPE

MOUNT_DIR = "mnt"
STOP_S, HURRIED_STOP_S = 10.0, 1.0


class NodeRole:
    """One store's part on one node; subclasses say what runs."""

    backend: ClassVar[str]
    fstype: ClassVar[str]  # of the FUSE mount

    def __init__(self, node_dir: str, shared_dir: str) -> None:
        self.node_dir = node_dir
        self.shared_dir = shared_dir
        self.mountpoint = os.path.join(node_dir, MOUNT_DIR)
        self.started: list[Process] = []
        os.makedirs(node_dir, mode=0o700, exist_ok=True)

    @classmethod
    def prepare(cls, shared_dir: str) -> None:
        """What the driver makes in the shared directory before any node starts (nothing by default)."""

    def log(self, node: str, what: str) -> str:
        return os.path.join(self.shared_dir, f"{node}-{what}.log")

    def head_address(self, head: dict[str, Any]) -> str:
        """HOST:PORT of the head, which other nodes route to."""
        raise NotImplementedError

    def start_head(self, address: str) -> dict[str, Any]:
        """Start the head on this node (rank 0); what the others need to join it."""
        raise NotImplementedError

    def start_node(self, head: dict[str, Any], address: str, node: str) -> None:
        """Start this node's daemon."""
        raise NotImplementedError

    def check_head(self, head: dict[str, Any], nodes: list[str]) -> None:
        """On rank 0: wait until every node in `nodes` has joined."""
        raise NotImplementedError

    def mount(self, head: dict[str, Any], node: str) -> None:
        """Mount the store at `self.mountpoint`."""
        raise NotImplementedError

    def table(self, head: dict[str, Any]) -> dict[str, Any]:
        """The `[storage.NAME]` table of the run (no secrets: the mount is already there)."""
        raise NotImplementedError

    def unmount(self, timeout: float) -> None:
        """Release the mount and wait up to `timeout` for its client to end."""
        clients = [process for process in self.started if process.role == "client"]
        if clients:
            unmount(self.mountpoint, self.fstype, clients[0], timeout)

    def stop(self, hurry: bool = False) -> None:
        """Unmount, then stop what this node started, newest first.

        In a `hurry` (the batch system is ending the step, and signals every process
        of it, daemons included, before killing them moments later), the mount is
        detached first, so that it goes even if its client dies mid-request, and the
        processes get little time."""
        grace = HURRIED_STOP_S if hurry else STOP_S
        try:
            if hurry:
                detach(self.mountpoint)
            self.unmount(grace)
        finally:
            for process in reversed(self.started):
                self.stop_process(process, grace)
            self.started.clear()
            self.cleanup()

    def stop_process(self, process: Process, grace: float) -> None:
        """Stop one process this node started: SIGTERM, SIGKILL after `grace`."""
        process.stop(grace)

    def cleanup(self) -> None:
        """What is left once every process stopped (nothing by default)."""


class MosaStoreRole(NodeRole):
    """The manager on the first node; a benefactor and a FUSE client on every node."""

    backend = "mosastore"
    fstype = MOSASTORE_FSTYPE

    @classmethod
    def prepare(cls, shared_dir: str) -> None:
        from mosastore.auth import new_secret, write_secret_file

        write_secret_file(os.path.join(shared_dir, "secret"), new_secret())

    @property
    def secret_file(self) -> str:
        return os.path.join(self.shared_dir, "secret")  # made by `prepare`, mode 600

    def head_address(self, head: dict[str, Any]) -> str:
        return str(head["manager"])

    def start_head(self, address: str) -> dict[str, Any]:
        from mosastore import deploy
        from mosastore.manager import DEFAULT_CHUNK_SIZE

        port = free_port(address)
        self.started.append(deploy.start_manager(os.path.join(self.node_dir, "manager"), port, self.secret_file,
                                                 DEFAULT_CHUNK_SIZE, self.log("head", "manager"), address))
        return {"manager": f"{address}:{port}"}

    def start_node(self, head: dict[str, Any], address: str, node: str) -> None:
        from mosastore import deploy

        self.started.append(deploy.start_benefactor(
            node, os.path.join(self.node_dir, "chunks"), free_port(address), head["manager"], self.secret_file,
            self.log(node, "benefactor"), address))

    def check_head(self, head: dict[str, Any], nodes: list[str]) -> None:
        from mosastore import deploy
        from mosastore.auth import check_secret, read_secret_file

        deploy.wait_for_benefactors(head["manager"], check_secret(read_secret_file(self.secret_file)), nodes,
                                    timeout=120)

    def mount(self, head: dict[str, Any], node: str) -> None:
        from mosastore import deploy

        self.started.append(deploy.mount(self.mountpoint, head["manager"], self.secret_file, node,
                                         os.path.join(self.node_dir, "spool"), self.log(node, "client")))

    def table(self, head: dict[str, Any]) -> dict[str, Any]:
        return {"backend": "mosastore", "mount_path": os.path.realpath(self.mountpoint), "manager": head["manager"],
                "auto_mount": False}


class HdfsRole(NodeRole):
    """The NameNode on the first node; a DataNode (named after its node, so block locations name
    nodes) and our FUSE mount on every node."""

    backend = "hdfs"
    fstype = HDFS_FSTYPE
    namenode: subprocess.Popen[bytes]  # rank 0 only

    def head_address(self, head: dict[str, Any]) -> str:
        return str(head["namenode"])

    def start_head(self, address: str) -> dict[str, Any]:
        from hostkit.processes import spawn, wait_until
        from storage_adapters.hdfs import service as hdfs

        directory = os.path.join(self.node_dir, "namenode")
        rpc_port, http_port = free_port(address), free_port(address)
        core, common = hdfs.properties(directory, f"{address}:{rpc_port}", address, http_port, 1,
                                       hdfs.DEFAULT_BLOCK_SIZE)
        log = self.log("head", "namenode")
        namenode = spawn(hdfs.namenode_command(directory, core, common, fresh=True), log, hdfs.environment())
        self.started.append(started("namenode", namenode, log, rpc_port))
        self.namenode = namenode
        wait_until(lambda: hdfs.namenode_state(http_port, address) is not None, namenode, "the HDFS NameNode", log,
                   timeout=120)
        return {"namenode": f"{address}:{rpc_port}", "http": f"{address}:{http_port}", "core": core,
                "common": common}

    def start_node(self, head: dict[str, Any], address: str, node: str) -> None:
        from hostkit.processes import spawn
        from storage_adapters.hdfs import service as hdfs

        port = free_port(address)
        argv = hdfs.datanode_command(os.path.join(self.node_dir, "datanode"), node, address,
                                     (port, free_port(address), free_port(address)), head["core"], head["common"])
        log = self.log(node, "datanode")
        process = spawn(argv, log, hdfs.environment())
        self.started.append(started("datanode", process, log, port, node))

    def check_head(self, head: dict[str, Any], nodes: list[str]) -> None:
        from hostkit.processes import wait_until
        from storage_adapters.hdfs import service as hdfs

        host, http_port = head["http"].rsplit(":", 1)
        wait_until(lambda: hdfs.ready(int(http_port), len(nodes), host), self.namenode,
                   "HDFS (every DataNode live, safe mode off)", self.log("head", "namenode"), timeout=120)

    def mount(self, head: dict[str, Any], node: str) -> None:
        from storage_adapters.hdfs import service as hdfs

        self.started.append(hdfs.mount(self.mountpoint, head["namenode"], os.path.join(self.node_dir, "spool"),
                                       self.log(node, "client")))

    def table(self, head: dict[str, Any]) -> dict[str, Any]:
        return {"backend": "hdfs", "mode": "shared", "namenode": head["namenode"], "http": head["http"],
                "mount_path": os.path.realpath(self.mountpoint), "auto_mount": False}


class ChirpRole(NodeRole):
    """One chirp_server, on the first node, mounted with our FUSE client.

    Chirp is one server's directory: servers on the other nodes would hold nothing the
    run's store sees. Its unix authentication proves a user by a file the server names
    on its own host, so clients on other nodes cannot authenticate: a job with Chirp
    must run on one node, and says so otherwise.
    """

    backend = "chirp"
    fstype = CHIRP_FSTYPE

    def head_address(self, head: dict[str, Any]) -> str:
        return str(head["server"])

    def start_head(self, address: str) -> dict[str, Any]:
        from hostkit.ports import port_open
        from hostkit.processes import spawn, wait_until
        from storage_adapters.chirp import service as chirp

        port = free_port(address)
        argv, log = chirp.server_argv(self.node_dir, "node0", chirp.default_subjects(), address, port)
        server = spawn(argv, log)
        self.started.append(started("server", server, log, port))
        wait_until(lambda: port_open(port, address), server, "chirp_server", log, timeout=30)
        return {"server": f"{address}:{port}"}

    def start_node(self, head: dict[str, Any], address: str, node: str) -> None:
        """No daemon of its own: every node mounts the head's server."""

    def check_head(self, head: dict[str, Any], nodes: list[str]) -> None:
        from hostkit.errors import ServiceError

        if len(nodes) > 1:
            raise ServiceError(f"a job with --storage chirp must run on one node, not {len(nodes)}: Chirp's unix "
                               "authentication works only on the server's own host; for several nodes, run a "
                               "standing chirp_server and name it in a [storage.chirp] table")

    def mount(self, head: dict[str, Any], node: str) -> None:
        from storage_adapters.chirp import service as chirp

        self.started.append(chirp.mount(self.mountpoint, head["server"], os.path.join(self.node_dir, "spool"),
                                        self.log(node, "client")))

    def table(self, head: dict[str, Any]) -> dict[str, Any]:
        return {"backend": "chirp", "mode": "shared", "server": head["server"],
                "mount_path": os.path.realpath(self.mountpoint), "auto_mount": False}

    def stop_process(self, process: Process, grace: float) -> None:
        from storage_adapters.chirp import service as chirp

        if process.role == "server":
            chirp.stop_servers([process], grace)  # and the processes it forked per connection
        else:
            process.stop(grace)

    def cleanup(self) -> None:
        from storage_adapters.chirp import service as chirp

        chirp.purge(self.node_dir)  # a root-started server keeps its files outside node_dir


ROLES: dict[str, type[NodeRole]] = {role.backend: role for role in (MosaStoreRole, HdfsRole, ChirpRole)}
