"""Distance between regions: toxiproxy in the hub, in front of the home region's services.

Without netem, delay comes from a real latency-injection proxy. One toxiproxy server
runs in the hub namespace with its API on the bridge. For each remote region it
listens on that region's proxy address (on the bridge), on each service's own port,
and forwards to the service with half the region's round trip added in each
direction, and with the region's WAN bandwidth, if set, as a limit both ways. Nodes
of a remote region find the services by name through their hosts file, which names
their region's proxy address; nodes of the home region reach the services directly.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request

from cluster import netns
from cluster.regions import Region
from cluster.state import ClusterState, SUBNET
from hostkit.errors import MissingDependencyError, ServiceError
from hostkit.processes import Process, spawn, started, wait_until

API_PORT = 8474
TOOLS_BIN = os.environ.get("SWIFTCLOUD_TOOLS_BIN", "/opt/swiftcloud/bin")


def server_binary() -> str:
    path = os.path.join(TOOLS_BIN, "toxiproxy-server")
    if not os.access(path, os.X_OK):
        raise MissingDependencyError(f"{path} is missing: run ./setup.sh (setup.d/45-cluster.sh builds it)")
    return path


def region_address(index: int) -> str:
    """The proxy address of region `index` (0 is home and has none)."""
    return f"{SUBNET}.1.{index}"


def start(cluster: ClusterState, api_host: str) -> Process:
    """The toxiproxy server in the hub, API on `api_host`; returns once the API answers."""
    log = cluster.path("toxiproxy.log")
    argv = ["ip", "netns", "exec", cluster.hub, server_binary(), "-host", api_host, "-port", str(API_PORT)]
    process = spawn(argv, log)

    def answers() -> bool:
        try:
            _call(cluster, api_host, "GET", "/version")
        except (OSError, ServiceError):
            return False
        return True

    wait_until(answers, process, "toxiproxy", log, timeout=20)
    return started("toxiproxy", process, log, API_PORT, "hub")


def add_region(cluster: ClusterState, api_host: str, index: int, region: Region,
               services: dict[str, str]) -> None:
    """Proxies for remote region `index` to each of `services` (name -> address:port)."""
    for name, upstream in services.items():
        port = upstream.rpartition(":")[2]
        proxy = f"{name}-{region.name}"
        _call(cluster, api_host, "POST", "/proxies",
              {"name": proxy, "listen": f"{region_address(index)}:{port}", "upstream": upstream, "enabled": True})
        for stream in ("upstream", "downstream"):
            if region.rtt_ms > 0:
                _call(cluster, api_host, "POST", f"/proxies/{proxy}/toxics",
                      {"name": f"delay-{stream}", "type": "latency", "stream": stream, "toxicity": 1.0,
                       "attributes": {"latency": int(round(region.rtt_ms / 2)), "jitter": 0}})
            if region.wan_mbit > 0:
                _call(cluster, api_host, "POST", f"/proxies/{proxy}/toxics",
                      {"name": f"wan-{stream}", "type": "bandwidth", "stream": stream, "toxicity": 1.0,
                       "attributes": {"rate": int(region.wan_mbit * 1000 / 8)}})  # KB/s


def remove(cluster: ClusterState, api_host: str, proxy: str) -> None:
    """Delete one proxy (its listening socket closes)."""
    _call(cluster, api_host, "DELETE", f"/proxies/{proxy}")


def _call(cluster: ClusterState, api_host: str, method: str, path: str, body: object = None) -> object:
    """One API request, made from inside the hub namespace."""
    def request() -> object:
        data = None if body is None else json.dumps(body).encode()
        call = urllib.request.Request(f"http://{api_host}:{API_PORT}{path}", data=data, method=method,
                                      headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(call, timeout=5) as answer:
                text = answer.read()
                return json.loads(text) if answer.headers.get_content_type() == "application/json" else text
        except urllib.error.HTTPError as error:
            raise ServiceError(f"toxiproxy {method} {path}: {error.code} {error.read().decode(errors='replace')}")

    return netns.in_namespace(cluster.hub, request)
