"""The study's workflow figures: BLAST and EnergyPlus on every store (Figs 8/9/11/12), staged vs
shared execution of the same workflow, and stream vs copy staging.

Each run is a real `swiftcloud run --cluster` over the home region's nodes (one worker per
node), with its own run directory and its own output directory in the store, so no run
reuses another's files. Every workflow on every store, and BLAST on the staging mode of the
stores that have both (HDFS, Chirp; S3 staged against S3 through s3fs), is repeated, the
repeats interleaved round-robin, each inside a CpuWatch; each makespan is kept as a measure
(study/stats.py). Per workflow it draws the cumulative completion of each store's median
run in one plot, that run's worker trace (execution and the worker's coordination wait
between tasks, the study's Figs 9/12) and per-task queueing, and the makespans; the staged
vs shared bars carry the medians' 95% intervals. The stream workflow (`stream.swift`) runs
once on S3 with copy and with stream staging.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

from cluster.cpuwatch import CpuWatch
from cluster.launch import runs_environment
from cluster.state import ClusterState
from hostkit.program import swiftcloud_command
from study.plots import completion_overlay, grouped_bars, queueing, worker_trace
from study.repeats import headroom, measure_from, median_index, round_robin
from study.runs import RunResult, run_summary

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STREAM_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stream.swift")

# The name of each store's table in the study's settings file, per execution mode. The study's
# rows use each store as it was used there: S3 staged, every other store through its mount.
SHARED_TABLES = {"local": "study-local", "s3": "s3", "s3fs": "s3fs", "mosastore": "mosastore",
                 "hdfs": "hdfs-shared", "chirp": "chirp-shared"}
# Staged vs shared: the same store used both ways, as (store staged by its backend's default
# mode, the store whose mount shares it): S3 against its s3fs mount, HDFS and Chirp each
# against their own mount.
STAGED_VS_SHARED = (("s3", "s3fs"), ("hdfs", "hdfs"), ("chirp", "chirp"))


def settings_file(directory: str) -> str:
    """Write the study's swiftcloud.toml: the tables the runs name (stores' endpoints come from
    the cluster's records)."""
    path = os.path.join(directory, "swiftcloud.toml")
    local_root = os.path.join(directory, "local-store")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(f'[storage.study-local]\nbackend = "local"\npath = "{local_root}"\n\n'
                     '[storage.hdfs-shared]\nbackend = "hdfs"\nmode = "shared"\n\n'
                     '[storage.chirp-shared]\nbackend = "chirp"\nmode = "shared"\n\n'
                     '[storage.s3-stream]\nbackend = "s3"\nstaging = "stream"\n')
    return path


@dataclass(frozen=True)
class WorkflowOptions:
    """Sizes of the workflow runs."""

    workers: int  # one per home-region node
    blast_fragments: int  # tasks = 2 x fragments + 2
    energyplus_orientations: int
    energyplus_heights: int
    energyplus_period: str  # "annual" or "short"
    stream_tasks: int
    stream_mb: int
    repeats: int  # of every workflow on every store, interleaved
    energyplus_stores: tuple[str, ...] | None = None  # None: every store of the study

    def stores_for(self, workflow: str, stores: list[str]) -> list[str]:
        """The study's stores that `workflow` runs on."""
        if workflow == "energyplus" and self.energyplus_stores is not None:
            return [store for store in stores if store in self.energyplus_stores]
        return list(stores)

    @classmethod
    def quick(cls) -> WorkflowOptions:
        return cls(workers=2, blast_fragments=4, energyplus_orientations=1, energyplus_heights=1,
                   energyplus_period="short", stream_tasks=2, stream_mb=2, repeats=1)

    @classmethod
    def small(cls) -> WorkflowOptions:
        # Tasks cut per run, not repeats: 5 repeats of each run fit the budget only at a few seconds
        # of makespan each (docs/study.md says which store wins at 100 fragments). Fewer tasks save
        # little more: a run's fixed costs (start-up, a store's per-file costs) dominate, so the
        # EnergyPlus sweep runs on the stores its claim compares (MosaStore vs S3) and the local
        # reference; s3fs, HDFS and Chirp are --full's (their 15 runs took 4 of the 14 minutes).
        return cls(workers=8, blast_fragments=12, energyplus_orientations=2, energyplus_heights=3,
                   energyplus_period="short", stream_tasks=8, stream_mb=20, repeats=5,
                   energyplus_stores=("local", "s3", "mosastore"))

    @classmethod
    def full(cls) -> WorkflowOptions:
        return cls(workers=8, blast_fragments=300, energyplus_orientations=10, energyplus_heights=21,
                   energyplus_period="annual", stream_tasks=16, stream_mb=200, repeats=5)

    def energyplus_tasks(self) -> int:
        return 2 * self.energyplus_orientations * self.energyplus_heights + 1


