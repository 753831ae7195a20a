"""`swiftcloud services start hdfs [--datanodes N] [--replication R]`: a real HDFS (NameNode + N
DataNodes) on 127.0.0.1.

The servers are Apache Hadoop's own (`org.apache.hadoop.hdfs.server.*`),
run from the jars that setup copies from Maven Central into
`$SWIFTCLOUD_HADOOP_LIB` (default `/opt/swiftcloud/hadoop/lib`). Under
`<state>/hdfs/`: `name/` (the NameNode's metadata, formatted at the first
start), `nodeI/data` (DataNode `nodeI`'s blocks), one configuration directory
per process (`conf-namenode`, `nodeI/conf`) and one log each. Every address
and bind host is 127.0.0.1 on ports chosen free at start; each DataNode
reports its emulated node name (`dfs.datanode.hostname`), so the block
locations the NameNode gives name nodes, not addresses. `start` returns once
the NameNode is out of safe mode with every DataNode live (its JMX says so),
and the mount for the shared mode is up at `<state>/hdfs/mnt`.

As Hadoop deploys it by default: replication 3 (never more than the DataNodes)
and 128 MiB blocks. In HDFS the client decides a file's replication and block
size when it creates the file, so the mount is started with both, the record
names both, and the adapter's clients take them from the record.

HDFS authenticates with Kerberos or not at all ("simple": a client names its
user). These servers bind loopback only, keep files private to their owner
(umask 077, data directories 700) and check permissions, but any local process
could claim any user: docs/storage.md says so.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import sys
import urllib.request
from dataclasses import asdict
from typing import Any
from xml.sax.saxutils import escape

from hostkit.errors import MissingDependencyError, ServiceError
from hostkit.mounts import mount_client, recorded_processes, stop_mounted_service, unmount
from hostkit.ports import LOOPBACK, free_port
from hostkit.processes import Process, log_tail, spawn, started, stop_together, wait_until
from hostkit.records import ServiceRecord, running_record, save_record, service_dir

NAME = "hdfs"
FSTYPE = "fuse.hdfs"
DEFAULT_LIB = "/opt/swiftcloud/hadoop/lib"
DEFAULT_BLOCK_SIZE = 128 * 1024 * 1024  # Hadoop's dfs.blocksize (hdfs-default.xml)
DEFAULT_REPLICATION = 3  # Hadoop's dfs.replication (hdfs-default.xml)
INSTALL_HINT = "bash setup.d/40-hdfs.sh (Hadoop's jars from Maven Central, and Java)"
NAMENODE_CLASS = "org.apache.hadoop.hdfs.server.namenode.NameNode"
DATANODE_CLASS = "org.apache.hadoop.hdfs.server.datanode.DataNode"
WEBAPPS = ("hdfs", "datanode", "secondary", "static")


def hadoop_lib() -> str:
    return os.environ.get("SWIFTCLOUD_HADOOP_LIB") or DEFAULT_LIB


def class_path(conf_dir: str) -> str:
    """The configuration directory, then hadoop-hdfs (first, or an old jackson-core wins),
    then every other jar."""
    jars = sorted(glob.glob(os.path.join(hadoop_lib(), "*.jar")))
    hdfs = [jar for jar in jars if os.path.basename(jar).startswith("hadoop-hdfs-3")]
    if not hdfs or shutil.which("java") is None:
        raise MissingDependencyError(f"HDFS needs Java and Hadoop's jars in {hadoop_lib()}: {INSTALL_HINT}")
    return os.pathsep.join([conf_dir, *hdfs, *(jar for jar in jars if jar not in hdfs)])


def node_names(count: int) -> list[str]:
    return [f"node{index}" for index in range(count)]


def _site(properties: dict[str, object]) -> str:
    entries = "".join(f"  <property><name>{escape(key)}</name><value>{escape(str(value))}</value></property>\n"
                      for key, value in properties.items())
    return f'<?xml version="1.0"?>\n<configuration>\n{entries}</configuration>\n'


def write_conf(conf_dir: str, core: dict[str, object], hdfs: dict[str, object]) -> None:
    """core-site.xml, hdfs-site.xml and the empty webapps directories the HTTP servers look
    for on the class path."""
    os.makedirs(conf_dir, mode=0o700, exist_ok=True)
    for webapp in WEBAPPS:
        os.makedirs(os.path.join(conf_dir, "webapps", webapp), exist_ok=True)
    for name, properties in (("core-site.xml", core), ("hdfs-site.xml", hdfs)):
        with open(os.path.join(conf_dir, name), "w") as handle:
            handle.write(_site(properties))


# The daemons' JVMs: the serial collector and the quick compiler (C1) alone. With the defaults
# (G1's concurrent threads, and C2 compiling the hot paths over again as the load shifts) the
# NameNode's and DataNodes' own JVM threads took the cores their requests wanted: four 1 MB
# files at a time through the mount went at 28-32 MB/s, 61-62 with these (docs/storage.md).
JVM_TUNING = ("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")


def java(conf_dir: str, main_class: str, *args: str, log_dir: str) -> list[str]:
    """The command line of one Hadoop server (`main_class`) with `conf_dir` first on its class path."""
    # The daemons' own temporaries (Jetty's work directory) stay beside their logs: a daemon
    # killed outright would otherwise leave them in /tmp (and, without -UsePerfData, its
    # /tmp/hsperfdata_USER/PID file).
    temporaries = os.path.join(log_dir, "tmp")
    os.makedirs(temporaries, mode=0o700, exist_ok=True)
    return ["java", "-Xmx512m", "-XX:-UsePerfData", *JVM_TUNING, "--add-opens", "java.base/java.lang=ALL-UNNAMED",
            f"-Djava.io.tmpdir={temporaries}",
            f"-Dhadoop.log.dir={log_dir}", f"-Dhadoop.home.dir={os.path.dirname(hadoop_lib())}",
            "-Djava.net.preferIPv4Stack=true", "-cp", class_path(conf_dir), main_class, *args]


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("HADOOP_CONF_DIR", None)  # ours is on the class path
    return env


def _jmx_bean(http_port: int, name: str, host: str = LOOPBACK) -> dict[str, Any] | None:
    """One bean of the NameNode's JMX servlet (None while it does not answer)."""
    url = f"http://{host}:{http_port}/jmx?qry=Hadoop:service=NameNode,name={name}"
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            beans = json.load(response).get("beans", [])
    except (OSError, ValueError):
        return None
    return beans[0] if beans else None


