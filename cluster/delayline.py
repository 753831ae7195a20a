"""The delay line between the regions of an emulated cluster: a process on a TUN device in the hub.

This kernel has no netem, so distance is made in user space. The hub routes every packet
that goes from one region's subnet to another's (S3's included) into the TUN device
(policy routing, see wan.py); this process reads it, holds it for the path's one-way
delay, paces it to the path's WAN rate, and writes it back to the device, from which the
kernel forwards it on to its destination as usual.

One FIFO per ordered pair of subnets (source, destination). At enqueue, with the rate R:

    done = max(now, link_free) + size / R;  link_free = done;  release = done + one_way

so each FIFO is sorted by release time. When the bytes still waiting for the rate exceed
the path's bound (about one bandwidth-delay product), the packet is dropped, as a
router's full queue would drop it: TCP then sees a real bottleneck, not an endless queue.

The device is opened with IFF_VNET_HDR and TUN_F_CSUM|TSO4|TSO6 offloads, so the kernel
hands over TCP's GSO super-packets (up to 64 KB) whole: the packet rate, and this
process's CPU, stay low. The virtio-net header is written back unchanged, so the kernel
segments and checksums the packet where it would have. A super-packet's size counts the
headers of every segment it stands for.

    python -m cluster.delayline CONFIG.json    (run in the hub namespace; prints `ready`)

CONFIG: {"device": NAME, "paths": [{"source": OCTET, "destination": OCTET,
"one_way_s": S, "rate_bytes": B (0 = unlimited), "bound_bytes": B}]}, where OCTET is
the third octet of a subnet (every subnet of the cluster is a /24 of one /16).
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import struct
import sys
import time
from collections import deque
from dataclasses import dataclass, field

TUNSETIFF = 0x400454CA
TUNSETOFFLOAD = 0x400454D0
IFF_TUN, IFF_NO_PI, IFF_VNET_HDR = 0x0001, 0x1000, 0x4000
TUN_F_CSUM, TUN_F_TSO4, TUN_F_TSO6 = 0x01, 0x02, 0x04
VNET_HDR = 10  # struct virtio_net_hdr: flags, gso_type, hdr_len, gso_size, csum_start, csum_offset
GSO_NONE = 0
MAX_PACKET = VNET_HDR + 65_536
BATCH = 64  # packets read per wake-up at most, so releases are not starved by a burst


@dataclass
class Path:
    """The FIFO of one ordered pair of subnets, and its pacing state."""

    one_way: float
    rate: float  # bytes per second, 0 = unlimited
    bound: float  # bytes waiting for the rate beyond which a packet is dropped
    queue: deque[tuple[float, bytes]] = field(default_factory=deque)
    link_free: float = 0.0

    def enqueue(self, now: float, packet: bytes, size: int) -> None:
        if self.rate > 0:
            waiting = max(0.0, self.link_free - now) * self.rate
            if waiting + size > self.bound:
                return  # drop-tail
            done = max(now, self.link_free) + size / self.rate
            self.link_free = done
            self.queue.append((done + self.one_way, packet))
        else:
            self.queue.append((now + self.one_way, packet))


def wire_size(packet: bytes) -> int:
    """The IP bytes `packet` (virtio-net header first) puts on a wire: for a GSO
    super-packet, every segment repeats the IP and TCP headers."""
    gso_type, gso_size = packet[1], int.from_bytes(packet[4:6], "little")
    size = len(packet) - VNET_HDR
    if gso_type == GSO_NONE or gso_size == 0 or packet[VNET_HDR] >> 4 != 4:
        return size
    ip_header = (packet[VNET_HDR] & 0x0F) * 4
    headers = ip_header + (packet[VNET_HDR + ip_header + 12] >> 4) * 4
    segments = -(-(size - headers) // gso_size)
    return size + (segments - 1) * headers


def open_tun(name: str) -> int:
    """Attach to the TUN device `name` with GSO offloads on; a non-blocking descriptor."""
    descriptor = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(descriptor, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI | IFF_VNET_HDR))
    fcntl.ioctl(descriptor, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6)
    return descriptor


def load_paths(config: dict) -> dict[tuple[int, int], Path]:
    return {(entry["source"], entry["destination"]): Path(entry["one_way_s"], entry["rate_bytes"],
                                                          entry["bound_bytes"]) for entry in config["paths"]}


def run(descriptor: int, paths: dict[tuple[int, int], Path]) -> None:
    """Read, hold and write back packets until SIGTERM."""
    waiting = list(paths.values())
    clock = time.monotonic
    while True:
        heads = [path.queue[0][0] for path in waiting if path.queue]
        timeout = max(0.0, min(heads) - clock()) if heads else None
        readable, _, _ = select.select([descriptor], [], [], timeout)
        if readable:
            now = clock()
            for _ in range(BATCH):
                try:
                    packet = os.read(descriptor, MAX_PACKET)
                except BlockingIOError:
                    break
                path = None
                if packet[VNET_HDR] >> 4 == 4:  # IPv4: the third octets of source and destination
                    path = paths.get((packet[VNET_HDR + 14], packet[VNET_HDR + 18]))
                if path is None:
                    os.write(descriptor, packet)  # not a path we delay: on at once
                else:
                    path.enqueue(now, packet, wire_size(packet))
        now = clock()
        for path in waiting:
            queue = path.queue
            while queue and queue[0][0] <= now:
                os.write(descriptor, queue.popleft()[1])


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m cluster.delayline CONFIG.json", file=sys.stderr)
        return 2
    with open(argv[0]) as handle:
        config = json.load(handle)
    descriptor = open_tun(config["device"])
    # Its timing is the emulated network's: on a loaded machine, let others wait first.
    os.nice(-10)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    print("ready", flush=True)
    run(descriptor, load_paths(config))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError, KeyError) as error:
        print(f"delayline: {error}", file=sys.stderr)
        sys.exit(1)