@dataclass(frozen=True)
class Workflow:
    """A workflow the study runs on every store."""

    name: str
    title: str
    script: str
    args: Callable[[WorkflowOptions], list[str]]


WORKFLOWS = (
    Workflow("blast", "parallel BLAST", "apps/blast/blast.swift",
             lambda o: [f"--fragments={o.blast_fragments}"]),
    Workflow("energyplus", "EnergyPlus sweep", "apps/energyplus/energyplus.swift",
             lambda o: [f"--orientations={o.energyplus_orientations}", f"--heights={o.energyplus_heights}",
                        f"--period={o.energyplus_period}"]),
)


class StudyRunner:
    """Runs workflows on the cluster into one results directory."""

    def __init__(self, cluster: ClusterState | None, state_dir: str, out_dir: str, options: WorkflowOptions,
                 say: Callable[[str], None]) -> None:
        self.cluster = cluster
        self.out_dir = out_dir
        self.options = options
        self.say = say
        self.env = runs_environment(state_dir)
        self.config = settings_file(out_dir)

    def run(self, tag: str, script: str, table: str, args: list[str]) -> RunResult:
        """One workflow run; a failure is recorded with its stderr tail, not raised."""
        run_dir = os.path.join(self.out_dir, "runs", tag)
        shutil.rmtree(run_dir, ignore_errors=True)
        argv = swiftcloud_command("run", "--cluster", "-n", str(self.options.workers + 1),
                                  "--storage", table, "--config", self.config, "--run-dir", run_dir,
                                  "--no-restart-log", script, *args, f"--out=study/{tag}")
        begin = time.perf_counter()
        done = subprocess.run(argv, cwd=PROJECT_ROOT, env=self.env, capture_output=True, text=True)
        wall = time.perf_counter() - begin
        with open(os.path.join(self.out_dir, "runs", f"{tag}.log"), "w", encoding="utf-8") as log:
            log.write(f"$ {' '.join(argv)}\n{done.stdout}{done.stderr}")
        if done.returncode != 0:
            tail = "\n".join(done.stderr.strip().splitlines()[-8:])
            self.say(f"  {tag}: FAILED (exit {done.returncode}) after {wall:.1f} s:\n{tail}")
            return RunResult(tag, run_dir, wall, error=f"exit {done.returncode}: {tail}")
        result = run_summary(tag, run_dir, wall)
        if result.error is None:
            self.say(f"  {tag}: {result.summary['tasks']} tasks, makespan {result.summary['makespan_s']:.1f} s"
                     f" (command {wall:.1f} s)")
        return result

    def measured(self, tag: str, script: str, table: str, args: list[str], repeat: int) -> dict[str, Any]:
        """One run inside a CpuWatch: its record with the repeat's number and CPU headroom."""
        with CpuWatch(self.cluster) as watch:
            result = self.run(tag, script, table, args)
        assert watch.window is not None  # set by __exit__
        record = result.as_dict()
        record.update(repeat=repeat, cpu=watch.window.as_dict())
        if watch.window.saturated:
            self.say(f"  {tag}: the host was saturated ({watch.window.host_busy:.0%} busy): left out of the median")
        return record


def makespan(record: dict[str, Any]) -> float | None:
    """A run record's makespan; None for a failed run."""
    return record["summary"]["makespan_s"] if record["error"] is None else None


def representative(record: dict[str, Any]) -> dict[str, Any] | None:
    """The finished run at the median makespan of a measured store's runs (None if none finished)."""
    finished = [run for run in record["runs"] if run["error"] is None]
    if not finished:
        return None
    return finished[median_index([run["summary"]["makespan_s"] for run in finished])]


Job = tuple[str, str, str]  # (workflow, store, "shared" or "staged")


def jobs(stores: list[str], options: WorkflowOptions) -> list[Job]:
    """Every measured configuration: each workflow on its stores as the study used them, then
    BLAST staged on the stores that have a mount to compare with (S3 already stages)."""
    listed: list[Job] = [(workflow.name, store, "shared") for workflow in WORKFLOWS
                         for store in options.stores_for(workflow.name, stores)]
    listed += [("blast", staged, "staged") for staged, shared in STAGED_VS_SHARED
               if staged in stores and shared in stores and SHARED_TABLES[staged] != staged]
    return listed