def namenode_state(http_port: int, host: str = LOOPBACK) -> dict[str, Any] | None:
    """The NameNode's FSNamesystemState (None while it does not answer)."""
    return _jmx_bean(http_port, "FSNamesystemState", host)


def ready(http_port: int, datanodes: int, host: str = LOOPBACK) -> bool:
    """Every DataNode live and safe mode off."""
    state = namenode_state(http_port, host)
    if state is None or state.get("NumLiveDataNodes") != datanodes or state.get("FSState") != "Operational":
        return False
    info = _jmx_bean(http_port, "NameNodeInfo", host)
    return info is not None and not info.get("Safemode")


def heard_from(http_port: int, xfer_address: str, within_s: float, host: str = LOOPBACK) -> bool:
    """Is the DataNode serving blocks at `xfer_address` (ip:port) live to the NameNode, its
    last heartbeat less than `within_s` seconds ago (the NameNode counts whole seconds)?"""
    info = _jmx_bean(http_port, "NameNodeInfo", host)
    try:
        live = json.loads(info.get("LiveNodes") or "{}") if info is not None else {}
    except ValueError:
        return False
    return any(node.get("xferaddr") == xfer_address and node.get("lastContact", within_s) + 1 <= within_s
               for node in live.values())


def default_replication(datanodes: int) -> int:
    """Hadoop's default replication, but never more copies than DataNodes to hold them."""
    return min(DEFAULT_REPLICATION, datanodes)


