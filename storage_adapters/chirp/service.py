"""`swiftcloud services start chirp [--servers N]`: real chirp_servers on 127.0.0.1, and a mount.

Each server `nodeI` serves `<state>/chirp/nodeI/root` on a free loopback
port and keeps files private to the user it runs as (mode 700 directories,
600 files). Started by root, chirp_server insists on switching to an
unprivileged user once a client is authenticated: the system user
`swiftcloud` that setup creates, else `nobody`. That user must be able to
reach the data, and a state directory under a private home (or pytest's
temporary directories) is not reachable, so root's servers keep their data
in `/var/lib/swiftcloud/chirp/<state digest>/nodeI` and `<state>/chirp/nodeI/root`
is a symbolic link to it; `purge` removes it. Servers accept only `unix`
authentication: a client proves its uid
by creating a file the server names. Its ACL grants read, write, list and
delete to the subjects configured, by default `unix:<the user who started
it>`, and nothing to anyone else. `-u 127.0.0.1` sends the server's catalog
reports to this machine instead of the public catalog it would use by
default, so no traffic leaves the host.

Server `node0` is also mounted at `<state>/chirp/mnt` with our FUSE client,
for the shared mode. `stop` unmounts, then stops every server (and the
per-connection processes it forked) by the PIDs recorded at start; files stay,
so a later `start` serves them again. `start` while the service partly runs (a
server crashed) starts the dead servers again on their ports (`revive`): their
clients reconnect where they were, as to a real server restarted.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import pwd
import shutil
import signal
import sys
import time
from dataclasses import asdict
from typing import Any

import psutil

from hostkit.errors import MissingDependencyError, ServiceError
from hostkit.mounts import mount_client, recorded_processes, stop_mounted_service, unmount
from hostkit.ports import LOOPBACK, free_port, port_open
from hostkit.processes import Process, spawn, started, wait_until
from hostkit.program import module_environment
from hostkit.records import ServiceRecord, load_record, replace_process, running_record, save_record, service_dir

NAME = "chirp"
FSTYPE = "fuse.chirp"
SERVER_USER = "swiftcloud"
RIGHTS = "rwld"
ROOT_DATA = "/var/lib/swiftcloud/chirp"
INSTALL_HINT = "apt-get install coop-computing-tools (see setup.d/35-chirp.sh)"
KILL_WAIT_S = 5.0  # for processes given SIGKILL to be gone (longer only in an uninterruptible wait)


def find_binary() -> str:
    """The chirp_server program, or MissingDependencyError saying how to install it."""
    binary = shutil.which("chirp_server")
    if binary is None:
        raise MissingDependencyError(f"chirp_server is not installed: {INSTALL_HINT}")
    return binary


def default_subjects() -> list[str]:
    """The Chirp subject of the user running this: `unix:NAME`."""
    return [f"unix:{pwd.getpwuid(os.geteuid()).pw_name}"]


def server_user() -> str | None:
    """The unprivileged user a root-started server switches to (None when not root)."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(SERVER_USER)
        return SERVER_USER
    except KeyError:
        return "nobody"


def node_names(count: int) -> list[str]:
    return [f"node{index}" for index in range(count)]


def data_directory(state_dir: str, node: str) -> str:
    """Where server `node` of the service in `state_dir` keeps its files (see the module docstring)."""
    if os.geteuid() != 0:
        return os.path.join(service_dir(state_dir, NAME), node, "root")
    digest = hashlib.sha256(os.path.realpath(state_dir).encode()).hexdigest()[:16]
    return os.path.join(ROOT_DATA, digest, node)


def purge(state_dir: str) -> None:
    """Delete the files of a stopped service's servers (after `stop`)."""
    for node_dir in glob.glob(os.path.join(service_dir(state_dir, NAME), "node*")):
        shutil.rmtree(data_directory(state_dir, os.path.basename(node_dir)), ignore_errors=True)
    if os.geteuid() == 0:
        digest_dir = os.path.dirname(data_directory(state_dir, "node0"))
        shutil.rmtree(digest_dir, ignore_errors=True)


def _private_directory(path: str, user: str | None) -> None:
    os.makedirs(path, mode=0o700, exist_ok=True)
    os.chmod(path, 0o700)
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(path, entry.pw_uid, entry.pw_gid)