def measure_all(runner: StudyRunner, stores: list[str], repeats: int) -> dict[Job, list[dict[str, Any]]]:
    """Every job `repeats` times, interleaved: repeat 1 of every job, then repeat 2, ..."""
    by_name = {workflow.name: workflow for workflow in WORKFLOWS}
    runs: dict[Job, list[dict[str, Any]]] = {job: [] for job in jobs(stores, runner.options)}
    for repeat, job in round_robin(list(runs), lambda _: repeats):
        name, store, mode = job
        workflow = by_name[name]
        tag = f"{name}-{store}-r{repeat + 1}" if mode == "shared" else f"{name}-{store}-staged-r{repeat + 1}"
        table = SHARED_TABLES[store] if mode == "shared" else store
        runs[job].append(runner.measured(tag, workflow.script, table, workflow.args(runner.options), repeat + 1))
    return runs


def run(cluster: ClusterState, stores: list[str], options: WorkflowOptions, out_dir: str,
        say: Callable[[str], None], state_dir: str) -> dict[str, Any]:
    """Every workflow on every store and BLAST staged, each repeated (interleaved); stream vs
    copy once; figures into out_dir."""
    home = sum(node.region == cluster.nodes[0].region for node in cluster.nodes)
    options = replace(options, workers=min(options.workers, home))  # workers stay in the home region
    os.makedirs(os.path.join(out_dir, "runs"), exist_ok=True)
    runner = StudyRunner(cluster, state_dir, out_dir, options, say)
    results: dict[str, Any] = {"options": asdict(options), "repeats": options.repeats, "workflows": {},
                               "staged_vs_shared": {}, "staged_runs": {}, "stream_vs_copy": {}}
    figures: list[str] = []
    say(", ".join(f"{w.title} on {len(options.stores_for(w.name, stores))} stores" for w in WORKFLOWS)
        + f", BLAST staged, {options.workers} workers, {options.repeats} repeats interleaved")
    runs = measure_all(runner, stores, options.repeats)
    measures: dict[str, list[dict[str, Any]]] = {store: [] for store in stores}
    for workflow in WORKFLOWS:
        per_store = {}
        for store in options.stores_for(workflow.name, stores):
            per_store[store] = {**measure_from(runs[(workflow.name, store, "shared")], makespan),
                                "runs": runs[(workflow.name, store, "shared")]}
            measures[store].append(per_store[store])
        results["workflows"][workflow.name] = per_store
        figures.extend(workflow_figures(workflow, per_store, options, out_dir))

    for staged_store, shared_store in STAGED_VS_SHARED:
        if staged_store not in stores or shared_store not in stores:
            continue
        if SHARED_TABLES[staged_store] == staged_store:  # the study's row already stages (S3)
            staged = results["workflows"]["blast"][staged_store]
        else:
            staged_runs = runs[("blast", staged_store, "staged")]
            results["staged_runs"][staged_store] = staged_runs
            staged = measure_from(staged_runs, makespan)
            measures[staged_store].append(staged)
        shared = results["workflows"]["blast"][shared_store]
        results["staged_vs_shared"][staged_store] = {"staged": _measure_only(staged), "shared": _measure_only(shared),
                                                     "shared_store": shared_store}
    figure = staged_vs_shared_figure(results["staged_vs_shared"], options, out_dir)
    if figure:
        figures.append(figure)
    results["headroom"] = headroom(measures)

    if "s3" in stores:
        say(f"stream vs copy staging on S3 ({options.stream_tasks} tasks x {options.stream_mb} MB, once)")
        args = [f"--tasks={options.stream_tasks}", f"--mb={options.stream_mb}"]
        modes = {mode: runner.run(f"stream-s3-{mode}", STREAM_SCRIPT, table, args)
                 for mode, table in (("copy", "s3"), ("stream", "s3-stream"))}
        results["stream_vs_copy"] = {mode: result.as_dict(label="digest") for mode, result in modes.items()}
        digests = {mode: result.as_dict(label="digest") for mode, result in modes.items() if result.error is None}
        if len(digests) == 2:
            figures.append(grouped_bars(
                {mode: {"digest phase makespan": d["label_summary"]["makespan_s"],
                        "mean digest task": d["label_summary"]["mean_task_s"]} for mode, d in digests.items()},
                os.path.join(out_dir, "stream_vs_copy.png"),
                f"S3 staging: stream vs copy ({options.stream_tasks} x {options.stream_mb} MB, sha256sum)", "seconds"))
    results["figures"] = [os.path.relpath(path, out_dir) for path in figures if path]
    results["timelines"] = sorted(os.path.relpath(os.path.join(root, "timeline.html"), out_dir)
                                  for root, _, files in os.walk(os.path.join(out_dir, "runs"))
                                  if "timeline.html" in files)
    return results