def start(state_dir: str, datanodes: int = 1, replication: int | None = None,
          block_size: int = DEFAULT_BLOCK_SIZE) -> ServiceRecord:
    """Start a NameNode, `datanodes` DataNodes and the mount (or return the running service).
    `replication` defaults to `default_replication(datanodes)`."""
    existing = running_record(state_dir, NAME)
    if existing is not None:
        return existing
    if not 1 <= datanodes <= 32:
        raise ServiceError(f"--datanodes must be between 1 and 32, not {datanodes}")
    replication = default_replication(datanodes) if replication is None else replication
    if not 1 <= replication <= datanodes:
        raise ServiceError(f"the replication factor must be between 1 and the number of DataNodes ({datanodes})")
    directory = service_dir(state_dir, NAME)
    rpc_port, http_port = free_port(), free_port()
    address = f"{LOOPBACK}:{rpc_port}"
    core, common = properties(directory, address, LOOPBACK, http_port, replication, block_size)
    processes: list[Process] = []
    mountpoint = os.path.realpath(os.path.join(directory, "mnt"))
    client: Process | None = None
    try:
        log = os.path.join(directory, "namenode.log")
        namenode = spawn(namenode_command(directory, core, common), log, environment())
        processes.append(started("namenode", namenode, log, rpc_port))
        wait_until(lambda: namenode_state(http_port) is not None, namenode, "the HDFS NameNode", log, timeout=120)
        for node in node_names(datanodes):
            processes.append(_start_datanode(directory, node, core, common))
        wait_until(lambda: ready(http_port, datanodes), namenode, "HDFS (all DataNodes live, safe mode off)", log,
                   timeout=120)
        client = mount(mountpoint, address, os.path.join(directory, "spool"),
                       os.path.join(directory, "client.log"), replication=replication, block_size=block_size)
    except BaseException:
        _stop_all(mountpoint, client, processes)
        raise
    info: dict[str, Any] = {
        "namenode": address, "http": f"{LOOPBACK}:{http_port}", "mountpoint": mountpoint,
        "nodes": ",".join(node_names(datanodes)), "replication": replication, "block_size": block_size,
        "log": directory, "processes": [asdict(process) for process in [*processes, client]],
    }
    record = ServiceRecord(NAME, processes[0].pid, processes[0].create_time, info)
    save_record(state_dir, record)
    return record


def properties(directory: str, address: str, bind_host: str, http_port: int, replication: int,
               block_size: int) -> tuple[dict[str, object], dict[str, object]]:
    """core-site and the hdfs-site every server shares, for a NameNode at `address` (as clients
    name it) listening on `bind_host`, with its metadata under `directory`."""
    core = {"fs.defaultFS": f"hdfs://{address}", "hadoop.tmp.dir": os.path.join(directory, "tmp"),
            "fs.permissions.umask-mode": "077", "hadoop.security.authentication": "simple"}
    common = {
        "dfs.replication": replication, "dfs.blocksize": block_size,
        "dfs.namenode.rpc-address": address, "dfs.namenode.rpc-bind-host": bind_host,
        "dfs.namenode.http-address": f"{bind_host}:{http_port}", "dfs.namenode.http-bind-host": bind_host,
        "dfs.namenode.https-address": f"{bind_host}:0", "dfs.namenode.https-bind-host": bind_host,
        "dfs.namenode.secondary.http-address": f"{bind_host}:0",
        "dfs.namenode.datanode.registration.ip-hostname-check": "false",
        "dfs.namenode.safemode.extension": 0, "dfs.namenode.safemode.min.datanodes": 0,
        "dfs.heartbeat.interval": 1, "dfs.namenode.heartbeat.recheck-interval": 10000,
        # A DataNode silent for 10 s (ten heartbeats) gets no new block and is read last, so
        # a write that met a dead one succeeds when tried again within the retry window (HDFS
        # calls it dead after 30 s). 3 s marked live DataNodes stale on a loaded 2-core host.
        "dfs.namenode.stale.datanode.interval": 10000, "dfs.namenode.avoid.write.stale.datanode": "true",
        "dfs.namenode.avoid.read.stale.datanode": "true",
        # Not "too busy" at twice the average transfers: on a few DataNodes sharing a host's
        # cores that is a count of 3, and with one node excluded so, placement falls back to
        # the stale (dead) one it was avoiding, the writer's own first.
        "dfs.namenode.redundancy.considerLoad": "false",
        "dfs.permissions.enabled": "true", "dfs.webhdfs.enabled": "true",
        "dfs.namenode.name.dir": f"file://{os.path.join(directory, 'name')}",
        "dfs.datanode.data.dir.perm": "700",
    }
    return core, common


def datanode_properties(common: dict[str, object], node_dir: str, node: str, bind_host: str,
                        ports: tuple[int, int, int]) -> dict[str, object]:
    """hdfs-site of DataNode `node`: blocks under `node_dir`, data, HTTP and IPC ports on `bind_host`."""
    data, http, ipc = ports
    return {**common,
            "dfs.datanode.data.dir": f"file://{os.path.join(node_dir, 'data')}",
            "dfs.datanode.address": f"{bind_host}:{data}",
            "dfs.datanode.http.address": f"{bind_host}:{http}",
            "dfs.datanode.ipc.address": f"{bind_host}:{ipc}",
            "dfs.datanode.https.address": f"{bind_host}:0",
            "dfs.datanode.hostname": node}