def _write_private(path: str, text: str, user: str | None) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(text)
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(path, entry.pw_uid, entry.pw_gid)


def start_server(state_dir: str, node: str, subjects: list[str], port: int | None = None) -> Process:
    """One chirp_server for `node` on loopback (on `port`, else a free one); returns once it
    accepts connections."""
    port = port or free_port()
    argv, log = server_argv(state_dir, node, subjects, LOOPBACK, port)
    process = spawn(argv, log)
    wait_until(lambda: port_open(port), process, f"chirp_server {node}", log, timeout=30)
    return started("server", process, log, port, node)


def server_argv(state_dir: str, node: str, subjects: list[str], interface: str, port: int) -> tuple[list[str], str]:
    """The command line of chirp_server `node` listening on interface:port, and its log,
    with its data directories and ACLs made first."""
    user = server_user()
    directory = os.path.join(service_dir(state_dir, NAME), node)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    data = data_directory(state_dir, node)
    if user is not None:
        os.makedirs(os.path.dirname(data), mode=0o755, exist_ok=True)
        link = os.path.join(directory, "root")
        if not os.path.islink(link):
            os.symlink(os.path.join(data, "root"), link)
    prepare_data(data, subjects, user)
    log = os.path.join(directory, "server.log")
    return server_command(data, node, interface, port, log, user), log


def prepare_data(data: str, subjects: list[str], user: str | None) -> None:
    """Make a server's data directory `data` (its `root`, `transient` and ACLs), private to
    the server's `user` (mode 700, owned by it)."""
    root, transient = os.path.join(data, "root"), os.path.join(data, "transient")
    for path in (data, root, transient):
        _private_directory(path, user)
    # The default ACL (for directories without one) and the root's own ACL, which the
    # server would otherwise create granting only its own user; both are read by the
    # server once it runs as `user`, so they live with the data.
    for path in (os.path.join(data, "acl"), os.path.join(root, ".__acl")):
        _write_private(path, "".join(f"{subject} {RIGHTS}\n" for subject in subjects), user)


def server_command(data: str, node: str, interface: str, port: int, log: str, user: str | None) -> list[str]:
    """chirp_server serving the data directory `data` (as `prepare_data` made it; the path as
    the server sees it) on interface:port, switching to `user` when started by root."""
    argv = [find_binary(), "--root", os.path.join(data, "root"), "--interface", interface, "--port", str(port),
            "--default-acl", os.path.join(data, "acl"), "--auth", "unix", "--advertise", interface,
            "--catalog-name", node, "--transient", os.path.join(data, "transient"), "--debug-file", log,
            "--no-core-dump"]
    if user is not None:
        argv += ["--user", user]
    return argv


def mount_argv(mountpoint: str, server: str, spool_dir: str, root: str = "/", volume: str = "single",
               servers: list[str] | None = None, seed: int | None = None) -> list[str]:
    """The command line of our Chirp FUSE client (`volume` and `servers`: see `volume.py`)."""
    argv = [sys.executable, "-m", "storage_adapters.chirp", "mount", "--mount", mountpoint, "--server", server,
            "--root", root, "--spool-dir", spool_dir, "--volume", volume]
    if servers:
        argv += ["--servers", ",".join(servers)]
    if seed is not None:
        argv += ["--seed", str(seed)]
    return argv


def mount(mountpoint: str, server: str, spool_dir: str, log: str, root: str = "/", volume: str = "single",
          servers: list[str] | None = None, seed: int | None = None) -> Process:
    """Mount `root` of the Chirp volume at `server` on `mountpoint`; returns once mounted."""
    os.makedirs(mountpoint, exist_ok=True)
    os.makedirs(spool_dir, mode=0o700, exist_ok=True)
    mountpoint = os.path.realpath(mountpoint)
    argv = mount_argv(mountpoint, server, spool_dir, root, volume, servers, seed)
    return mount_client(argv, mountpoint, FSTYPE, "the Chirp client", log)


def release(mountpoint: str, client: Process | None) -> None:
    """Unmount a Chirp mount and wait for its client to end."""
    unmount(mountpoint, FSTYPE, client)


