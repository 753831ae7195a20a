"""The study's I/O figures: concurrent read, write and read-after-write, one file per node.

For every file size, store and pattern, one client (study.io_node) runs inside each of the
chosen nodes; each opens the store and prepares its round untimed, prints `ready`, and
once every client is ready the driver writes `go` to all of them at once. Each client
moves its own file and reports its own start and end (the nodes share one clock). A
round's aggregate rate is the bytes all nodes moved over the time from the first start to
the last end; each node's own rate is kept too. Every round is repeated, and for every
(store, pattern, size) the median, min and max aggregate over the repeats are recorded:
the spread is what the study looks at (the paper found S3 the most variable). Shared
stores are copied through their mount path, staging ones (s3, and hdfs and chirp as runs
use them by default) with the adapter's get_file/put_file; io.json says which per store.
The `local` reference copies between two directories on each node's own disk. Source files of random bytes are made on
each node once per size, and all of a size's files are deleted before the next size.

Writes io.json, read.png, write.png, read_after_write.png and spread.png (the coefficient
of variation of the aggregate over the repeats) into the output directory.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from cluster import lifecycle
from cluster.launch import node_environment
from cluster.nodes import on_node
from cluster.state import ClusterState, Node
from cluster.stores import with_daemons
from hostkit.errors import ServiceError, StorageError
from hostkit.interrupt import terminate_as_interrupt
from hostkit.program import PROJECT_ROOT, module_environment
from mosastore.plugin import register as register_mosastore
from study.io_node import LOCAL, PATTERNS, WORK_DIR
from study.stores import study_stores

MB = 1024 * 1024  # as bench/io_patterns.py: sizes and rates in MiB
MAX_NODES = 8
DISK_MARGIN = 2 * 1024**3  # left free on the disk after the largest size's files
Say = Callable[[str], None]


@dataclass(frozen=True)
class IoOptions:
    """What the I/O part measures; `nodes` 0 means min(8, the cluster's home-region nodes)."""

    sizes_mb: tuple[int, ...]
    repeats: int
    nodes: int = 0
    verify: bool = False
    mode: str = "small"
    patterns: tuple[str, ...] = field(default=PATTERNS)

    @classmethod
    def quick(cls) -> IoOptions:
        """A look at every store: 1 MB files, two repeats (enough for a spread, not for claims)."""
        return cls(sizes_mb=(1,), repeats=2, mode="quick")

    @classmethod
    def small(cls) -> IoOptions:
        """The study's default: 8 nodes at once, up to 30 MB (50 MB took 290 s of the part's 420
        on a 2-core VM: the stores served from node1, Chirp's server and the masters, share its
        50 MB/s link)."""
        return cls(sizes_mb=(1, 10, 30), repeats=3, mode="small")

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


def check_disk(cluster: ClusterState, nodes: int, largest_mb: int, say: Say) -> None:
    """Refuse sizes whose files would not fit: per node a source, a local copy, the stored
    file and a store client's spool copy (all on this machine's disk)."""
    need = 4 * nodes * largest_mb * MB
    free = shutil.disk_usage(cluster.directory).free
    if need + DISK_MARGIN > free:
        raise ServiceError(f"the I/O study needs about {need / 1024**3:.1f} GB free for {largest_mb} MB files on "
                           f"{nodes} nodes, and {cluster.directory} has {free / 1024**3:.1f} GB: use smaller sizes")
    if 2 * need > free:
        say(f"io: warning: {largest_mb} MB files on {nodes} nodes use {need / 1024**3:.1f} GB of the "
            f"{free / 1024**3:.1f} GB free")


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


def measure(clients: list[Client], pattern: str, repeat: int, timeout: float) -> list[dict[str, Any]]:
    """One barrier-released round on every client; their replies."""
    deadline = time.monotonic() + timeout
    for client in clients:
        client.send(f"round {pattern} {repeat}")
    for client in clients:
        if client.receive(deadline) != "ready":
            raise ServiceError(f"the I/O client on {client.node} said something other than ready")
    for client in clients:
        client.send("go")
    return [json.loads(client.receive(deadline)) for client in clients]


def measure_store(cluster: ClusterState, nodes: list[Node], store: str, size_mb: int, options: IoOptions,
                  logs: str) -> tuple[str, dict[str, list[dict[str, Any]]]]:
    """Every pattern and repeat of one store at one size: (how files moved, rounds by pattern)."""
    env = {**module_environment(), **node_environment(cluster)}
    argv = [sys.executable, "-m", "study.io_node", "--store", store, "--size", str(size_mb * MB)]
    if options.verify:
        argv.append("--verify")
    # A guard against a hung client, not a measurement: far below any store's rate.
    timeout = 300 + 2.0 * size_mb * len(nodes)
    clients: list[Client] = []
    try:
        for node in nodes:
            clients.append(Client(node, argv, env, os.path.join(logs, f"{store}-{size_mb}MB-{node.name}.log")))
        rounds: dict[str, list[dict[str, Any]]] = {}
        method = ""
        for pattern in options.patterns:
            for repeat in range(options.repeats):
                replies = measure(clients, pattern, repeat, timeout)
                method = replies[0]["method"]
                rounds.setdefault(pattern, []).append(round_summary(replies))
        for client in clients:
            client.send("quit")
        for client in clients:
            try:
                status = client.process.wait(timeout)
            except subprocess.TimeoutExpired:
                raise ServiceError(f"the I/O client on {client.node} did not end (log: {client.log})") from None
            if status != 0:
                raise ServiceError(f"the I/O client on {client.node} failed at the end (log: {client.log})")
        return method, rounds
    finally:
        for client in clients:
            client.stop()


def spread(rates: list[float]) -> dict[str, float]:
    return {"median": statistics.median(rates), "min": min(rates), "max": max(rates),
            "cv": statistics.stdev(rates) / statistics.mean(rates) if len(rates) > 1 else 0.0}


def run(cluster: ClusterState, stores: list[str], options: IoOptions, out_dir: str, say: Say) -> dict[str, Any]:
    """Measure every store, size and pattern on the cluster; write io.json and the figures."""
    began = time.monotonic()
    nodes = chosen_nodes(cluster, options.nodes)
    missing = [store for store in stores if store != LOCAL and store not in cluster.storage]
    if missing:
        raise ServiceError(f"the I/O study needs {', '.join(missing)} started on the cluster "
                           f"(it has: {', '.join(cluster.storage) or 'none'})")
    check_disk(cluster, len(nodes), max(options.sizes_mb), say)
    os.makedirs(out_dir, exist_ok=True)
    logs = os.path.join(out_dir, "io-logs")
    os.makedirs(logs, exist_ok=True)
    say(f"io: {len(nodes)} nodes, stores {', '.join(stores)}, sizes {', '.join(map(str, options.sizes_mb))} MB, "
        f"{options.repeats} repeats")
    results: list[dict[str, Any]] = []
    methods: dict[str, str] = {}
    steps, step = len(options.sizes_mb) * len(stores), 0
    for size_mb in options.sizes_mb:
        try:
            for store in stores:
                step += 1
                methods[store], rounds = measure_store(cluster, nodes, store, size_mb, options, logs)
                for pattern, summaries in rounds.items():
                    results.append({"store": store, "pattern": pattern, "size_mb": size_mb,
                                    **spread([s["aggregate_mbps"] for s in summaries]), "rounds": summaries})
                medians = ", ".join(f"{pattern} {statistics.median(s['aggregate_mbps'] for s in summaries):.1f}"
                                    for pattern, summaries in rounds.items())
                say(f"io: [{step}/{steps}] {size_mb} MB, {store}: {medians} MB/s "
                    f"({time.monotonic() - began:.0f} s so far)")
        finally:
            for node in nodes:  # the node's scratch directory, seen from the host
                shutil.rmtree(os.path.join(cluster.node_dir(node.name, "scratch"), WORK_DIR), ignore_errors=True)
    parameters = {**asdict(options), "sizes_mb": list(options.sizes_mb), "patterns": list(options.patterns),
                  "nodes": [node.name for node in nodes], "stores": list(stores), "mb": "MiB (2^20 bytes)"}
    report: dict[str, Any] = {"mode": options.mode, "parameters": parameters, "methods": methods,
                              "results": results, "seconds": time.monotonic() - began,
                              "figures": [f"{pattern}.png" for pattern in options.patterns] + ["spread.png"]}
    if not os.listdir(logs):
        os.rmdir(logs)
    with open(os.path.join(out_dir, "io.json"), "w") as handle:
        json.dump(report, handle, indent=1)
    draw(report, out_dir)
    say(f"io: done in {report['seconds']:.0f} s; figures in {out_dir}")
    return report


def draw(report: dict[str, Any], out_dir: str) -> None:
    """One figure per pattern (aggregate MB/s against size, min-max band per store) and spread.png."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import ticker

    parameters = report["parameters"]
    stores = parameters["stores"]
    for pattern in parameters["patterns"]:
        figure, axes = plt.subplots(figsize=(7, 4.5))
        for store in stores:
            rows = sorted((r for r in report["results"] if r["store"] == store and r["pattern"] == pattern),
                          key=lambda r: r["size_mb"])
            if not rows:
                continue
            sizes = [r["size_mb"] for r in rows]
            medians = [r["median"] for r in rows]
            line = axes.errorbar(sizes, medians, yerr=[[r["median"] - r["min"] for r in rows],
                                                       [r["max"] - r["median"] for r in rows]],
                                 marker="o", capsize=3, label=store)
            axes.fill_between(sizes, [r["min"] for r in rows], [r["max"] for r in rows],
                              color=line[0].get_color(), alpha=0.15)
        axes.set_xscale("log")
        axes.set_yscale("log")
        for axis in (axes.xaxis, axes.yaxis):
            axis.set_major_formatter(ticker.ScalarFormatter())
        axes.set_xlabel("file size (MB)")
        axes.set_ylabel("aggregate MB/s (all nodes)")
        axes.set_title(f"{pattern.replace('_', '-')}: one file per node, {len(parameters['nodes'])} nodes at once, "
                       f"median and min-max of {parameters['repeats']} repeats", fontsize=9)
        axes.legend(fontsize=8)
        axes.grid(True, which="both", alpha=0.3)
        figure.tight_layout()
        figure.savefig(os.path.join(out_dir, f"{pattern}.png"), dpi=110)
        plt.close(figure)
    figure, panels = plt.subplots(1, len(parameters["patterns"]), figsize=(12, 4), sharey=True, squeeze=False)
    sizes = parameters["sizes_mb"]
    width = 0.8 / len(sizes)
    for panel, pattern in zip(panels[0], parameters["patterns"]):
        for index, size in enumerate(sizes):
            values = [next((r["cv"] for r in report["results"] if r["store"] == store and r["pattern"] == pattern
                            and r["size_mb"] == size), 0.0) for store in stores]
            panel.bar([position + index * width for position in range(len(stores))], values, width,
                      label=f"{size} MB")
        panel.set_xticks([position + 0.4 - width / 2 for position in range(len(stores))], stores, rotation=30,
                         fontsize=8)
        panel.set_title(pattern.replace("_", "-"), fontsize=9)
        panel.grid(True, axis="y", alpha=0.3)
    panels[0][0].set_ylabel(f"coefficient of variation over {parameters['repeats']} repeats")
    panels[0][-1].legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(os.path.join(out_dir, "spread.png"), dpi=110)
    plt.close(figure)


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
    parser.add_argument("--sizes", metavar="MB[,MB]", help="file sizes in MB (default 1,10,20)")
    parser.add_argument("--repeats", type=int, help="repeats per size (default 3)")
    parser.add_argument("--full", action="store_true", help="the study's real sizes: 1,10,100,500,1000 MB, 5 repeats")
    parser.add_argument("--verify", action="store_true", help="check on every node that what was read is the source")
    args = parser.parse_args(argv)
    stores = [name for name in args.stores.split(",") if name]
    unknown = [name for name in stores if name not in known]
    try:
        base = IoOptions.full() if args.full else IoOptions.small()
        sizes = tuple(int(word) for word in args.sizes.split(",")) if args.sizes else base.sizes_mb
    except ValueError:
        parser.error("--sizes takes whole megabytes separated by commas, e.g. 1,10,100")
    if unknown or not stores:
        parser.error(f"--stores: choose from {', '.join(known)}")
    if min(sizes) <= 0 or (args.repeats is not None and args.repeats <= 0) or args.nodes < 0:
        parser.error("sizes, repeats and nodes must be positive")
    if os.geteuid() != 0:
        parser.error("the emulated cluster needs root (network namespaces, bridges and tc)")
    options = IoOptions(sizes_mb=sizes, repeats=args.repeats or base.repeats, nodes=args.nodes, verify=args.verify,
                        mode=base.mode)

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
