"""Raw I/O patterns of the storage paper, for every storage backend, against real local servers.

For each backend, K concurrent tasks (separate processes, default K = 4) each
(a) read: copy a file of size S from the store to local disk, (b) write: copy
one from local disk to the store, (c) read-after-write: write one, then read
it straight back; for S in 1, 10, 100 MB (500 with --large). The reference
is the same copies between two local-disk directories, measured beside each
backend: the two alternate run by run (which goes first alternates too), so
that both meet the same state of the machine, and a backend's ratio to local
disk is the median of its paired runs' ratios. Throughput is the bytes all K
tasks moved divided by the wall time from the moment they start together until
the last one ends (read-after-write counts both directions); each figure is the
median of --repeat runs (the reference's row in the plots and in the CPU table:
the median beside every backend). The
page cache is not dropped, as on a real node. Beside the MB/s, each backend
gets the client's CPU seconds per GB moved (the tasks' processes plus the
store's FUSE client or s3fs: what a node pays to move data), its servers' (MinIO,
the MosaStore manager and benefactors, chirp_server and the processes it forks, the
NameNode and DataNodes: on one host they share the node's cores) and an
mdtest-like create rate (--creates empty files, created and closed by the K
tasks). `--fio MB` also runs fio's sequential 1 MiB and 4 KiB writes and reads
on local disk and on every mount.

Servers (MinIO, sshd, the s3fs mount, MosaStore with 4 benefactors, a
chirp_server and HDFS (a NameNode and three DataNodes, each block on all
three, as Hadoop deploys it by default) with our FUSE mounts) are started on
127.0.0.1 in a temporary state directory and stopped at the end; the time
each service took to start is printed and saved. `hdfs` and `hdfs-shared`
are HDFS staged with the native client and through the mount. `chirp` stages
with our protocol client, `chirp-shared` goes through the mount, and
`chirp-tools` moves the same files with Chirp's own `chirp_put` / `chirp_get` (one process per
file), to show which staging client is faster. Prints a table and writes
io_patterns.json plus read.png, write.png and read_after_write.png to --out.

    .venv/bin/python bench/io_patterns.py --sizes 1,10 --out /tmp/io
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass

import psutil

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mosastore.plugin import register as register_mosastore  # noqa: E402
from storage_adapters import open_storage  # noqa: E402
from storage_adapters.base import StorageAdapter  # noqa: E402
from storage_adapters.chirp import service as chirp_service  # noqa: E402
from storage_adapters.services import service_status, start_service, stop_service  # noqa: E402

# Stores are opened and services started by name, mosastore's too, here and in the workers
# this script spawns (which import it afresh).
register_mosastore()

MB = 1024 * 1024
PATTERNS = ("read", "write", "read_after_write")
REFERENCE = "local disk"
BACKEND_SERVICES = {
    "local": [], "s3": ["minio"], "scp": ["sshd"], "s3fs": ["minio", "s3fs"], "mosastore": ["mosastore"],
    "chirp": ["chirp"], "chirp-shared": ["chirp"], "chirp-tools": ["chirp"],
    "hdfs": ["hdfs"], "hdfs-shared": ["hdfs"],
}
# HDFS as Hadoop deploys it by default: three DataNodes, each block on all three.
SERVICE_OPTIONS: dict[str, dict[str, int]] = {"hdfs": {"datanodes": 3}}
# The storage study's comparison: the aggregated node-local store against the remote object store;
# and our Chirp protocol client against Chirp's own tools.
COMPARISONS = (("mosastore", "s3fs"), ("chirp", "chirp-tools"))
# Stores that are a backend in another mode: a table in the generated swiftcloud.toml.
CONFIG = ('[storage.chirp-shared]\nbackend = "chirp"\nmode = "shared"\n'
          '[storage.hdfs-shared]\nbackend = "hdfs"\nmode = "shared"\n')


class ChirpTools:
    """Staging with Chirp's command-line clients, one process per file (argv lists, no shell)."""

    def __init__(self, server: str, directory: str) -> None:
        self.server = server
        self.env = chirp_service.environment()
        self._run(["chirp", "-a", "unix", "-t", "60", server, "mkdir", "-p", f"/{directory}"])

    def _run(self, argv: list[str]) -> None:
        subprocess.run(argv, env=self.env, check=True, capture_output=True, timeout=600)

    def put_file(self, local: str, remote: str) -> None:
        self._run(["chirp_put", "-a", "unix", "-t", "60", local, self.server, f"/{remote}"])

    def get_file(self, remote: str, local: str) -> None:
        self._run(["chirp_get", "-a", "unix", "-t", "60", self.server, f"/{remote}", local])


