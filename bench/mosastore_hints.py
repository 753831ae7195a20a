"""Workflow-aware placement in MosaStore: four data patterns with and without hints.

The patterns of the WOSS study, each run as real tasks (one process per
task, on emulated nodes: `SWIFTCLOUD_NODE` set, as the engine's workers do)
reading and writing through the MosaStore mount:

- pipeline: T independent 3-stage chains; each stage reads the previous
  file and writes the next (hint: `local`);
- broadcast: one file read by T tasks spread over every node (hint:
  `replicate:K`, one copy per node);
- reduce: T tasks write one file each, one task reads them all (hint:
  `collocate:GROUP`);
- scatter: one file whose T regions are read by T tasks (hint: `scatter`,
  which is also the default, so no gain is expected).

"With hints" also schedules each consumer on the first node that
`user.mosastore.location` reports for its input, as the engine's placement
hook does; "without hints" leaves the default striping and puts consumers
round-robin on the nodes. On one machine all benefactors share loopback,
where locality saves little, so by default the store emulates a network
link of --link-mbps MB/s per node and direction between emulated nodes
(transfers within a node are free); `--link-mbps 0` measures plain
loopback. Reports, for the whole pattern and for its consuming phase alone,
the time without and with hints (median of --repeat runs) and the speedup,
and writes mosastore_hints.json to --out.

    .venv/bin/python bench/mosastore_hints.py --out /tmp/hints
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mosastore import service  # noqa: E402

MB = 1024 * 1024
PATTERNS = ("pipeline", "broadcast", "reduce", "scatter")

# One task: read some inputs (whole, or one region), then write one output of a given size.
TASK = r"""
import os, sys
output, size, offset, length, *inputs = sys.argv[1:]
offset, length = int(offset), int(length)
buffer = bytearray(1024 * 1024)
for path in inputs:
    with open(path, "rb", buffering=0) as handle:
        handle.seek(offset)
        left = length if length >= 0 else None
        while left is None or left > 0:
            count = handle.readinto(memoryview(buffer)[: len(buffer) if left is None else min(len(buffer), left)])
            if not count:
                break
            if left is not None:
                left -= count
if output != "-":
    block = os.urandom(1024 * 1024)
    with open(output, "wb") as handle:
        for start in range(0, int(size), len(block)):
            handle.write(block[: min(len(block), int(size) - start)])
