"""An emulated network between emulated nodes, for benchmarks on one machine.

On one machine every benefactor is on loopback, so data locality costs
nothing and placement hints cannot show what they save on a cluster. With
`--emulate-link-mbps B`, each emulated node gets a network interface of B
MB/s in each direction: a chunk moving from node A to node B waits until
A's outgoing and B's incoming links are free, then occupies both for
size/B seconds. Transfers within a node are free, as they would be on the
node's own disk. Off by default; the benchmark reports it when used.
"""

from __future__ import annotations

import trio


class LinkEmulator:
    """Per-node full-duplex links of `mb_per_s` each (a reservation per transfer)."""

    def __init__(self, mb_per_s: float) -> None:
        self._bytes_per_s = mb_per_s * 1024 * 1024
        self._outgoing_free: dict[str, float] = {}
        self._incoming_free: dict[str, float] = {}

    @property
    def enabled(self) -> bool:
        return self._bytes_per_s > 0

    async def transfer(self, source: str, target: str, size: int) -> None:
        """Wait as long as moving `size` bytes from node `source` to node `target` would take."""
        if not self.enabled or source == target or size <= 0:
            return
        now = trio.current_time()
        start = max(now, self._outgoing_free.get(source, 0.0), self._incoming_free.get(target, 0.0))
        end = start + size / self._bytes_per_s
        self._outgoing_free[source] = end
        self._incoming_free[target] = end
        await trio.sleep_until(end)
