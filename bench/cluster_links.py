"""Are the emulated cluster's links what they are configured to be?

Brings up a two-region cluster (one node at home, one in a remote region) for each
link rate, and measures with real TCP between the nodes' namespaces:

- bandwidth: 8 MB from the remote node to the home node and back, against the HTB rate
  (TCP/IP headers take about 5% of a 1500-byte frame, so ~95% is a full link);
- round trip: a 64-byte echo from the remote node to the home node (through the delay
  line between the regions), against the configured RTT.

Prints one line per figure with the ratio measured / configured, and writes
cluster_links.json to --out. Needs root.

    .venv/bin/python bench/cluster_links.py --rates 50,200,400 --rtt-ms 60 --out /tmp/links
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from cluster import lifecycle, probe  # noqa: E402
from cluster.regions import Region  # noqa: E402


def measure(rate: float, rtt_ms: float, state_dir: str) -> dict[str, float]:
    regions = (Region("home", 1, rate), Region("remote", 1, rate, rtt_ms))
    cluster = lifecycle.up(state_dir, 2, regions)
    try:
        home, remote = cluster.nodes
        up = probe.bandwidth(remote, home)
        down = probe.bandwidth(home, remote)
        measured = statistics.median(probe.round_trips(remote, home, 15)) * 1000
    finally:
        lifecycle.down(state_dir)
    return {"rate_mbit": rate, "up_mbit": up.mbit, "down_mbit": down.mbit, "rtt_ms": rtt_ms,
            "measured_rtt_ms": measured}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rates", default="50,200,400", help="node link rates in Mbit/s (default 50,200,400)")
    parser.add_argument("--rtt-ms", type=float, default=60.0, help="the remote region's round trip (default 60)")
    parser.add_argument("--out", default=".", help="directory for cluster_links.json")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("cluster_links: needs root (network namespaces)", file=sys.stderr)
        return 2
    results = []
    with tempfile.TemporaryDirectory(prefix="cluster-links-") as state_dir:
        for rate in [float(word) for word in args.rates.split(",")]:
            result = measure(rate, args.rtt_ms, state_dir)
            results.append(result)
            print(f"link {rate:6g} Mbit/s: remote->home {result['up_mbit']:7.1f} Mbit/s "
                  f"({result['up_mbit'] / rate:.3f} of the rate), home->remote {result['down_mbit']:7.1f} "
                  f"({result['down_mbit'] / rate:.3f})")
            print(f"  round trip between the regions: {result['measured_rtt_ms']:.2f} ms for {args.rtt_ms:g} "
                  f"configured ({result['measured_rtt_ms'] / args.rtt_ms:.3f})")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "cluster_links.json"), "w") as handle:
        json.dump(results, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