"""


class Runner:
    """Runs tasks on emulated nodes and asks the store where files are."""

    def __init__(self, mount: str, nodes: list[str]) -> None:
        self.mount = mount
        self.nodes = nodes

    def run(self, tasks: list[tuple[str, str, int, list[str], int, int]]) -> float:
        """Run (node, output, size, inputs, offset, length) tasks concurrently; the seconds until all ended."""
        def one(task: tuple[str, str, int, list[str], int, int]) -> None:
            node, output, size, inputs, offset, length = task
            env = {**os.environ, "SWIFTCLOUD_NODE": node}
            subprocess.run([sys.executable, "-c", TASK, output, str(size), str(offset), str(length), *inputs],
                           env=env, check=True)

        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=len(tasks)) as pool:
            list(pool.map(one, tasks))
        return time.perf_counter() - start

    def where(self, path: str, fallback: str) -> str:
        """The first node holding `path` (the scheduler's preferred node)."""
        held = os.getxattr(path, "user.mosastore.location").decode().split(",")
        return held[0] if held and held[0] else fallback

    def directory(self, hint: str | None) -> str:
        path = os.path.join(self.mount, f"run-{uuid.uuid4().hex[:8]}")
        os.mkdir(path)
        if hint:
            os.setxattr(path, "user.mosastore.placement", hint.encode())
        return path


def pipeline(runner: Runner, hints: bool, tasks: int, size: int) -> tuple[float, float]:
    base = runner.directory("local" if hints else None)
    nodes = runner.nodes
    current = [os.path.join(base, f"chain{index}-0") for index in range(tasks)]
    produce = runner.run([(nodes[index % len(nodes)], path, size, [], 0, -1) for index, path in enumerate(current)])
    consume = 0.0
    for stage in (1, 2):
        following = [os.path.join(base, f"chain{index}-{stage}") for index in range(tasks)]
        placement = [runner.where(current[index], nodes[0]) if hints else nodes[(index + stage) % len(nodes)]
                     for index in range(tasks)]
        consume += runner.run([(placement[index], following[index], size, [current[index]], 0, -1)
                               for index in range(tasks)])
        current = following
    return produce, consume


def broadcast(runner: Runner, hints: bool, tasks: int, size: int) -> tuple[float, float]:
    nodes = runner.nodes
    base = runner.directory(f"replicate:{len(nodes)}" if hints else None)
    source = os.path.join(base, "input")
    produce = runner.run([(nodes[0], source, 2 * size, [], 0, -1)])
    return produce, runner.run([(nodes[index % len(nodes)], "-", 0, [source], 0, -1) for index in range(tasks)])


def reduce(runner: Runner, hints: bool, tasks: int, size: int) -> tuple[float, float]:
    nodes = runner.nodes
    base = runner.directory(f"collocate:{uuid.uuid4().hex[:8]}" if hints else None)
    parts = [os.path.join(base, f"part{index}") for index in range(tasks)]
    produce = runner.run([(nodes[index % len(nodes)], part, size, [], 0, -1) for index, part in enumerate(parts)])
    reducer = runner.where(parts[0], nodes[0]) if hints else nodes[0]
    return produce, runner.run([(reducer, os.path.join(base, "sum"), MB, parts, 0, -1)])


def scatter(runner: Runner, hints: bool, tasks: int, size: int) -> tuple[float, float]:
    nodes = runner.nodes
    base = runner.directory("scatter" if hints else None)
    source = os.path.join(base, "input")
    region = size // 2
    produce = runner.run([(nodes[0], source, region * tasks, [], 0, -1)])
    return produce, runner.run([(nodes[index % len(nodes)], "-", 0, [source], index * region, region)
                                for index in range(tasks)])


PATTERN_FUNCTIONS: dict[str, Callable[[Runner, bool, int, int], tuple[float, float]]] = {
    "pipeline": pipeline, "broadcast": broadcast, "reduce": reduce, "scatter": scatter}


def measure(runner: Runner, pattern: str, hints: bool, tasks: int, size: int, repeat: int) -> tuple[float, float]:
    """Median seconds of the whole pattern and of its consuming phase."""
    runs = [PATTERN_FUNCTIONS[pattern](runner, hints, tasks, size) for _ in range(repeat)]
    return statistics.median(p + c for p, c in runs), statistics.median(c for _, c in runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=4, help="emulated nodes, one benefactor each (default 4)")
    parser.add_argument("--tasks", type=int, default=8, help="tasks per stage (default 8)")
    parser.add_argument("--size-mb", type=int, default=32, help="file size per task in MB (default 32)")
    parser.add_argument("--link-mbps", type=float, default=100.0,
                        help="emulated per-node link in MB/s between nodes; 0 = plain loopback (default 100)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the median is kept")
    parser.add_argument("--patterns", default=",".join(PATTERNS))
    parser.add_argument("--out", default="mosastore_hints", help="directory for mosastore_hints.json")
    args = parser.parse_args(argv)
    patterns = [name.strip() for name in args.patterns.split(",") if name.strip()]
    if unknown := [name for name in patterns if name not in PATTERNS]:
        parser.error(f"unknown pattern(s): {', '.join(unknown)}")
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="mosastore-hints-")
    results: dict[str, dict[str, float]] = {}
    try:
        record = service.start(work, benefactors=args.nodes, emulate_link_mbps=args.link_mbps)
        try:
            runner = Runner(record.info["mountpoint"], record.info["nodes"].split(","))
            for pattern in patterns:
                print(f"measuring {pattern} ...", flush=True)
                without, without_consume = measure(runner, pattern, False, args.tasks, args.size_mb * MB, args.repeat)
                hinted, hinted_consume = measure(runner, pattern, True, args.tasks, args.size_mb * MB, args.repeat)
                results[pattern] = {
                    "without_s": without, "with_s": hinted, "speedup": without / hinted,
                    "consume_without_s": without_consume, "consume_with_s": hinted_consume,
                    "consume_speedup": without_consume / hinted_consume,
                }
        finally:
            service.stop(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    link = f"{args.link_mbps:g} MB/s emulated links" if args.link_mbps else "plain loopback"
    print(f"({args.nodes} nodes, {args.tasks} tasks, {args.size_mb} MB per file, {link}; seconds, median of "
          f"{args.repeat})")
    print(f"{'pattern':<10} {'whole: without':>15} {'with':>7} {'speedup':>8}   {'consumers: without':>19} "
          f"{'with':>7} {'speedup':>8}")
    for pattern, f in results.items():
        print(f"{pattern:<10} {f['without_s']:>15.2f} {f['with_s']:>7.2f} {f['speedup']:>7.2f}x   "
              f"{f['consume_without_s']:>19.2f} {f['consume_with_s']:>7.2f} {f['consume_speedup']:>7.2f}x")
    with open(os.path.join(args.out, "mosastore_hints.json"), "w") as handle:
        json.dump({"nodes": args.nodes, "tasks": args.tasks, "size_mb": args.size_mb, "link_mb_per_s": args.link_mbps,
                   "results": results}, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
