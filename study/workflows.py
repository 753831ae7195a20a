"""The study's workflow figures: BLAST and EnergyPlus on every store (Figs 8/9/11/12), staged vs
shared execution of the same workflow, and stream vs copy staging.

Each run is a real `swiftcloud run --cluster` over the home region's nodes (one worker per
node), with its own run directory and its own output directory in the store, so no run
reuses another's files. Per workflow it draws the cumulative completion of every store in
one plot, each store's task trace (coordination wait, stage-in, run, stage-out per task) and
the makespans; then BLAST again on the staging mode of the stores that have both (HDFS,
Chirp; S3 staged against S3 through s3fs), and the stream workflow (`stream.swift`) on S3
with copy and with stream staging.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

from cluster.state import ClusterState
from hostkit.program import swiftcloud_command
from study.plots import completion_overlay, grouped_bars, trace
from study.runs import RunResult, run_summary, study_environment

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

    @classmethod
    def quick(cls) -> WorkflowOptions:
        return cls(workers=2, blast_fragments=4, energyplus_orientations=1, energyplus_heights=1,
                   energyplus_period="short", stream_tasks=2, stream_mb=2)

    @classmethod
    def small(cls) -> WorkflowOptions:
        # A third of the study's BLAST and half of its short EnergyPlus sweep: on a 2-core VM whose
        # BLAST tasks take 1.1-1.4 s each, a run of the study's 602 BLAST tasks took 94-148 s, and
        # the part makes eight (six stores, two of them staged as well).
        return cls(workers=8, blast_fragments=100, energyplus_orientations=5, energyplus_heights=6,
                   energyplus_period="short", stream_tasks=8, stream_mb=50)

    @classmethod
    def full(cls) -> WorkflowOptions:
        return cls(workers=8, blast_fragments=300, energyplus_orientations=10, energyplus_heights=21,
                   energyplus_period="annual", stream_tasks=16, stream_mb=200)

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

    def __init__(self, state_dir: str, out_dir: str, options: WorkflowOptions, say: Callable[[str], None]) -> None:
        self.out_dir = out_dir
        self.options = options
        self.say = say
        self.env = study_environment(state_dir)
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
        self.say(f"  {tag}: {result.summary['tasks']} tasks, makespan {result.summary['makespan_s']:.1f} s"
                 f" (command {wall:.1f} s)")
        return result


def run(cluster: ClusterState, stores: list[str], options: WorkflowOptions, out_dir: str,
        say: Callable[[str], None], state_dir: str) -> dict[str, Any]:
    """Every workflow on every store, staged vs shared, stream vs copy; figures into out_dir."""
    home = sum(node.region == cluster.nodes[0].region for node in cluster.nodes)
    options = replace(options, workers=min(options.workers, home))  # workers stay in the home region
    os.makedirs(os.path.join(out_dir, "runs"), exist_ok=True)
    runner = StudyRunner(state_dir, out_dir, options, say)
    results: dict[str, Any] = {"options": asdict(options), "workflows": {}, "staged_vs_shared": {},
                               "stream_vs_copy": {}}
    figures: list[str] = []
    for workflow in WORKFLOWS:
        say(f"{workflow.title} on {len(stores)} stores, {options.workers} workers")
        runs = {store: runner.run(f"{workflow.name}-{store}", workflow.script, SHARED_TABLES[store],
                                  workflow.args(options)) for store in stores}
        results["workflows"][workflow.name] = {store: result.as_dict() for store, result in runs.items()}
        finished = {store: result for store, result in runs.items() if result.error is None}
        if finished:
            figures.extend(completion_overlay([r.run_dir for r in finished.values()], list(finished), out_dir,
                                              workflow.name, f"{workflow.title}, {options.workers} nodes"))
            figures.extend(trace(result.run_dir, os.path.join(out_dir, f"{workflow.name}_trace_{store}.png"),
                                 f"{workflow.title} on {store}: coordination wait and execution per task")
                           for store, result in finished.items())

    say("staged vs shared execution (BLAST)")
    blast = WORKFLOWS[0]
    main_runs = results["workflows"]["blast"]
    pairs: dict[str, dict[str, Any]] = {}
    for staged_store, shared_store in STAGED_VS_SHARED:
        if staged_store not in stores or shared_store not in stores:
            continue
        if SHARED_TABLES[staged_store] == staged_store:  # the study's row already stages (S3)
            staged = main_runs[staged_store]
        else:
            staged = runner.run(f"blast-{staged_store}-staged", blast.script, staged_store, blast.args(options)).as_dict()
        pairs[staged_store] = {"staged": staged, "shared": main_runs[shared_store], "shared_store": shared_store}
    results["staged_vs_shared"] = pairs
    complete = {store: pair for store, pair in pairs.items()
                if pair["staged"]["error"] is None and pair["shared"]["error"] is None}
    if complete:
        figures.append(grouped_bars(
            {(store if pair["shared_store"] == store else f"{store} / {pair['shared_store']}"):
             {"staged": pair["staged"]["summary"]["makespan_s"], "shared": pair["shared"]["summary"]["makespan_s"]}
             for store, pair in complete.items()},
            os.path.join(out_dir, "staged_vs_shared.png"), "BLAST: staged vs shared execution", "makespan (s)"))

    if "s3" in stores:
        say(f"stream vs copy staging on S3 ({options.stream_tasks} tasks x {options.stream_mb} MB)")
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