def stop_servers(servers: list[Process], timeout: float = 10.0) -> None:
    """Stop servers and every process each forked for a connection. Those share the process
    group their server leads (it was started in a session of its own), so each group is
    signalled, all at once, and waited for until none of its members is left.

    A chirp_server given SIGTERM forks a process that signals its group again and again,
    then SIGKILLs it: 3 s after the signal, however soon the rest has ended. That process
    (anything the group did not hold when signalled) is killed once the rest has gone."""
    groups = [process.pid for process in servers if process.running()]
    signalled = {member.pid for member in _members(groups)}  # the groups' processes when signalled
    for group in groups:
        try:
            os.killpg(group, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(member.pid in signalled for member in _members(groups)):
        time.sleep(0.02)
    # Until none is left: a process ends on SIGKILL only once it next runs, and on a busy host
    # a check made at once still found one (once in a run of the suite).
    killed_by = time.monotonic() + KILL_WAIT_S
    while left := _members(groups):
        for member in left:
            with contextlib.suppress(psutil.NoSuchProcess):
                member.kill()
        if time.monotonic() > killed_by:
            break
        time.sleep(0.02)
    for process in servers:
        process.stop()


def _members(groups: list[int]) -> list[psutil.Process]:
    """The live (not zombie) processes of the process groups `groups`, found in one pass."""
    wanted = set(groups)
    if not wanted:
        return []
    members = []
    for candidate in psutil.process_iter():
        try:
            if os.getpgid(candidate.pid) in wanted and candidate.status() != psutil.STATUS_ZOMBIE:
                members.append(candidate)
        except (OSError, psutil.Error):
            continue
    return members


def start(state_dir: str, servers: int = 1, subjects: list[str] | None = None) -> ServiceRecord:
    """Start `servers` chirp_servers and mount the first (or return the running service, with
    any of its servers that died started again: `revive`)."""
    earlier = load_record(state_dir, NAME)
    if earlier is not None and any(process.running() for process in processes(earlier)):
        return revive(state_dir, earlier)
    if not 1 <= servers <= 64:
        raise ServiceError(f"--servers must be between 1 and 64, not {servers}")
    directory = service_dir(state_dir, NAME)
    subjects = subjects or default_subjects()
    started_servers: list[Process] = []
    mountpoint = os.path.realpath(os.path.join(directory, "mnt"))
    client: Process | None = None
    try:
        for node in node_names(servers):
            started_servers.append(start_server(state_dir, node, subjects))
        address = f"{LOOPBACK}:{started_servers[0].port}"
        client = mount(mountpoint, address, os.path.join(directory, "spool"), os.path.join(directory, "client.log"))
    except BaseException:
        _stop_all(mountpoint, client, started_servers)
        raise
    info: dict[str, Any] = {
        "server": address, "mountpoint": mountpoint, "nodes": ",".join(node_names(servers)),
        "servers": ",".join(f"{LOOPBACK}:{process.port}" for process in started_servers), "volume": "single",
        "subjects": ",".join(subjects), "log": directory,
        "processes": [asdict(process) for process in [*started_servers, client]],
    }
    first = started_servers[0]
    record = ServiceRecord(NAME, first.pid, first.create_time, info)
    save_record(state_dir, record)
    return record


def revive(state_dir: str, record: ServiceRecord) -> ServiceRecord:
    """Start again, on its port and with its data, each server of a running service that died
    (as after a crash: its clients reconnect where they were); the record, updated."""
    subjects = record.info["subjects"].split(",")
    for process in processes(record):
        if process.role == "server" and not process.running():
            record = replace_process(state_dir, record, process,
                                     start_server(state_dir, process.node, subjects, process.port))
    return record


def processes(record: ServiceRecord) -> list[Process]:
    """The processes of a started service, servers first and the mount's client last."""
    return recorded_processes(record)


def _stop_all(mountpoint: str, client: Process | None, servers: list[Process]) -> None:
    release(mountpoint, client)
    stop_servers(servers)


def stop(state_dir: str) -> bool:
    """Unmount and stop every server; False if the service was not running."""
    return stop_mounted_service(state_dir, NAME, FSTYPE, stop_servers)


def status(state_dir: str) -> ServiceRecord | None:
    """The service's record while its first server runs, or None."""
    return running_record(state_dir, NAME)


def environment() -> dict[str, str]:
    """The environment for Chirp's own command-line tools: never a catalog beyond this host."""
    env = module_environment()
    env["CATALOG_HOST"] = LOOPBACK
    return env