def format_namenode(conf_dir: str, directory: str) -> None:
    """Format the NameNode's metadata directory (its first start only)."""
    log = os.path.join(directory, "format.log")
    formatting = spawn(java(conf_dir, NAMENODE_CLASS, "-format", "-force", "-nonInteractive", log_dir=directory),
                       log, environment())
    if formatting.wait(timeout=120) != 0:
        raise ServiceError(f"formatting the HDFS NameNode failed:\n{log_tail(log)}")


def namenode_command(directory: str, core: dict[str, object], common: dict[str, object],
                     fresh: bool = False) -> list[str]:
    """Configure the NameNode whose metadata lives in `directory` (formatted at its first start,
    or every time when `fresh`) and return its command line."""
    conf_dir = os.path.join(directory, "conf-namenode")
    write_conf(conf_dir, core, common)
    if fresh or not os.path.isdir(os.path.join(directory, "name", "current")):
        format_namenode(conf_dir, directory)
    return java(conf_dir, NAMENODE_CLASS, log_dir=directory)


def datanode_command(node_dir: str, node: str, bind_host: str, ports: tuple[int, int, int],
                     core: dict[str, object], common: dict[str, object]) -> list[str]:
    """Configure DataNode `node` (blocks under `node_dir`, data, HTTP and IPC `ports` on
    `bind_host`) and return its command line."""
    os.makedirs(node_dir, mode=0o700, exist_ok=True)
    conf_dir = os.path.join(node_dir, "conf")
    write_conf(conf_dir, core, datanode_properties(common, node_dir, node, bind_host, ports))
    return java(conf_dir, DATANODE_CLASS, log_dir=node_dir)


def _start_datanode(directory: str, node: str, core: dict[str, object], common: dict[str, object]) -> Process:
    port = free_port()
    log = os.path.join(directory, f"datanode-{node}.log")
    argv = datanode_command(os.path.join(directory, node), node, LOOPBACK, (port, free_port(), free_port()), core,
                            common)
    return started("datanode", spawn(argv, log, environment()), log, port, node)


def mount(mountpoint: str, namenode: str, spool_dir: str, log: str, root: str = "/",
          replication: int | None = None, block_size: int | None = None) -> Process:
    """Mount HDFS (`root` of it) at `mountpoint` with our FUSE client; returns once mounted.
    Files written through it get `replication` and `block_size` (else the servers' defaults)."""
    os.makedirs(mountpoint, exist_ok=True)
    os.makedirs(spool_dir, mode=0o700, exist_ok=True)
    mountpoint = os.path.realpath(mountpoint)
    argv = [sys.executable, "-m", "storage_adapters.hdfs", "mount", "--mount", mountpoint, "--namenode", namenode,
            "--root", root, "--spool-dir", spool_dir]
    if replication:
        argv += ["--replication", str(replication)]
    if block_size:
        argv += ["--block-size", str(block_size)]
    return mount_client(argv, mountpoint, FSTYPE, "the HDFS client", log)


def release(mountpoint: str, client: Process | None) -> None:
    unmount(mountpoint, FSTYPE, client)


def processes(record: ServiceRecord) -> list[Process]:
    """The processes of a started service: NameNode, DataNodes, and the mount's client last."""
    return recorded_processes(record)


def _stop_servers(servers: list[Process]) -> None:
    data_nodes = [process for process in servers if process.role != "namenode"]
    stop_together(data_nodes, timeout=20)  # the DataNodes before the NameNode
    stop_together([process for process in servers if process not in data_nodes], timeout=20)


def _stop_all(mountpoint: str, client: Process | None, servers: list[Process]) -> None:
    release(mountpoint, client)
    _stop_servers(servers)


def stop(state_dir: str) -> bool:
    """Unmount and stop every process; False if the service was not running. Data stays."""
    return stop_mounted_service(state_dir, NAME, FSTYPE, _stop_servers)


def status(state_dir: str) -> ServiceRecord | None:
    """The service's record while its NameNode runs, or None."""
    return running_record(state_dir, NAME)
