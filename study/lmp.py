"""The power-grid workflow's makespan vs node count per store (Fig 13), in skeleton mode.

For each store and node count k, repeated runs of `swiftcloud run --cluster -n k+1 --storage S
apps/lmps/lmps.swift --chunk=1 --skeleton=DURATIONS` (one engine rank and one worker on
each of nodes 1..k, so past the home region's nodes the workers sit in remote regions),
each with its own run directory and its own output directory in the store. The points'
repeats are interleaved round-robin across stores and node counts, each inside a
CpuWatch, and each point's makespans are kept as a measure (study/stats.py). Skeleton
mode: every task reads its real inputs through the store, sleeps its measured computation
time, then writes its output of the real size, since two cores cannot compute for 16
nodes; the durations come from a real hourly run made first on this machine (or a
durations file given). The run log gives the makespan (first task start to last task end)
and the node of every worker, checked against the k nodes asked for.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

from cluster import lifecycle
from cluster.cpuwatch import CpuWatch
from cluster.launch import without_node_names
from cluster.regions import Region
from cluster.state import ClusterState
from cluster.stores import with_daemons
from engine.errors import UsageError
from engine.observe.runlog import read_events
from hostkit.errors import EXIT_COMPILE, EXIT_OK, EXIT_RUNTIME, StorageError
from hostkit.interrupt import terminate_as_interrupt
from hostkit.program import importable, swiftcloud_command
from mosastore.plugin import register as register_mosastore
from study.repeats import headroom, measure_from, round_robin
from study.stores import study_stores

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKFLOW = os.path.join(PROJECT_ROOT, "apps", "lmps", "lmps.swift")
FIGURE = "fig13_lmp_makespan.png"
# The study's cluster: a home zone of 8 nodes (the services run there), 4 nodes one
# continent away and 4 across an ocean (round trips as in docs/cluster.md "Regions").
STUDY_REGIONS = (
    Region("zone-a", nodes=8, node_mbit=400, rtt_ms=0),
    Region("region-b", nodes=4, node_mbit=400, rtt_ms=60, wan_mbit=200),
    Region("continent-c", nodes=4, node_mbit=400, rtt_ms=150, wan_mbit=100),
)
Say = Callable[[str], None]


@dataclass(frozen=True)
class LmpOptions:
    """Sizes of the sweep: hours (one task each), worker node counts, the recording run."""

    size: str
    hours: int
    node_counts: tuple[int, ...]  # counts beyond the cluster's size are left out
    start: int = 4800  # first hour: a summer window, congested and uncongested hours
    record_hours: int = 0  # hours of the real run recording the durations (0: as many as `hours`)
    durations: str | None = None  # a durations file to use instead of recording
    repeats: int = 3  # of every point
    top_repeats: int = 5  # of the points at the largest node count (the MosaStore-vs-S3 claim's)
    stores: tuple[str, ...] | None = None  # the stores swept of those asked for (None: all of them)

    @classmethod
    def quick(cls) -> LmpOptions:
        # A look at the set-up within --quick's 12 minutes: both sides of the home region, once.
        return cls("quick", hours=24, node_counts=(1, 9), repeats=1, top_repeats=1, stores=("local", "s3", "mosastore"))

    @classmethod
    def small(cls) -> LmpOptions:
        # 320 hours: 20 tasks per worker at 16 nodes, so a knee can show past the home region's
        # 8; 12 nodes and the stores the claims do not compare (s3fs, hdfs, chirp) are --full's,
        # to keep the part near 14 minutes on a 2-core VM. Two days of real solves are recorded
        # and reused in turn.
        return cls("small", hours=320, node_counts=(4, 8, 16), record_hours=48, stores=("local", "s3", "mosastore"))

    @classmethod
    def full(cls) -> LmpOptions:
        # The durations of a week of real hourly solves, reused in turn over the year: a real
        # year first would add about 15 minutes of compute that the sweep then only sleeps.
        return cls("full", hours=8760, start=0, node_counts=tuple(range(1, 17)), record_hours=168)


def _measured_command(argv: list[str], cwd: str, env: dict[str, str], log_path: str) -> tuple[int, float, float, str]:
    """Run `argv`; its exit status, wall seconds, CPU seconds of it and its reaped descendants,
    and its stderr's last lines. The whole output goes to `log_path`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    begin = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - begin
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    with open(log_path, "w", encoding="utf-8") as log:
        log.write(f"$ {' '.join(argv)}\n{done.stdout}{done.stderr}")
    tail = "\n".join(done.stderr.strip().splitlines()[-6:])
    return done.returncode, wall, cpu, tail


