"""Measuring a cluster's network: bandwidth and round trips between two nodes.

Both ends run in this process, each socket made on a thread inside its node's network
namespace (netns.in_namespace), so what is measured is the emulated network itself:
the veth links with their HTB shaping and, between regions, the delay line.
`swiftcloud cluster check`, bench/cluster_links.py and the tests use it.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass

from cluster import netns
from cluster.state import Node

PROBE_PORT = 9901
CHUNK = 1 << 16
STEADY_STREAMS = 4  # `steady_mbit`'s parallel streams (the listening socket's backlog is 4)


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


def steady_mbit(sender: Node, receiver: Node, seconds: float = 10.0, skip: float = 2.0,
                streams: int = STEADY_STREAMS) -> float:
    """The rate (Mbit/s) of `streams` TCP streams together from `sender` to `receiver`, each
    sending for `seconds`, counted from `skip` seconds after the first byte: past slow start,
    as long transfers see it. Several streams, as iperf's `-P`: a lone stream that loses a
    burst of packets at the path's full queue waits out a retransmission timeout and a slow
    start again (seen: a 10 s average of one stream 10% short of a 100 Mbit/s WAN, on an idle
    host), while the others keep the path full."""
    server = _listen(receiver, PROBE_PORT)
    arrivals: list[tuple[float, int]] = []  # (time, bytes) of every receive, all streams
    lock = threading.Lock()

    def receive(connection: socket.socket) -> None:
        with connection:
            while data := connection.recv(1 << 20):
                now = time.perf_counter()
                with lock:
                    arrivals.append((now, len(data)))

    def accept() -> list[threading.Thread]:
        readers = []
        for _ in range(streams):
            connection, _ = server.accept()
            readers.append(threading.Thread(target=receive, args=(connection,), daemon=True))
            readers[-1].start()
        return readers

    def send() -> None:
        with _connect(sender, receiver.address, PROBE_PORT) as connection:
            block = b"\0" * CHUNK
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                connection.sendall(block)

    readers: list[threading.Thread] = []
    acceptor = threading.Thread(target=lambda: readers.extend(accept()), daemon=True)
    acceptor.start()
    try:
        senders = [threading.Thread(target=send, daemon=True) for _ in range(streams)]
        for thread in senders:
            thread.start()
        for thread in senders:
            thread.join(seconds + 120)
        acceptor.join(120)
        for thread in readers:
            thread.join(120)
    finally:
        server.close()
    arrivals.sort()
    if not arrivals or arrivals[-1][0] - arrivals[0][0] <= skip:
        raise OSError(f"rate probe from {sender.name} to {receiver.name} did not last {skip} s")
    after = [(when, size) for when, size in arrivals if when >= arrivals[0][0] + skip]
    counted = sum(size for _, size in after[1:])  # bytes that arrived after the first counted receive
    return counted * 8 / (after[-1][0] - after[0][0]) / 1e6


def round_trips(client: Node, server_node: Node, count: int = 7) -> list[float]:
    """Round trips (seconds) of a 64-byte echo over one TCP connection from `client` to a
    server on `server_node`."""
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
        with _connect(client, server_node.address, PROBE_PORT) as connection:
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
