"""Network namespaces, the bridge, veth links and their traffic shaping, through iproute2.

Every command is an argv list for `ip` or `tc` (never a shell). Only namespaces this
module created are touched: the bridge lives in a hub namespace of the cluster's own,
so the host's network is never changed. `in_namespace` runs a Python function on a
thread that has joined a namespace: sockets made there belong to that namespace, so
the controller can reach a node's addresses without starting a process inside it.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import threading
from collections.abc import Callable
from typing import TypeVar

from hostkit.errors import ServiceError

NETNS_DIR = "/run/netns"
CLONE_NEWNET = 0x40000000
Result = TypeVar("Result")


def run(*argv: str) -> str:
    """Run an iproute2 command; its stdout, or a ServiceError with its stderr."""
    done = subprocess.run(list(argv), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ServiceError(f"'{' '.join(argv)}' failed: {done.stderr.strip() or done.returncode}")
    return done.stdout


def exists(namespace: str) -> bool:
    return os.path.exists(os.path.join(NETNS_DIR, namespace))


def add(namespace: str) -> None:
    """Create a namespace with its loopback up."""
    if exists(namespace):
        raise ServiceError(f"network namespace {namespace} already exists: run 'swiftcloud cluster down' first")
    run("ip", "netns", "add", namespace)
    run("ip", "-n", namespace, "link", "set", "lo", "up")


def delete(namespace: str) -> None:
    """Remove a namespace (its veth ends and routes go with it); quiet if it is gone."""
    if exists(namespace):
        run("ip", "netns", "del", namespace)


def inside(namespace: str, argv: list[str]) -> list[str]:
    """`argv` run in `namespace`'s network, and nothing more: `ip netns exec` would give it a
    mount namespace of its own too, holding a copy of each of the host's mounts (a store's
    FUSE mount among them, whose client then serves on after the host unmounts it) for as
    long as it runs."""
    return ["nsenter", f"--net={os.path.join(NETNS_DIR, namespace)}", "--", *argv]


def names() -> list[str]:
    """Every named network namespace on the machine."""
    return sorted(os.listdir(NETNS_DIR)) if os.path.isdir(NETNS_DIR) else []


def pids(namespace: str) -> list[int]:
    """The processes whose network namespace is `namespace`."""
    if not exists(namespace):
        return []
    return [int(word) for word in run("ip", "netns", "pids", namespace).split()]


def add_bridge(hub: str, bridge: str, addresses: list[str]) -> None:
    """A bridge inside the hub namespace, up, with `addresses` (CIDR) on it."""
    run("ip", "-n", hub, "link", "add", bridge, "type", "bridge")
    for address in addresses:
        run("ip", "-n", hub, "addr", "add", address, "dev", bridge)
    run("ip", "-n", hub, "link", "set", bridge, "up")


def connect(hub: str, bridge: str, namespace: str, hub_end: str, address: str, gateway: str) -> None:
    """A veth pair: `eth0` with `address` in `namespace`, `hub_end` on the hub's bridge, and
    the namespace's default route via `gateway` (the hub's address on that bridge)."""
    run("ip", "link", "add", hub_end, "netns", hub, "type", "veth", "peer", "name", "eth0", "netns", namespace)
    run("ip", "-n", hub, "link", "set", hub_end, "master", bridge, "up")
    run("ip", "-n", namespace, "addr", "add", address, "dev", "eth0")
    run("ip", "-n", namespace, "link", "set", "eth0", "up")
    run("ip", "-n", namespace, "route", "add", "default", "via", gateway)


def shape(namespace: str, device: str, mbit: float) -> None:
    """Limit what leaves `device` to `mbit` Mbit/s with an HTB class (delay between regions
    comes from the delay line, not the links). The burst is sized for the rate, so a fast link
    is not held back by a timer tick's worth of tokens."""
    rate = f"{mbit:g}mbit"
    burst = max(16_000, int(mbit * 1e6 / 8 / 250))  # 4 ms of traffic at the rate
    run("ip", "netns", "exec", namespace, "tc", "qdisc", "replace", "dev", device, "root", "handle", "1:",
        "htb", "default", "10", "r2q", str(max(1, int(mbit * 1e6 / 8 / 60_000))))
    run("ip", "netns", "exec", namespace, "tc", "class", "replace", "dev", device, "parent", "1:",
        "classid", "1:10", "htb", "rate", rate, "ceil", rate, "burst", str(burst), "cburst", str(burst))


def in_namespace(namespace: str, work: Callable[[], Result]) -> Result:
    """`work()` on a thread that joined `namespace`'s network first; its result or exception."""
    outcome: dict[str, object] = {}

    def body() -> None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            fd = os.open(os.path.join(NETNS_DIR, namespace), os.O_RDONLY)
            try:
                if libc.setns(fd, CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), f"setns into {namespace}")
            finally:
                os.close(fd)
            outcome["value"] = work()
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
            outcome["error"] = error

    thread = threading.Thread(target=body, name=f"netns-{namespace}", daemon=True)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
