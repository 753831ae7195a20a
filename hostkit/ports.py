"""TCP ports on this host: one nobody listens on, and whether something does.

Servers bind 127.0.0.1 (`LOOPBACK`) on a port picked free at start; waiting for a
server is waiting until its port accepts (`processes.wait_until(lambda: port_open(p), ...)`).
"""

from __future__ import annotations

import socket

LOOPBACK = "127.0.0.1"


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def bindable(port: int, host: str = LOOPBACK) -> bool:
    """Could a server bind host:port now (nobody holds it)?"""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as servers do: TIME_WAIT is no obstacle
        try:
            probe.bind((host, port))
        except OSError:
            return False
        return True


def port_open(port: int, host: str = LOOPBACK, timeout: float = 0.5) -> bool:
    """True when something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False