def _environment(state_dir: str | None) -> dict[str, str]:
    env = importable(without_node_names(os.environ))
    if state_dir is not None:
        env["SWIFTCLOUD_STATE_DIR"] = state_dir
    return env


def record_durations(options: LmpOptions, out_dir: str, say: Say) -> str:
    """Run the real workflow hourly on this machine (-n 3) and write its durations file."""
    from apps.lmps.durations import extract

    hours = options.record_hours or options.hours
    work = os.path.join(out_dir, "record")
    os.makedirs(work, exist_ok=True)
    say(f"recording durations: a real run of {hours} hourly tasks here (-n 3)")
    argv = swiftcloud_command("run", "-n", "3", "--run-dir", "run", "--no-restart-log", WORKFLOW,
                              "--chunk=1", f"--hours={hours}", f"--start={options.start}", "--out=out")
    status, wall, _, tail = _measured_command(argv, work, _environment(None), os.path.join(work, "run.log"))
    if status != 0:
        raise RuntimeError(f"the recording run failed (exit {status}):\n{tail}")
    document = extract(os.path.join(work, "run"), work)
    document["recorded_on"] = "this machine, -n 3 (2 workers), real solves"
    path = os.path.join(out_dir, "durations.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1)
    say(f"  recorded {document['recorded_tasks']} tasks in {wall:.1f} s: mean {document['seconds_mean']:.3f} s per"
        f" task, {document['seconds_total']:.1f} s in all")
    return path


def run_figures(run_dir: str) -> dict[str, Any]:
    """Makespans and worker placement of one run, from its log."""
    events = read_events(run_dir)
    starts = {event["task"]: event for event in events if event.get("event") == "start"}
    ends = [event for event in events if event.get("event") == "end" and event["task"] in starts]
    if not ends:
        raise RuntimeError(f"{run_dir}: the run log holds no finished task")
    solves = [end for end in ends if end.get("label") == "skeleton_solve"]
    first = min(starts[end["task"]]["time"] for end in ends)
    figures: dict[str, Any] = {
        "tasks": len(ends), "failed": sum(end.get("status") != "ok" for end in ends),
        "makespan_s": round(max(end["time"] for end in ends) - first, 3),
        "solve_tasks": len(solves),
        # the nodes of every worker that ran a task, and of every batch sent (a worker may get no task)
        "worker_nodes": sorted({end["node"] for end in ends} |
                               {event["node"] for event in events if event.get("event") == "dispatch"}),
    }
    if solves:
        figures["solve_span_s"] = round(max(end["time"] for end in solves) -
                                        min(starts[end["task"]]["time"] for end in solves), 3)
        figures["solve_task_mean_s"] = round(sum(end["time"] - starts[end["task"]]["time"] for end in solves) /
                                             len(solves), 4)
    return figures


def sweep_point(cluster: ClusterState, store: str, k: int, repeat: int, options: LmpOptions, durations: str,
                out_dir: str, stamp: str, say: Say) -> dict[str, Any]:
    """One run of the sweep, inside a CpuWatch: store `store`, workers on nodes 1..k."""
    tag = f"{store}-k{k:02d}-r{repeat}"
    run_dir = os.path.join(out_dir, "runs", tag)
    work = os.path.join(out_dir, "work")  # the runs' directory: a `local` store's files land here
    os.makedirs(work, exist_ok=True)
    argv = swiftcloud_command("run", "--cluster", "-n", str(k + 1), "--storage", store,
                              "--run-dir", run_dir, "--no-restart-log", WORKFLOW, "--chunk=1", f"--hours={options.hours}",
                              f"--start={options.start}", f"--skeleton={durations}", f"--out=study-lmp/{stamp}/{tag}")
    expected = [node.name for node in cluster.nodes[:k]]
    regions = {node.name: node.region for node in cluster.nodes}
    point: dict[str, Any] = {"store": store, "nodes": k, "repeat": repeat, "ranks": k + 1,
                             "run_dir": os.path.relpath(run_dir, out_dir), "expected_nodes": expected,
                             "regions": sorted({regions[name] for name in expected})}
    with CpuWatch(cluster) as watch:
        status, wall, cpu, tail = _measured_command(argv, work, _environment(os.path.dirname(cluster.directory)),
                                                    os.path.join(out_dir, "runs", f"{tag}.log"))
    assert watch.window is not None  # set by __exit__
    point.update(wall_s=round(wall, 3), cpu_s=round(cpu, 2), cpu=watch.window.as_dict())
    if status != 0:
        point.update(error=f"exit {status}: {tail}", makespan_s=None)
        say(f"  {tag}: FAILED (exit {status}) after {wall:.1f} s: {tail.splitlines()[-1] if tail else ''}")
        return point
    point.update(run_figures(run_dir))
    point["placement_ok"] = point["worker_nodes"] == sorted(expected)
    say(f"  {tag}: makespan {point['makespan_s']:.1f} s (command {wall:.1f} s, CPU {cpu:.1f} s, host"
        f" {watch.window.host_busy:.0%} busy), workers on {len(point['worker_nodes'])} nodes"
        f" ({', '.join(point['regions'])})" + ("" if point["placement_ok"] else f" -- expected {', '.join(expected)}"))
    return point


def region_bounds(cluster: ClusterState) -> list[dict[str, Any]]:
    """Where each region's nodes begin: the first node count that reaches into it."""
    bounds, first = [], 1
    for region in cluster.regions:
        count = sum(node.region == region["name"] for node in cluster.nodes)
        bounds.append({"name": region["name"], "first_node": first, "rtt_ms": region["rtt_ms"]})
        first += count
    return bounds


def home_efficiency(points: list[dict[str, Any]], store: str, home: int) -> tuple[int, int, float] | None:
    """Parallel efficiency of `store` inside the home region: from its smallest to its largest
    measured node count there, (k1, k2, k1 T1 / (k2 T2)) over the medians; None with fewer than two."""
    inside = sorted((p["nodes"], p["median"]) for p in points
                    if p["store"] == store and p["nodes"] <= home and p["median"] is not None)
    if len(inside) < 2:
        return None
    (k1, t1), (k2, t2) = inside[0], inside[-1]
    return k1, k2, (k1 * t1) / (k2 * t2)


def draw(results: dict[str, Any], path: str) -> str:
    """Median makespan per store and node count with its 95% interval; every repeat taken on a
    saturated host as a hollow marker (left out of the median)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 5))
    for index, store in enumerate(results["stores"]):
        color = f"C{index}"
        curve = sorted((p["nodes"], p["median"], p["ci95"]) for p in results["points"]
                       if p["store"] == store and p["median"] is not None)
        if curve:
            below = [median - ci[0] if ci else 0.0 for _, median, ci in curve]
            above = [ci[1] - median if ci else 0.0 for _, median, ci in curve]
            axes.errorbar([k for k, _, _ in curve], [m for _, m, _ in curve], yerr=[below, above], marker="o",
                          capsize=3, color=color, label=store)
        hollow = [(p["nodes"], value) for p in results["points"] if p["store"] == store
                  for value, saturated in zip(p["samples"], p["saturated"]) if saturated]
        if hollow:  # drawn even where no repeat was usable: the reader sees what was measured
            axes.scatter(*zip(*hollow), facecolors="none", edgecolors=color, zorder=3,
                         label=None if curve else f"{store} (every repeat saturated)")
    for bound in results["regions"][1:]:
        axes.axvline(bound["first_node"] - 0.5, color="grey", linestyle="--", linewidth=1)
        axes.text(bound["first_node"] - 0.4, 0.98, f"{bound['name']} ({bound['rtt_ms']:g} ms)",
                  transform=axes.get_xaxis_transform(), rotation=90, va="top", fontsize="small", color="grey")
    axes.set_xticks(results["node_counts"])
    axes.set_xlabel("worker nodes (one worker each)")
    axes.set_ylabel("makespan (s)")
    axes.set_ylim(bottom=0)
    efficiency = home_efficiency(results["points"], "local", results["home_nodes"])
    line = (f"; local's parallel efficiency {efficiency[0]} to {efficiency[1]} nodes: {efficiency[2]:.0%}"
            if efficiency else "")
    axes.set_title(f"LMP workflow, {results['tasks']} hourly tasks: makespan vs nodes (median, 95% interval;"
                   f" hollow: saturated host)\nskeleton mode: compute replaced by measured sleeps"
                   f" ({results['recorded_hours']} real hours recorded){line}", fontsize="small")
    axes.grid(alpha=0.3)
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def run(cluster: ClusterState, stores: list[str], options: LmpOptions, out_dir: str, say: Say) -> dict[str, Any]:
    """The sweep over `stores` and node counts on `cluster`, repeats interleaved; lmp.json and
    the figure into out_dir."""
    begin = time.perf_counter()
    left_out = [store for store in stores if options.stores is not None and store not in options.stores]
    stores = [store for store in stores if store not in left_out]
    if left_out:
        say(f"LMP sweep: {', '.join(left_out)} left to a larger size (--full sweeps every store)")
    if not stores:
        raise UsageError(f"the LMP sweep of this size compares {', '.join(options.stores or ())}: none was asked for")
    os.makedirs(os.path.join(out_dir, "runs"), exist_ok=True)
    durations = os.path.abspath(options.durations) if options.durations else record_durations(options, out_dir, say)
    with open(durations, encoding="utf-8") as handle:
        recorded = json.load(handle)
    counts = [k for k in options.node_counts if 1 <= k <= len(cluster.nodes)]
    if not counts:
        raise UsageError(f"no node count of {list(options.node_counts)} fits the cluster's {len(cluster.nodes)} nodes")
    stamp = time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}"
    home = sum(n.region == cluster.nodes[0].region for n in cluster.nodes)
    results: dict[str, Any] = {
        "mode": "skeleton", "size": options.size, "options": asdict(options), "hours": options.hours,
        "tasks": options.hours, "node_counts": counts, "stores": stores, "stores_left_out": left_out, "durations_file": durations,
        "recorded_hours": recorded["recorded_hours"], "recorded_task_mean_s": recorded["seconds_mean"],
        "recorded_compute_mean_s": recorded.get("compute_mean"),
        "durations_reuse": recorded["reuse"] if options.hours > recorded["recorded_hours"] else "none",
        "regions": region_bounds(cluster), "home_nodes": home,
        "makespan": "first task start to last task end, from the run log (wall_s: the whole command)",
        "load_average_at_start": os.getloadavg(), "points": []}
    keys = [(store, k) for k in counts for store in stores]
    repeats = {key: options.top_repeats if key[1] == max(counts) else options.repeats for key in keys}
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {key: [] for key in keys}
    say(f"LMP skeleton, {options.hours} hourly tasks on {', '.join(stores)}: nodes {', '.join(map(str, counts))},"
        f" {options.repeats} repeats ({options.top_repeats} at {max(counts)} nodes), interleaved")
    for repeat, (store, k) in round_robin(keys, repeats.__getitem__):
        runs[(store, k)].append(sweep_point(cluster, store, k, repeat + 1, options, durations, out_dir, stamp, say))
        results["points"] = points_of(runs)
        _save(results, out_dir)
    results["headroom"] = headroom({store: [p for p in results["points"] if p["store"] == store] for store in stores})
    results["figures"] = [os.path.relpath(draw(results, os.path.join(out_dir, FIGURE)), out_dir)]
    results["sweep_s"] = round(time.perf_counter() - begin, 1)
    _save(results, out_dir)
    return results


def points_of(runs: dict[tuple[str, int], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One point per store and node count measured so far: the measure of its makespans, its runs."""
    return [{"store": store, "nodes": k, **measure_from(done, lambda run: run.get("makespan_s")), "runs": done}
            for (store, k), done in runs.items() if done]


def _save(results: dict[str, Any], out_dir: str) -> None:
    path = os.path.join(out_dir, "lmp.json")
    with open(path + ".part", "w", encoding="utf-8") as handle:
        json.dump(results, handle, indent=1)
    os.replace(path + ".part", path)


def _counts(text: str) -> tuple[int, ...]:
    try:
        counts = tuple(int(word) for word in text.split(",") if word.strip())
    except ValueError:
        counts = ()
    if not counts or min(counts) < 1:
        raise UsageError(f"--nodes: give node counts of 1 or more, e.g. 2,4,8 (not {text!r})")
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m study.lmp", description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=("quick", "small", "full"), default="small", help="default: small")
    parser.add_argument("--stores", default="local,s3", help="stores to compare (default: local,s3)")
    parser.add_argument("--hours", type=int, help="hourly tasks per run (default: the size's)")
    parser.add_argument("--nodes", help="worker node counts, e.g. 2,4,8 (default: the size's)")
    parser.add_argument("--durations", help="durations file to use (default: record them with a real run first)")
    parser.add_argument("--record-hours", type=int, default=0,
                        help="hours of the recording run (default: as many as --hours; more hours reuse them"
                             " in a cycle)")
    parser.add_argument("--out", default="study-lmp", help="results directory (default: study-lmp)")
    parser.add_argument("--state-dir", default="/tmp/swiftcloud-study-lmp",
                        help="state directory of the cluster this brings up and takes down")
    args = parser.parse_args(argv)
    say: Say = lambda line: print(f"lmp: {line}", file=sys.stderr, flush=True)  # noqa: E731
    register_mosastore()  # the stores are opened by name, mosastore's too
    with terminate_as_interrupt():
        try:
            options = getattr(LmpOptions, args.size)()
            options = replace(options, hours=args.hours or options.hours,
                              node_counts=_counts(args.nodes) if args.nodes else options.node_counts,
                              durations=args.durations, record_hours=args.record_hours or options.record_hours,
                              stores=None)  # the stores asked for, all of them
            stores, known = [name for name in args.stores.split(",") if name], study_stores()
            if not stores or set(stores) - set(known):
                raise UsageError(f"--stores: choose from {', '.join(known)}")
            if options.hours < 1 or options.record_hours < 0:
                raise UsageError("--hours must be at least 1 and --record-hours not negative")
            if os.geteuid() != 0:
                raise UsageError("the emulated cluster needs root (network namespaces, bridges and tc)")
            nodes = max(options.node_counts)
            os.makedirs(args.out, exist_ok=True)
            say(f"bringing up {nodes} nodes with {', '.join(with_daemons(stores)) or 'no daemons'}")
            cluster = lifecycle.up(args.state_dir, nodes, STUDY_REGIONS, with_daemons(stores), say)
            try:
                results = run(cluster, stores, options, os.path.abspath(args.out), say)
            finally:
                say("taking the cluster down")
                lifecycle.down(args.state_dir, say)
        except UsageError as error:
            print(f"lmp: {error}", file=sys.stderr)
            return EXIT_COMPILE  # 2: the project's exit status for usage errors
        except KeyboardInterrupt:
            print("lmp: interrupted (the cluster was taken down)", file=sys.stderr)
            return EXIT_RUNTIME
        except (RuntimeError, OSError, ValueError, StorageError) as error:
            print(f"lmp: {error}", file=sys.stderr)
            return EXIT_RUNTIME
    say(f"done in {results['sweep_s']:.0f} s: {os.path.join(args.out, 'lmp.json')}, {results['figures'][0]}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
