"""Measuring a cluster's network: bandwidth between two nodes, round trips to a service.

Both ends run in this process, each socket made on a thread inside its node's network
namespace (netns.in_namespace), so what is measured is the emulated network itself:
the veth links with their HTB shaping and, for a remote region, the latency proxy.
`swiftcloud cluster check`, bench/cluster_links.py and the tests use it.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass

from cluster import lifecycle, netns, proxies
from cluster.regions import Region
from cluster.state import ClusterState, Node

PROBE_PORT = 9901
CHUNK = 1 << 16


@dataclass(frozen=True)
class Transfer:
    """`nbytes` sent from one node to another in `seconds` (first byte to last, at the receiver)."""

    nbytes: int
    seconds: float

    @property
    def mbit(self) -> float:
        return self.nbytes * 8 / self.seconds / 1e6


def _listen(node: Node, port: int) -> socket.socket:
    def make() -> socket.socket:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind((node.address, port))
        server.listen(4)
        return server
    return netns.in_namespace(node.namespace, make)


def _connect(node: Node, address: str, port: int) -> socket.socket:
    return netns.in_namespace(node.namespace, lambda: socket.create_connection((address, port), timeout=30))


def bandwidth(sender: Node, receiver: Node, nbytes: int = 8 << 20) -> Transfer:
    """Send `nbytes` over TCP from `sender` to `receiver`; timed from the first byte received."""
    server = _listen(receiver, PROBE_PORT)
    outcome: dict[str, float] = {}

    def receive() -> None:
        connection, _ = server.accept()
        with connection:
            got, first = 0, 0.0
            while got < nbytes:
                data = connection.recv(1 << 20)
                if not data:
                    break
                if not got:
                    first = time.perf_counter()
                got += len(data)
            # The first chunk arrived before the clock started: count only what came after it.
            outcome["seconds"], outcome["bytes"] = time.perf_counter() - first, got

    reader = threading.Thread(target=receive, daemon=True)
    reader.start()
    try:
        with _connect(sender, receiver.address, PROBE_PORT) as connection:
            block = b"\0" * CHUNK
            for _ in range(nbytes // CHUNK):
                connection.sendall(block)
        reader.join(120)
    finally:
        server.close()
    if "seconds" not in outcome or outcome["bytes"] < nbytes:
        raise OSError(f"bandwidth probe from {sender.name} to {receiver.name} did not complete")
    return Transfer(nbytes - CHUNK, outcome["seconds"])


def round_trips(client: Node, server_node: Node, via: str | None, count: int = 7) -> list[float]:
    """Round trips (seconds) of a 64-byte echo from `client` to a server on `server_node`,
    reached at `via` (an address) or directly."""
    server = _listen(server_node, PROBE_PORT)

    def echo() -> None:
        connection, _ = server.accept()
        with connection:
            while data := connection.recv(64):
                connection.sendall(data)

    thread = threading.Thread(target=echo, daemon=True)
    thread.start()
    times = []
    try:
        with _connect(client, via or server_node.address, PROBE_PORT) as connection:
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for _ in range(count):
                began = time.perf_counter()
                connection.sendall(b"x" * 64)
                got = 0
                while got < 64:
                    got += len(connection.recv(64 - got))
                times.append(time.perf_counter() - began)
    finally:
        server.close()
        thread.join(10)
    return times


def proxied_round_trips(cluster: ClusterState, client: Node, count: int = 7) -> list[float]:
    """Round trips from `client` (in a remote region) to an echo server on the first node,
    through the client's regional latency proxy, as the cluster's services are reached."""
    names = [region["name"] for region in cluster.regions]
    index = names.index(client.region)
    region = Region(**cluster.regions[index])
    head = cluster.nodes[0]
    proxies.add_region(cluster, lifecycle.HUB_ADDRESS, index, region, {"probe": f"{head.address}:{PROBE_PORT}"})
    try:
        return round_trips(client, head, proxies.region_address(index), count)
    finally:
        proxies.remove(cluster, lifecycle.HUB_ADDRESS, f"probe-{region.name}")
