"""`swiftcloud services start mosastore --benefactors K`: a whole store on one machine.

Starts a manager, K benefactors (emulated nodes `node0` … `node{K-1}`, each
with its own chunk directory) and the FUSE mount, all on 127.0.0.1, under
`<state>/mosastore/`: `secret` (mode 600), `manager/meta.db`,
`benefactors/NODE/`, `mnt/`, `spool/` and one log per process. Workers that
export `SWIFTCLOUD_NODE=nodeI` then write and read as if they ran on that
node, so placement and locality can be tested here. `stop` unmounts and
stops every process by PID; data and secret stay, so a later `start` finds
every file again. `restart_manager` stops and restarts only the manager
(same port, same metadata), for the fault tests.
"""

from __future__ import annotations

import os
from dataclasses import asdict
from typing import Any

from hostkit.errors import ServiceError
from hostkit.ports import free_port
from hostkit.records import (ServiceRecord, forget_record, load_record, replace_process, running_record, save_record,
                             service_dir)
from mosastore import deploy
from mosastore.auth import check_secret, new_secret, read_secret_file, write_secret_file
from mosastore.manager import DEFAULT_CHUNK_SIZE

NAME = "mosastore"
DEFAULT_BENEFACTORS = 4


def node_names(count: int) -> list[str]:
    """The emulated node names of a K-benefactor store."""
    return [f"node{index}" for index in range(count)]


def _secret(directory: str) -> str:
    path = os.path.join(directory, "secret")
    if not os.path.exists(path):
        write_secret_file(path, new_secret())
    return read_secret_file(path)


def start(state_dir: str, benefactors: int = DEFAULT_BENEFACTORS, chunk_size: int = DEFAULT_CHUNK_SIZE,
          emulate_link_mbps: float = 0.0, repair_after: float | None = None) -> ServiceRecord:
    """Start manager, benefactors and mount (or return the running store); `repair_after` as
    `deploy.start_manager`'s."""
    existing = running_record(state_dir, NAME)
    if existing is not None:
        return existing
    if not 1 <= benefactors <= 64:
        raise ServiceError(f"--benefactors must be between 1 and 64, not {benefactors}")
    directory = service_dir(state_dir, NAME)
    secret = _secret(directory)
    secret_file = os.path.join(directory, "secret")
    started: list[deploy.Process] = []
    mountpoint = os.path.join(directory, "mnt")
    try:
        manager_port = free_port()
        manager = deploy.start_manager(os.path.join(directory, "manager"), manager_port, secret_file, chunk_size,
                                       os.path.join(directory, "manager.log"), repair_after=repair_after)
        started.append(manager)
        address = f"127.0.0.1:{manager_port}"
        nodes = node_names(benefactors)
        for node in nodes:
            started.append(deploy.start_benefactor(
                node, os.path.join(directory, "benefactors", node), free_port(), address, secret_file,
                os.path.join(directory, f"benefactor-{node}.log")))
        deploy.wait_for_benefactors(address, check_secret(secret), nodes)
        started.append(deploy.mount(mountpoint, address, secret_file, nodes[0], os.path.join(directory, "spool"),
                                    os.path.join(directory, "client.log"), _client_args(emulate_link_mbps)))
    except BaseException:
        _stop_all(mountpoint, started)
        raise
    info: dict[str, Any] = {
        "manager": address, "mountpoint": os.path.realpath(mountpoint), "nodes": ",".join(nodes),
        "chunk_size": chunk_size, "repair_after": repair_after,
        "processes": [asdict(process) for process in started], "log": directory,
        "emulate_link_mbps": emulate_link_mbps,
    }
    record = ServiceRecord(NAME, manager.pid, manager.create_time, info, {"secret": secret})
    save_record(state_dir, record)
    return record


def _client_args(emulate_link_mbps: float) -> tuple[str, ...]:
    # One machine, one mount: the client may let the kernel cache what it writes.
    return ("--only-client",) + (("--emulate-link-mbps", str(emulate_link_mbps)) if emulate_link_mbps else ())


def processes(record: ServiceRecord) -> list[deploy.Process]:
    """The processes of a started store, manager first and client last."""
    return [deploy.Process(**entry) for entry in record.info["processes"]]


def _stop_all(mountpoint: str, started: list[deploy.Process]) -> None:
    clients = [process for process in started if process.role == "client"]
    deploy.unmount(mountpoint, clients[0] if clients else None)
    for process in reversed(started):
        process.stop()


def stop(state_dir: str) -> bool:
    """Unmount and stop every process of the store; False if it was not running."""
    record = load_record(state_dir, NAME)
    if record is None:
        return False
    running = any(process.running() for process in processes(record))
    _stop_all(record.info["mountpoint"], processes(record))
    forget_record(state_dir, NAME)
    return running


def status(state_dir: str) -> ServiceRecord | None:
    """The store's record while its manager runs and the mount is there, or None."""
    record = running_record(state_dir, NAME)
    if record is None or deploy.mounted_fstype(record.info["mountpoint"]) != deploy.FSTYPE:
        return None
    return record


def _recorded_process(state_dir: str, index: int,
                      kill: bool) -> tuple[ServiceRecord, str, deploy.Process]:
    """The running store's record, its directory, and its process `index` in the record
    (0: the manager, -1: the FUSE client), SIGKILLed first when `kill`."""
    record = load_record(state_dir, NAME)
    if record is None:
        raise ServiceError("mosastore is not running")
    old = deploy.Process(**record.info["processes"][index])
    if kill:
        os.kill(old.pid, 9)
    return record, service_dir(state_dir, NAME), old


def restart_manager(state_dir: str, kill: bool = False) -> ServiceRecord:
    """Stop the manager (SIGKILL when `kill`) and start it again on the same port and metadata."""
    record, directory, old = _recorded_process(state_dir, 0, kill)
    old.stop()
    manager = deploy.start_manager(os.path.join(directory, "manager"), old.port, os.path.join(directory, "secret"),
                                   int(record.info["chunk_size"]), os.path.join(directory, "manager.log"),
                                   repair_after=record.info.get("repair_after"))
    return replace_process(state_dir, record, old, manager)


def restart_client(state_dir: str, kill: bool = False) -> ServiceRecord:
    """Stop the FUSE client (SIGKILL when `kill`), release its mount and mount again."""
    record, directory, old = _recorded_process(state_dir, -1, kill)
    deploy.unmount(record.info["mountpoint"], old)
    extra = _client_args(float(record.info.get("emulate_link_mbps", 0.0)))
    client = deploy.mount(record.info["mountpoint"], record.info["manager"], os.path.join(directory, "secret"),
                          old.node, os.path.join(directory, "spool"), os.path.join(directory, "client.log"), extra)
    return replace_process(state_dir, record, old, client)