# Per worker process: the opened store (None for the local-disk reference).
_adapter: StorageAdapter | ChirpTools | None = None


def _open_in_worker(backend: str, config: str) -> None:
    global _adapter
    if backend == REFERENCE:
        _adapter = None
    elif backend == "chirp-tools":
        record = chirp_service.status(os.environ["SWIFTCLOUD_STATE_DIR"])
        assert record is not None, "the chirp service is not running"
        _adapter = ChirpTools(record.info["server"], f"bench-{backend}")
    else:
        _adapter = open_storage(backend, config)


def _task(job: tuple[str, str, str, str]) -> None:
    """One task of one pattern: `source`/`target` are local paths or logical store paths."""
    pattern, local_in, remote, local_out = job
    if pattern == "create":
        _create(local_in, remote, int(local_out))
        return
    if _adapter is None:
        if pattern in ("write", "read_after_write"):
            shutil.copyfile(local_in, remote)
        if pattern in ("read", "read_after_write"):
            shutil.copyfile(remote, local_out)
        return
    if pattern in ("write", "read_after_write"):
        _adapter.put_file(local_in, remote)
    if pattern in ("read", "read_after_write"):
        _adapter.get_file(remote, local_out)


def _create(empty: str, directory: str, count: int) -> None:
    """mdtest's create phase: `count` empty files made in `directory` (create, close; through
    the mount for a shared store, one empty put per file for a staged one)."""
    mounted = _adapter is None or _adapter.mount_path is not None
    if mounted:
        target = directory if _adapter is None else _adapter.local_path(directory)
        os.makedirs(target, exist_ok=True)
        for index in range(count):
            os.close(os.open(os.path.join(target, f"f{index}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644))
    else:
        assert _adapter is not None
        for index in range(count):
            _adapter.put_file(empty, f"{directory}/f{index}")


def _cpu_seconds(pids: list[int]) -> float:
    """User plus system CPU seconds of the processes `pids` and of their descendants, living
    or ended (chirp_server forks one per connection, which lives as long as it): each counted
    once, an ended one in its parent's children's times; gone processes count nothing."""
    processes: dict[int, psutil.Process] = {}
    for pid in pids:
        with suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            process = psutil.Process(pid)
            processes[pid] = process
            processes.update((child.pid, child) for child in process.children(recursive=True))
    total = 0.0
    for process in processes.values():
        with suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            times = process.cpu_times()
            total += times.user + times.system + times.children_user + times.children_system
    return total


def server_pids(backend: str, clients: list[int]) -> list[int]:
    """The processes of the servers `backend` runs on (from their service records, in the
    state directory the workers use), its clients excepted."""
    pids: set[int] = set()
    for service in BACKEND_SERVICES.get(backend, []):
        record = service_status(service, os.environ["SWIFTCLOUD_STATE_DIR"])
        if record is not None:
            pids.add(record.pid)
            pids.update(entry["pid"] for entry in record.info.get("processes", []))
    return sorted(pids - set(clients))


def client_pids(mount_point: str | None) -> list[int]:
    """The processes serving `mount_point` (our FUSE clients, s3fs): those naming it on their
    command line, this process and its children excepted."""
    if not mount_point:
        return []
    own = {os.getpid(), *(child.pid for child in multiprocessing.active_children())}
    return [process.pid for process in psutil.process_iter(["cmdline"])
            if process.pid not in own and mount_point in (process.info["cmdline"] or [])]


class Bench:
    """One backend's K task processes (its store opened in each), measuring one timed round at a
    time, so that the reference's rounds and a store's can alternate."""

    def __init__(self, backend: str, tasks: int, work: str) -> None:
        self.backend = backend
        self.tasks = tasks
        self._work = work
        config = os.path.join(work, "swiftcloud.toml")
        self._adapter = None if backend == REFERENCE else _store_for(backend, config)
        before = {child.pid for child in multiprocessing.active_children()}
        self._pool = multiprocessing.get_context("spawn").Pool(tasks, initializer=_open_in_worker,
                                                                initargs=(backend, config))
        self._pool.map(time.sleep, [0.0] * tasks)  # all workers started and their stores opened
        workers = [child.pid for child in multiprocessing.active_children() if child.pid not in before]
        self._clients = workers + client_pids(getattr(self._adapter, "mount_point", None))
        self._servers = [] if backend == REFERENCE else server_pids(backend, self._clients)
        self._store_dir = os.path.join(work, "reference-store") if backend == REFERENCE else ""
        if self._store_dir:
            os.makedirs(self._store_dir, exist_ok=True)
        self._out_dir = os.path.join(work, "out", backend.replace(" ", "-"))

    def __enter__(self) -> Bench:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.close()
        self._pool.join()
        if self._adapter is not None:
            self._adapter.close()
        shutil.rmtree(self._out_dir, ignore_errors=True)

    def _remote(self, pattern: str, size: int, index: int) -> str:
        name = f"{pattern}-{size}MB-{index}"
        return os.path.join(self._store_dir, name) if self._store_dir else f"bench-{self.backend}/{name}"

    def _sources(self, size: int) -> list[str]:
        return [os.path.join(self._work, "sources", f"{size}MB-{index}") for index in range(self.tasks)]

    def prepare(self, size: int) -> None:
        """What the read pattern reads at `size`, put in the store beforehand (untimed)."""
        os.makedirs(self._out_dir, exist_ok=True)
        sources = self._sources(size)
        self._pool.map(_task, [("write", sources[i], self._remote("read", size, i), "") for i in range(self.tasks)])

    def round(self, pattern: str, size: int) -> tuple[float, float, float]:
        """One timed round of `pattern` at `size`: (MB/s, the client's CPU seconds per GB, the
        servers')."""
        sources = self._sources(size)
        jobs = [(pattern, sources[i], self._remote(pattern, size, i), os.path.join(self._out_dir, f"{pattern}-{i}"))
                for i in range(self.tasks)]
        moved = self.tasks * size * (2 if pattern == "read_after_write" else 1)
        clients_before, servers_before = _cpu_seconds(self._clients), _cpu_seconds(self._servers)
        start = time.perf_counter()
        self._pool.map(_task, jobs, chunksize=1)
        rate = moved / (time.perf_counter() - start)
        gigabytes = moved / 1024
        return (rate, (_cpu_seconds(self._clients) - clients_before) / gigabytes,
                (_cpu_seconds(self._servers) - servers_before) / gigabytes)

    def creates(self, run: int, files: int) -> float:
        """One timed round of mdtest's create phase: `files` empty files over the tasks; per second."""
        empty = os.path.join(self._work, "sources", "empty")
        base = (os.path.join(self._store_dir, f"creates-{run}") if self._store_dir
                else f"bench-{self.backend}/creates-{run}")
        start = time.perf_counter()
        self._pool.map(_task, [("create", empty, f"{base}/task{i}", str(files // self.tasks))
                               for i in range(self.tasks)], chunksize=1)
        return self.tasks * (files // self.tasks) / (time.perf_counter() - start)


@dataclass
class Compared:
    """A backend's figures and the reference's measured beside them, run for run: per pattern
    and size, medians of MB/s, of the client's and the servers' CPU seconds per GB, and of the
    paired runs' ratios (backend / reference); and of the create rates."""

    mb_per_s: dict[str, dict[int, float]]
    reference_mb_per_s: dict[str, dict[int, float]]
    ratio: dict[str, dict[int, float]]
    cpu_s_per_gb: dict[str, dict[int, float]]
    server_cpu_s_per_gb: dict[str, dict[int, float]]
    reference_cpu_s_per_gb: dict[str, dict[int, float]]
    creates_per_s: float
    reference_creates_per_s: float


def compare(backend: str, sizes: list[int], tasks: int, repeat: int, work: str, creates: int) -> Compared:
    """`backend` and the local-disk reference, alternating run by run (which of the two goes
    first alternates too), so that both meet the same state of the machine."""
    figures: dict[str, dict[str, dict[int, list[tuple[float, float, float]]]]] = {
        name: {pattern: {} for pattern in PATTERNS} for name in (REFERENCE, backend)}
    ratios: dict[str, dict[int, float]] = {pattern: {} for pattern in PATTERNS}
    create_rates: dict[str, list[float]] = {REFERENCE: [], backend: []}
    with Bench(REFERENCE, tasks, work) as reference, Bench(backend, tasks, work) as store:
        benches = (reference, store)
        for size in sizes:
            for bench in benches:
                bench.prepare(size)
            for pattern in PATTERNS:
                for run in range(repeat):
                    for bench in benches if run % 2 == 0 else benches[::-1]:
                        figures[bench.backend][pattern].setdefault(size, []).append(bench.round(pattern, size))
                pairs = zip(figures[backend][pattern][size], figures[REFERENCE][pattern][size])
                ratios[pattern][size] = statistics.median(ours[0] / theirs[0] for ours, theirs in pairs)
        for run in range(repeat):
            for bench in benches if run % 2 == 0 else benches[::-1]:
                create_rates[bench.backend].append(bench.creates(run, creates))

    def medians(name: str, index: int) -> dict[str, dict[int, float]]:
        return {pattern: {size: statistics.median(run[index] for run in runs) for size, runs in by_size.items()}
                for pattern, by_size in figures[name].items()}

    return Compared(medians(backend, 0), medians(REFERENCE, 0), ratios, medians(backend, 1), medians(backend, 2),
                    medians(REFERENCE, 1), statistics.median(create_rates[backend]),
                    statistics.median(create_rates[REFERENCE]))


def _store_for(backend: str, config: str) -> StorageAdapter | None:
    """The backend's store as opened here, to find its mount (chirp-tools has none)."""
    return None if backend == "chirp-tools" else open_storage(backend, config)


FIO_JOBS = (("write", "1M"), ("write", "4k"), ("read", "1M"), ("read", "4k"))


def run_fio(directory: str, tasks: int, megabytes: int) -> dict[str, float]:
    """fio's sequential writes and reads in `directory`: `tasks` jobs of `megabytes` each,
    writes ending with fsync, reads after the page cache was dropped for the files
    (fio's `invalidate`); aggregate MB/s per job kind, e.g. "write 4k"."""
    results = {}
    for pattern, block in FIO_JOBS:
        argv = ["fio", f"--name=seq-{pattern}-{block}", f"--directory={directory}", f"--rw={pattern}",
                f"--bs={block}", f"--size={megabytes}M", f"--numjobs={tasks}", "--group_reporting",
                "--end_fsync=1", "--invalidate=1", "--ioengine=psync", "--output-format=json"]
        completed = subprocess.run(argv, capture_output=True, text=True, timeout=900, check=True)
        report = json.loads(completed.stdout[completed.stdout.index("{"):])
        results[f"{pattern} {block}"] = report["jobs"][0][pattern]["bw_bytes"] / MB
    for name in os.listdir(directory):
        if name.startswith("seq-"):
            os.unlink(os.path.join(directory, name))
    return results


def fio_directory(backend: str, config: str, work: str) -> str | None:
    """Where fio runs for a backend: a directory under its mount (None for staged stores)."""
    if backend == REFERENCE:
        directory = os.path.join(work, "fio")
    else:
        adapter = _store_for(backend, config)
        if adapter is None:
            return None
        try:
            if adapter.mount_path is None:
                return None
            directory = adapter.local_path(f"bench-{backend}/fio")
        finally:
            adapter.close()
    os.makedirs(directory, exist_ok=True)
    return directory


def print_fio(results: dict[str, dict[str, float]]) -> None:
    kinds = [f"{pattern} {block}" for pattern, block in FIO_JOBS]
    print(f"\n{'fio':<12}" + "".join(f"{kind:>12}" for kind in kinds))
    reference = results.get(REFERENCE)
    for backend, rates in results.items():
        print(f"{backend:<12}" + "".join(
            f"{rates[kind]:>7.0f} MB/s" if backend == REFERENCE or reference is None
            else f"{rates[kind]:>6.0f} {rates[kind] / reference[kind]:4.2f}x" for kind in kinds))
    print("(sequential, --tasks jobs, psync; writes end with fsync; ratios to local disk)")


def make_sources(work: str, sizes: list[int], tasks: int) -> None:
    """K distinct files of random bytes per size on local disk, and the empty file the create
    rounds make copies of."""
    directory = os.path.join(work, "sources")
    os.makedirs(directory, exist_ok=True)
    open(os.path.join(directory, "empty"), "wb").close()
    for size in sizes:
        for index in range(tasks):
            with open(os.path.join(directory, f"{size}MB-{index}"), "wb") as handle:
                for _ in range(size):
                    handle.write(os.urandom(MB))


@contextmanager
def services_for(backends: list[str], state_dir: str) -> Iterator[dict[str, float]]:
    """Start the servers the backends need (yielding how many seconds each took to start);
    stop them in reverse order afterwards."""
    started: list[str] = []
    start_seconds: dict[str, float] = {}
    try:
        for backend in backends:
            for service in BACKEND_SERVICES[backend]:
                if service not in started:
                    begin = time.perf_counter()
                    start_service(service, state_dir, **SERVICE_OPTIONS.get(service, {}))
                    start_seconds[service] = time.perf_counter() - begin
                    started.append(service)
        yield start_seconds
    finally:
        for service in reversed(started):
            stop_service(service, state_dir)
        if "chirp" in started:
            chirp_service.purge(state_dir)


def plot(results: dict[str, dict[str, dict[int, float]]], sizes: list[int], tasks: int, out: str) -> list[str]:
    """One PNG per pattern: MB/s against file size, one line per backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import ticker

    paths = []
    for pattern in PATTERNS:
        figure, axes = plt.subplots(figsize=(6, 4))
        for backend, by_pattern in results.items():
            style = "--" if backend == REFERENCE else "-"
            axes.plot(sizes, [by_pattern[pattern][size] for size in sizes], style, marker="o", label=backend)
        axes.set_xscale("log")
        axes.set_yscale("log")
        axes.yaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        axes.yaxis.set_major_formatter(ticker.ScalarFormatter())
        axes.yaxis.set_minor_formatter(ticker.NullFormatter())
        axes.set_xticks(sizes, [str(size) for size in sizes])
        axes.set_xlabel("file size per task (MB)")
        axes.set_ylabel("aggregate throughput (MB/s)")
        axes.set_title(f"{pattern.replace('_', '-')}: {tasks} concurrent tasks")
        axes.grid(True, alpha=0.3)
        axes.legend()
        figure.tight_layout()
        path = os.path.join(out, f"{pattern}.png")
        figure.savefig(path, dpi=100)
        plt.close(figure)
        paths.append(path)
    return paths


def pooled(compared: dict[str, Compared], field: str) -> dict[str, dict[int, float]]:
    """The reference's figure `field` over every backend it was measured beside: the median."""
    first = next(iter(compared.values()))
    return {pattern: {size: statistics.median(getattr(one, field)[pattern][size] for one in compared.values())
                      for size in by_size} for pattern, by_size in getattr(first, field).items()}


def print_table(compared: dict[str, Compared], sizes: list[int]) -> None:
    """MB/s of every backend and of the reference beside it; the paired ratios; other comparisons."""
    header = f"{'backend':<22} {'pattern':<17}" + "".join(f"{f'{size} MB':>10}" for size in sizes)

    def rows(label: str, figures: dict[str, dict[int, float]], form: str) -> None:
        for pattern in PATTERNS:
            print(f"{label:<22} {pattern:<17}" + "".join(format(figures[pattern][size], form) for size in sizes))

    print(header)
    print("-" * len(header))
    for backend, figures in compared.items():
        rows(backend, figures.mb_per_s, ">10.1f")
        rows(f"  {REFERENCE} beside it", figures.reference_mb_per_s, ">10.1f")
    print("(MB/s, aggregate over all tasks; medians)\n")
    print(f"ratio to {REFERENCE}, median of the paired runs (the two alternate run by run)")
    for backend, figures in compared.items():
        rows(backend, figures.ratio, ">9.2f")
    for backend, other in COMPARISONS:
        if backend in compared and other in compared:
            print(f"{backend} / {other} (measured apart): " + ", ".join(
                f"{pattern} {size} MB "
                f"{compared[backend].mb_per_s[pattern][size] / compared[other].mb_per_s[pattern][size]:.2f}x"
                for pattern in PATTERNS for size in sizes))


def print_costs(compared: dict[str, Compared], reference_cpu: dict[str, dict[int, float]],
                reference_creates: float, size: int, tasks: int, files: int) -> None:
    """The client's and the servers' CPU per GB moved at the largest size, and the create rate,
    per backend and for the reference (its medians beside every backend)."""
    print(f"\n{'backend':<14}" + "".join(f"{pattern:>20}" for pattern in PATTERNS) + f"{'creates/s':>11}")
    print(f"{REFERENCE:<14}" + "".join(f"{reference_cpu[pattern][size]:>12.2f} /     -" for pattern in PATTERNS)
          + f"{reference_creates:>11.0f}")
    for backend, one in compared.items():
        print(f"{backend:<14}" + "".join(
            f"{one.cpu_s_per_gb[pattern][size]:>12.2f} / {one.server_cpu_s_per_gb[pattern][size]:>5.2f}"
            for pattern in PATTERNS) + f"{one.creates_per_s:>11.0f}")
    print(f"(CPU seconds per GB moved at {size} MB, client / servers: the tasks' processes plus the store's "
          f"FUSE client, then the store's servers; creates/s: {files} empty files made by {tasks} tasks; "
          f"{REFERENCE}: the median beside every backend)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,10,100", help="file sizes in MB, comma separated (default 1,10,100)")
    parser.add_argument("--large", action="store_true", help="also measure 500 MB files")
    parser.add_argument("--tasks", type=int, default=4, help="concurrent tasks K (default 4)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the median is kept (default 3)")
    parser.add_argument("--creates", type=int, default=1000,
                        help="empty files made per create measurement, split over the tasks (default 1000)")
    parser.add_argument("--backends", default="local,s3,scp,s3fs,mosastore,chirp,chirp-shared,hdfs,hdfs-shared",
                        help=f"backends to measure, of {', '.join(BACKEND_SERVICES)}")
    parser.add_argument("--fio", type=int, metavar="MB", default=0,
                        help="also run fio on local disk and every mount, MB per job (default: no fio)")
    parser.add_argument("--out", default="io_patterns", help="directory for the JSON results and plots")
    parser.add_argument("--work", default=None,
                        help="local-disk directory for sources and copies (default: a temp dir)")
    args = parser.parse_args(argv)
    sizes = sorted({int(size) for size in args.sizes.split(",")} | ({500} if args.large else set()))
    backends = [backend.strip() for backend in args.backends.split(",") if backend.strip()]
    unknown = [backend for backend in backends if backend not in BACKEND_SERVICES]
    if unknown:
        parser.error(f"unknown backend(s): {', '.join(unknown)}")
    if not backends:
        parser.error("--backends: name at least one backend (local disk is measured beside each)")
    os.makedirs(args.out, exist_ok=True)
    if args.work:
        os.makedirs(args.work, exist_ok=True)
    work = tempfile.mkdtemp(prefix="io-patterns-", dir=args.work)
    state_dir = os.path.join(work, "services")
    # Workers open their stores in try-it mode from this state directory.
    os.environ["SWIFTCLOUD_STATE_DIR"] = state_dir
    os.environ["SWIFTCLOUD_STORE"] = os.path.join(work, "local-store")
    with open(os.path.join(work, "swiftcloud.toml"), "w") as handle:
        handle.write(CONFIG)
    try:
        make_sources(work, sizes, args.tasks)
        compared: dict[str, Compared] = {}
        with services_for(backends, state_dir) as start_seconds:
            print("service start: " + ", ".join(f"{name} {seconds:.1f} s"
                                                for name, seconds in start_seconds.items()))
            for backend in backends:
                print(f"measuring {backend}, and {REFERENCE} beside it ...", flush=True)
                compared[backend] = compare(backend, sizes, args.tasks, args.repeat, work, args.creates)
            fio: dict[str, dict[str, float]] = {}
            for backend in [REFERENCE, *backends] if args.fio else []:
                directory = fio_directory(backend, os.path.join(work, "swiftcloud.toml"), work)
                if directory is not None:
                    print(f"fio on {backend} ...", flush=True)
                    fio[backend] = run_fio(directory, args.tasks, args.fio)
        reference_cpu = pooled(compared, "reference_cpu_s_per_gb")
        reference_creates = statistics.median(one.reference_creates_per_s for one in compared.values())
        print_table(compared, sizes)
        print_costs(compared, reference_cpu, reference_creates, sizes[-1], args.tasks, args.creates)
        if fio:
            print_fio(fio)
        results = {REFERENCE: pooled(compared, "reference_mb_per_s"),
                   **{backend: one.mb_per_s for backend, one in compared.items()}}
        with open(os.path.join(args.out, "io_patterns.json"), "w") as handle:
            json.dump({"tasks": args.tasks, "sizes_mb": sizes, "repeat": args.repeat, "mb_per_s": results,
                       "local_disk_beside": {backend: one.reference_mb_per_s for backend, one in compared.items()},
                       "ratio_to_local_disk": {backend: one.ratio for backend, one in compared.items()},
                       "client_cpu_s_per_gb": {REFERENCE: reference_cpu,
                                               **{backend: one.cpu_s_per_gb for backend, one in compared.items()}},
                       "server_cpu_s_per_gb": {backend: one.server_cpu_s_per_gb for backend, one in compared.items()},
                       "creates_per_s": {REFERENCE: reference_creates,
                                         **{backend: one.creates_per_s for backend, one in compared.items()}},
                       "creates": args.creates, "fio_mb_per_s": fio,
                       "service_start_seconds": start_seconds}, handle, indent=2)
        for path in plot(results, sizes, args.tasks, args.out):
            print(f"wrote {path}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