def _measure_only(record: dict[str, Any]) -> dict[str, Any]:
    """The measure fields of a record that also holds its runs."""
    return {key: value for key, value in record.items() if key != "runs"}


def workflow_figures(workflow: Workflow, per_store: dict[str, dict[str, Any]], options: WorkflowOptions,
                     out_dir: str) -> list[str]:
    """Completion overlay and makespans of each store's median run, and its traces."""
    chosen = {store: run for store, record in per_store.items() if (run := representative(record)) is not None}
    if not chosen:
        return []
    note = f"median of {options.repeats} repeats"
    figures = [completion_overlay([run["run_dir"] for run in chosen.values()], list(chosen), out_dir, workflow.name,
                                  f"{workflow.title}, {options.workers} nodes\n(each store's median run of "
                                  f"{options.repeats})"),
               makespan_figure(workflow, per_store, options, out_dir)]
    for store, record in chosen.items():
        repeat = f"repeat {record['repeat']}, the {note}"
        figures.append(worker_trace(record["run_dir"], os.path.join(out_dir, f"{workflow.name}_trace_{store}.png"),
                                    f"{workflow.title} on {store}: worker coordination wait and execution\n({repeat})"))
        figures.append(queueing(record["run_dir"], os.path.join(out_dir, f"{workflow.name}_queue_{store}.png"),
                                f"{workflow.title} on {store}: per-task queueing and execution ({repeat})"))
    return figures


def makespan_figure(workflow: Workflow, per_store: dict[str, dict[str, Any]], options: WorkflowOptions,
                    out_dir: str) -> str:
    """NAME_makespan.png: each store's median makespan with its 95% interval as error bars; a
    store whose repeats were all saturated shows the median of them all, and says so."""
    groups, intervals = {}, {}
    for store, record in per_store.items():
        if not record["samples"]:
            continue
        label = store if record["median"] is not None else f"{store}\n(all saturated)"
        groups[label] = {"makespan": _drawn(record)}
        intervals[label] = _intervals({"makespan": record})
    return grouped_bars(groups, os.path.join(out_dir, f"{workflow.name}_makespan.png"),
                        f"{workflow.title}, {options.workers} nodes: makespan\n(median of {options.repeats} repeats, "
                        "95% interval)", "makespan (s)", intervals)


def staged_vs_shared_figure(pairs: dict[str, dict[str, Any]], options: WorkflowOptions, out_dir: str) -> str | None:
    """Median makespans staged and shared per store, with their 95% intervals as error bars; a
    store whose repeats were all saturated shows the median of them all, and says so."""
    complete = {store: pair for store, pair in pairs.items() if pair["staged"]["samples"] and pair["shared"]["samples"]}
    if not complete:
        return None
    groups, intervals = {}, {}
    for store, pair in complete.items():
        label = store if pair["shared_store"] == store else f"{store} / {pair['shared_store']}"
        if any(pair[mode]["median"] is None for mode in ("staged", "shared")):
            label += "\n(all saturated)"
        groups[label] = {mode: _drawn(pair[mode]) for mode in ("staged", "shared")}
        intervals[label] = _intervals({mode: pair[mode] for mode in ("staged", "shared")})
    return grouped_bars(groups, os.path.join(out_dir, "staged_vs_shared.png"),
                        f"BLAST: staged vs shared execution (median of {options.repeats} repeats, 95% interval)",
                        "makespan (s)", intervals)


def _drawn(measure: dict[str, Any]) -> float:
    """The height a measure's bar is drawn at: its median, or the median of every repeat when
    all were saturated (it has no median then; the figure's label says so)."""
    return measure["median"] if measure["median"] is not None else statistics.median(measure["samples"])


def _intervals(measures: dict[str, dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """The 95% intervals of the series that have one, for grouped_bars' error bars."""
    return {name: (measure["ci95"][0], measure["ci95"][1]) for name, measure in measures.items() if measure["ci95"]}
