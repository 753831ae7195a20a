"""The study's I/O measurements: concurrent read, write and read-after-write, one file per node.

For every file size, one client (study.io_node) per chosen node and store is started and
kept until the size is done; each prepares a round untimed, prints `ready`, and once every
client of the store is ready the driver writes `go` to all of them at once. Each client
moves its own file and reports its own start and end (the nodes share one clock). A
round's aggregate rate is the bytes all nodes moved over the time from the first start to
the last end; each node's own rate is kept too. Rounds are repeated and interleaved: repeat
1 of every store, then repeat 2, ... Every round runs under a CpuWatch, and each (store,
pattern, size) is kept as a measure (study.stats): every repeat's aggregate, whether the
host was saturated during it, and the median with its 95% interval over the others. Shared
stores are copied through their mount path, staging ones (s3, and hdfs and chirp as runs
use them by default) with the adapter's get_file/put_file; io.json says which per store.
The `local` reference copies between two directories on each node's own disk. Source files
of random bytes are made on each node once per size, and all of a size's files are deleted
before the next size.

Writes io.json and the figures (study.io_figures) into the output directory.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from cluster import lifecycle
from cluster.cpuwatch import SATURATED_ABOVE, CpuWatch
from cluster.launch import node_environment
from cluster.node_exec import on_node
from cluster.state import ClusterState, Node
from cluster.stores import with_daemons
from hostkit.errors import ServiceError, StorageError
from hostkit.interrupt import terminate_as_interrupt
from hostkit.program import PROJECT_ROOT, module_environment
from mosastore.plugin import register as register_mosastore
from study.io_figures import draw, figure_names
from study.io_node import LOCAL, PATTERNS, WORK_DIR
from study.stats import measure_of
from study.stores import study_stores

MB = 1024 * 1024  # as bench/io_patterns.py: sizes and rates in MiB
MAX_NODES = 8
DISK_MARGIN = 2 * 1024**3  # left free on the disk after the largest size's files
Say = Callable[[str], None]
RoundFn = Callable[[str, str, int], dict[str, Any]]  # (store, pattern, repeat) -> the round's summary


@dataclass(frozen=True)
class IoOptions:
    """What the I/O part measures: every pattern at `sizes_mb` on `nodes` nodes (0: min(8, the
    home region's)), then read-after-write alone at `raw_sizes_mb` on `raw_nodes` (0: as many)."""

    sizes_mb: tuple[int, ...]
    repeats: int
    nodes: int = 0
    verify: bool = False
    mode: str = "small"
    patterns: tuple[str, ...] = field(default=PATTERNS)
    raw_sizes_mb: tuple[int, ...] = ()
    raw_nodes: int = 0

    @classmethod
    def quick(cls) -> IoOptions:
        """A look at every store: 1 MB files, three repeats (the fewest that give an interval)."""
        return cls(sizes_mb=(1,), repeats=3, mode="quick")

    @classmethod
    def small(cls) -> IoOptions:
        """The study's default, 5 repeats each: every pattern at 1 and 10 MB on 4 nodes at once,
        and Fig 6's claim (read-after-write beyond 500 MB) at 500 MB on 1 node. With a disk
        per node, the delay line and S3's cap, the stores move 30-90 MB/s aggregate here: 30 MB
        on every pattern took 8 minutes of the budget, 500 MB on 2 nodes took 21 (the stores
        that stripe over every region share the WAN paths, so a second node doubles the time)
        and 4 would take 40, so those are left to --full (100, 500 and 1000 MB on 8 nodes).
        docs/study.md compares the winner at 500 MB on 1 and on 2 nodes."""
        return cls(sizes_mb=(1, 10), repeats=5, nodes=4, mode="small", raw_sizes_mb=(500,), raw_nodes=1)

    @classmethod
    def full(cls) -> IoOptions:
        """The study's real sizes."""
        return cls(sizes_mb=(1, 10, 100, 500, 1000), repeats=5, mode="full")


class Client:
    """One node's io_node process: commands go to its stdin, replies are lines on its stdout."""

    def __init__(self, node: Node, argv: list[str], env: dict[str, str], log: str) -> None:
        self.node = node.name
        self.log = log
        with open(log, "ab") as errors:
            self.process = subprocess.Popen(on_node(node, argv, PROJECT_ROOT), stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=errors, env=env,
                                            start_new_session=True)
        self._buffer = b""

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def receive(self, deadline: float) -> str:
        """The next line, or a ServiceError if the client dies or stays silent until `deadline`."""
        assert self.process.stdout is not None
        descriptor = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([descriptor], [], [], left)[0]:
                raise ServiceError(f"the I/O client on {self.node} did not answer in time (log: {self.log})")
            chunk = os.read(descriptor, 65536)
            if not chunk:
                raise ServiceError(f"the I/O client on {self.node} ended: {self._tail()}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        text = line.decode(errors="replace")
        if text.startswith('{"error"'):
            raise ServiceError(f"the I/O client on {self.node} failed: {json.loads(text)['error']}")
        return text

    def stop(self) -> None:
        """End the process we started (by its PID: nsenter execs the client in place)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        if os.path.exists(self.log) and os.path.getsize(self.log) == 0:
            os.remove(self.log)  # only logs that say something are kept

    def _tail(self) -> str:
        self.process.wait()
        try:
            with open(self.log, errors="replace") as text:
                return f"status {self.process.returncode}: {text.read().strip()[-400:] or '(no output)'}"
        except OSError:
            return f"status {self.process.returncode}"


def chosen_nodes(cluster: ClusterState, wanted: int) -> list[Node]:
    """The first `wanted` nodes of the home region (all of them, up to 8, when 0)."""
    home = [node for node in cluster.nodes if node.region == cluster.regions[0]["name"]]
    count = min(MAX_NODES, len(home)) if wanted <= 0 else wanted
    if count > len(home):
        raise ServiceError(f"the I/O study asks for {count} nodes; the home region has {len(home)}")
    return home[:count]


def check_disk(cluster: ClusterState, node_mb: int, say: Say) -> None:
    """Refuse sizes whose files would not fit: per node a source, a local copy, the stored
    file and a store client's spool copy (all on this machine's disk); `node_mb` is the
    largest size times the nodes that move it at once."""
    need = 4 * node_mb * MB
    free = shutil.disk_usage(cluster.directory).free
    if need + DISK_MARGIN > free:
        raise ServiceError(f"the I/O study needs about {need / 1024**3:.1f} GB free for its largest files "
                           f"({node_mb} MB over its nodes), and {cluster.directory} has {free / 1024**3:.1f} GB: "
                           "use smaller sizes")
    if 2 * need > free:
        say(f"io: warning: the largest files use {need / 1024**3:.1f} GB of the {free / 1024**3:.1f} GB free")


def round_summary(replies: list[dict[str, Any]]) -> dict[str, Any]:
    """One round: aggregate MB/s (all bytes over first start to last end) and each node's own."""
    start, end = min(r["start"] for r in replies), max(r["end"] for r in replies)
    moved = sum(r["bytes"] for r in replies)
    summary: dict[str, Any] = {
        "bytes": moved, "seconds": end - start, "aggregate_mbps": moved / MB / max(end - start, 1e-9),
        "per_node_mbps": {r["node"]: r["bytes"] / MB / max(r["end"] - r["start"], 1e-9) for r in replies},
        "per_node_bytes": {r["node"]: r["bytes"] for r in replies},
    }
    if any("read_size" in r for r in replies):
        summary["read_sizes"] = {r["node"]: r["read_size"] for r in replies}
    if any("read_sha256" in r for r in replies):
        summary["verified"] = all(r["read_sha256"] == r["source_sha256"] for r in replies)
    return summary


def prepare(clients: list[Client], pattern: str, repeat: int, deadline: float) -> None:
    """Every client's untimed preparation of a round, up to its `ready`."""
    for client in clients:
        client.send(f"round {pattern} {repeat}")
    for client in clients:
        if client.receive(deadline) != "ready":
            raise ServiceError(f"the I/O client on {client.node} said something other than ready")


def release(clients: list[Client], deadline: float) -> list[dict[str, Any]]:
    """The barrier: `go` to every client at once; their replies."""
    for client in clients:
        client.send("go")
    return [json.loads(client.receive(deadline)) for client in clients]


def order(stores: list[str], patterns: tuple[str, ...], repeats: int) -> list[tuple[int, str, str]]:
    """(repeat, store, pattern) in the order measured: repeat 1 of every store, then repeat 2, ...
    so that a slow spell of the host falls on every store alike, not on one store's repeats."""
    return [(repeat, store, pattern) for repeat in range(repeats) for store in stores for pattern in patterns]


def measure_rounds(stores: list[str], patterns: tuple[str, ...], repeats: int,
                   one_round: RoundFn) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Every round of one size, interleaved (see `order`); each round's summary by (store, pattern)."""
    rounds: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for repeat, store, pattern in order(stores, patterns, repeats):
        rounds.setdefault((store, pattern), []).append({"repeat": repeat, **one_round(store, pattern, repeat)})
    return rounds


def rows_of(size_mb: int, nodes: int, rounds: dict[tuple[str, str], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """io.json's results for one size: a measure of the aggregate MB/s per (store, pattern)."""
    rows = []
    for (store, pattern), summaries in rounds.items():
        samples = [summary["aggregate_mbps"] for summary in summaries]
        record = measure_of(samples, [summary["cpu"]["saturated"] for summary in summaries],
                            [summary["cpu"]["host_busy"] for summary in summaries])
        rows.append({"store": store, "pattern": pattern, "size_mb": size_mb, "nodes": nodes, **record,
                     "rounds": summaries})
    return rows


def headroom(rows: list[dict[str, Any]], threshold: float = SATURATED_ABOVE) -> dict[str, Any]:
    """How many repeats ran on a saturated host, in all and per store."""
    by_store: dict[str, list[int]] = {}
    for row in rows:
        counts = by_store.setdefault(row["store"], [0, 0])
        counts[0] += sum(row["saturated"])
        counts[1] += len(row["saturated"])
    return {"threshold": threshold, "repeats": sum(total for _, total in by_store.values()),
            "saturated": sum(saturated for saturated, _ in by_store.values()), "by_store": by_store}


class StoreClients:
    """One client per node for every store, started one store at a time and kept across repeats."""

    def __init__(self, cluster: ClusterState, nodes: list[Node], size_mb: int, verify: bool, logs: str) -> None:
        self.cluster = cluster
        self.nodes = nodes
        self.size_mb = size_mb
        self.verify = verify
        self.logs = logs
        # A guard against a hung client, not a measurement: far below any store's rate.
        self.timeout = 300 + 2.0 * size_mb * len(nodes)
        self.clients: dict[str, list[Client]] = {}
        self.methods: dict[str, str] = {}

    def start(self, store: str) -> None:
        """Start `store`'s clients and wait until each has opened it and made its source file
        (the first store's clients make it; the next ones find it on the node)."""
        env = {**module_environment(), **node_environment(self.cluster)}
        argv = [sys.executable, "-m", "study.io_node", "--store", store, "--size", str(self.size_mb * MB)]
        if self.verify:
            argv.append("--verify")
        clients = self.clients.setdefault(store, [])
        for node in self.nodes:
            clients.append(Client(node, argv, env,
                                  os.path.join(self.logs, f"{store}-{self.size_mb}MB-{node.name}.log")))
        deadline = time.monotonic() + self.timeout
        for client in clients:
            if client.receive(deadline) != "started":
                raise ServiceError(f"the I/O client on {client.node} said something other than started")

    def one_round(self, store: str, pattern: str, repeat: int) -> dict[str, Any]:
        """One barrier-released round of `store`'s clients, under a CpuWatch of the timed part."""
        clients = self.clients[store]
        deadline = time.monotonic() + self.timeout
        prepare(clients, pattern, repeat, deadline)
        with CpuWatch(self.cluster) as watch:
            replies = release(clients, deadline)
        self.methods[store] = replies[0]["method"]
        assert watch.window is not None
        return {**round_summary(replies), "cpu": watch.window.as_dict()}

    def finish(self) -> None:
        """Say quit to every client and check that each ended well."""
        for clients in self.clients.values():
            for client in clients:
                client.send("quit")
        for clients in self.clients.values():
            for client in clients:
                try:
                    status = client.process.wait(self.timeout)
                except subprocess.TimeoutExpired:
                    raise ServiceError(f"the I/O client on {client.node} did not end (log: {client.log})") from None
                if status != 0:
                    raise ServiceError(f"the I/O client on {client.node} failed at the end (log: {client.log})")

    def stop(self) -> None:
        for clients in self.clients.values():
            for client in clients:
                client.stop()


def groups(options: IoOptions, home: int) -> list[tuple[int, int, tuple[str, ...]]]:
    """(size MB, nodes, patterns) in the order measured: every pattern at `sizes_mb` on
    `nodes` nodes, then read-after-write alone at `raw_sizes_mb` on `raw_nodes`."""
    nodes = options.nodes or min(MAX_NODES, home)
    raw_nodes = options.raw_nodes or nodes
    return ([(size, nodes, options.patterns) for size in options.sizes_mb]
            + [(size, raw_nodes, ("read_after_write",)) for size in options.raw_sizes_mb])


def run(cluster: ClusterState, stores: list[str], options: IoOptions, out_dir: str, say: Say) -> dict[str, Any]:
    """Measure every store, size and pattern on the cluster; write io.json and the figures."""
    began = time.monotonic()
    home = chosen_nodes(cluster, 0)
    plan = groups(options, len(home))
    for _, count, _ in plan:
        chosen_nodes(cluster, count)  # refuses a count the home region does not have
    missing = [store for store in stores if store != LOCAL and store not in cluster.storage]
    if missing:
        raise ServiceError(f"the I/O study needs {', '.join(missing)} started on the cluster "
                           f"(it has: {', '.join(cluster.storage) or 'none'})")
    check_disk(cluster, max(size * count for size, count, _ in plan), say)
    os.makedirs(out_dir, exist_ok=True)
    logs = os.path.join(out_dir, "io-logs")
    os.makedirs(logs, exist_ok=True)
    say(f"io: stores {', '.join(stores)}; " + "; ".join(
        f"{size} MB on {count} node{'s' if count != 1 else ''} ({', '.join(patterns)})" for size, count, patterns in plan)
        + f"; {options.repeats} repeats, interleaved")
    results: list[dict[str, Any]] = []
    methods: dict[str, str] = {}
    for step, (size_mb, count, patterns) in enumerate(plan, 1):
        nodes = chosen_nodes(cluster, count)
        clients = StoreClients(cluster, nodes, size_mb, options.verify, logs)
        try:
            for store in stores:
                clients.start(store)
            rounds = measure_rounds(stores, patterns, options.repeats, clients.one_round)
            clients.finish()
        finally:
            clients.stop()
            for node in nodes:  # the node's scratch directory, seen from the host
                shutil.rmtree(os.path.join(cluster.node_dir(node.name, "scratch"), WORK_DIR), ignore_errors=True)
        methods.update(clients.methods)
        rows = rows_of(size_mb, count, rounds)
        results += rows
        say(f"io: [{step}/{len(plan)}] {size_mb} MB on {count} nodes, median MB/s ({', '.join(patterns)}): "
            + "; ".join(f"{store} " + " / ".join(_text(row) for row in rows if row["store"] == store)
                        for store in stores) + f" ({time.monotonic() - began:.0f} s so far)")
    parameters = {**asdict(options), "sizes_mb": list(options.sizes_mb), "raw_sizes_mb": list(options.raw_sizes_mb),
                  "patterns": list(options.patterns), "nodes": [node.name for node in home[:plan[0][1]]],
                  "raw_nodes": plan[-1][1] if options.raw_sizes_mb else None, "stores": list(stores),
                  "mb": "MiB (2^20 bytes)", "saturated_above": SATURATED_ABOVE}
    report: dict[str, Any] = {"mode": options.mode, "parameters": parameters, "methods": methods,
                              "results": results, "headroom": headroom(results),
                              "seconds": time.monotonic() - began, "figures": figure_names(options.patterns)}
    if not os.listdir(logs):
        os.rmdir(logs)
    with open(os.path.join(out_dir, "io.json"), "w") as handle:
        json.dump(report, handle, indent=1)
    draw(report, out_dir)
    room = report["headroom"]
    say(f"io: done in {report['seconds']:.0f} s; {room['saturated']} of {room['repeats']} rounds on a saturated "
        f"host; figures in {out_dir}")
    return report


def _text(row: dict[str, Any]) -> str:
    """A row's median, and how many of its repeats were saturated, if any."""
    hot = sum(row["saturated"])
    return (f"{row['median']:.1f}" if row["median"] is not None else "-") + (f" ({hot} saturated)" if hot else "")


def main(argv: list[str] | None = None) -> int:
    """Bring up a cluster of its own, run the I/O part on it, take the cluster down."""
    register_mosastore()  # the stores are opened by name, mosastore's too
    known = study_stores()
    parser = argparse.ArgumentParser(prog="python -m study.io", description=__doc__.split("\n\n")[0])
    parser.add_argument("--state-dir", default="/tmp/study-io/state", help="the cluster's own state directory "
                        "(default /tmp/study-io/state)")
    parser.add_argument("--out", default="study-io", help="results directory (default ./study-io)")
    parser.add_argument("--cluster-nodes", type=int, default=MAX_NODES, metavar="N", help="nodes of the cluster "
                        f"(default {MAX_NODES}; all in the home region)")
    parser.add_argument("--nodes", type=int, default=0, metavar="N", help="nodes measured at once (default: "
                        "min(8, home-region nodes))")
    parser.add_argument("--stores", default=",".join(known), help=f"default {','.join(known)}")
    parser.add_argument("--sizes", metavar="MB[,MB]", help="file sizes in MB, every pattern (default 1,10,30)")
    parser.add_argument("--raw-sizes", metavar="MB[,MB]", help="file sizes in MB for read-after-write alone, on "
                        "--raw-nodes nodes (default 500; none with --sizes)")
    parser.add_argument("--raw-nodes", type=int, default=0, metavar="N", help="nodes for --raw-sizes (default 4)")
    parser.add_argument("--repeats", type=int, help="repeats per size (default 5)")
    parser.add_argument("--full", action="store_true", help="the study's real sizes: 1,10,100,500,1000 MB, 5 repeats")
    parser.add_argument("--verify", action="store_true", help="check on every node that what was read is the source")
    args = parser.parse_args(argv)
    stores = [name for name in args.stores.split(",") if name]
    unknown = [name for name in stores if name not in known]
    try:
        base = IoOptions.full() if args.full else IoOptions.small()
        sizes = tuple(int(word) for word in args.sizes.split(",")) if args.sizes else base.sizes_mb
        raw_sizes = (tuple(int(word) for word in args.raw_sizes.split(",")) if args.raw_sizes
                     else () if args.sizes else base.raw_sizes_mb)
    except ValueError:
        parser.error("--sizes and --raw-sizes take whole megabytes separated by commas, e.g. 1,10,100")
    if unknown or not stores:
        parser.error(f"--stores: choose from {', '.join(known)}")
    if (not sizes or min(sizes + raw_sizes) <= 0 or (args.repeats is not None and args.repeats <= 0) or args.nodes < 0
            or args.raw_nodes < 0):
        parser.error("sizes, repeats and nodes must be positive")
    if os.geteuid() != 0:
        parser.error("the emulated cluster needs root (network namespaces, bridges and tc)")
    options = IoOptions(sizes_mb=sizes, repeats=args.repeats or base.repeats, nodes=args.nodes, verify=args.verify,
                        mode=base.mode, raw_sizes_mb=raw_sizes, raw_nodes=args.raw_nodes or base.raw_nodes)

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    state_dir = os.path.abspath(args.state_dir)
    try:
        with terminate_as_interrupt():  # a polite kill unwinds like Ctrl-C: the cluster goes down
            try:
                cluster = lifecycle.up(state_dir, args.cluster_nodes, storage=with_daemons(stores),
                                       report=lambda line: say(f"cluster: {line}"))
                run(cluster, stores, options, os.path.abspath(args.out), say)
            finally:
                lifecycle.down(state_dir, lambda line: say(f"cluster: {line}"))
    except KeyboardInterrupt:
        say("io: interrupted; the cluster was taken down")
        return 1
    except (ServiceError, StorageError, OSError) as error:
        say(f"io: error: {error}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
