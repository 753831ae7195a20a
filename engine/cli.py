"""The engine's commands of the `swiftcloud` command line (the roof, `swiftcloud.cli`, assembles them):

    swiftcloud run [-n N] [-I DIR]... script.swift [ARG]...
    swiftcloud check [-I DIR]... script.swift
    swiftcloud dag [-I DIR]... script.swift -o graph.{dot,png,svg}
    swiftcloud report runs/NNN [runs/MMM ...] [--overlay OUT_DIR [--labels A,B,...]]

Each command's handler returns the exit status; errors are raised and mapped to
one by the roof's `main()`. Program output goes to stdout; diagnostics to stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING, Callable, Optional

from engine.errors import SwiftError, UsageError
from hostkit.errors import EXIT_OK, EXIT_RUNTIME

if TYPE_CHECKING:
    from engine.lang.ir import Program

DEFAULT_PROCESSES = (os.cpu_count() or 2) + 1


def add_commands(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register `run`, `check`, `dag` and `report` on the CLI's sub-parsers; return the `run`
    parser, to which the package that provides other hosts adds its option (`--cluster`,
    storing its launcher as `host_launcher`: see `engine.scheduler.launch.HostLauncher`)."""
    # No abbreviations: a script's own `--n=5` must never be taken for one of ours (`--nodes`).
    run = sub.add_parser("run", help="compile and run a script", allow_abbrev=False,
                         description="Compile a script, then run it on local worker processes. "
                                     "Arguments after the script are the script's own (see argv()).")
    _add_compile_options(run)
    run.add_argument("-n", "--processes", type=int, default=None, metavar="N",
                     help=f"total processes: 1 engine + N-1 workers (default {DEFAULT_PROCESSES}; with"
                          " --cluster, one worker per node)")
    run.add_argument("--run-dir", metavar="DIR",
                     help="where to write the run's event log (default: the next runs/NNN)")
    run.add_argument("--retries", type=_non_negative_int, default=None, metavar="N",
                     help="re-run a failed app up to N more times (default: $SWIFTCLOUD_APP_RETRIES,"
                          " $TURBINE_APP_RETRIES_LOCAL, or 0)")
    run.add_argument("--resume", action="store_true",
                     help="reuse the app tasks that the latest run in runs/ finished and whose inputs and"
                          " outputs are unchanged; run only the rest")
    run.add_argument("--resume-from", metavar="RUN_DIR",
                     help="as --resume, from the run in RUN_DIR (e.g. runs/007)")
    run.add_argument("--no-restart-log", action="store_true",
                     help="keep no restart log (runs/NNN/restart.jsonl): saves a few system calls per app"
                          " task, but the run cannot be resumed")
    run.add_argument("--explain", action="store_true",
                     help="with --resume: say on stderr why each app task that runs is not reused")
    run.add_argument("--task-walltime", type=_positive_seconds, default=None, metavar="SECONDS",
                     help="end any app that runs longer (its whole process group) and count it as a"
                          " failure, retried per --retries; an app's own @walltime=SECONDS wins")
    run.add_argument("--storage", metavar="NAME",
                     help="where the workflow's files live: local, s3, scp, s3fs, ... (default: plain"
                          " paths on this machine; see 'swiftcloud services --help')")
    run.add_argument("--config", metavar="FILE",
                     help="settings file with [storage.NAME] tables (default: ./swiftcloud.toml if present)")
    run.add_argument("--transport", choices=("auto", "local", "mpi"), default="auto",
                     help="where workers run: 'local' forked processes, or 'mpi' ranks under the venv's"
                          " own mpiexec; 'auto' (default) is mpi when mpi4py is installed")
    run.add_argument("--mpi", action="store_true",
                     help="join an MPI job started by your own mpiexec or srun: rank 0 runs the engine,"
                          " the other ranks serve tasks (the job's size replaces -n)")
    run.add_argument("--nodes", metavar="A,B,...", default=os.environ.get("SWIFTCLOUD_NODES"),
                     help="node names for the local workers (worker i runs as node i mod count), to"
                          " emulate several nodes on one machine for data-aware placement"
                          " (default: $SWIFTCLOUD_NODES, else this host)")
    run.add_argument("script", help="the .swift file to run")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    # A run's work begins past its set-up: where the engine's run starts, a worker rank's
    # session, or the job it supervises (`hostkit.startup`).
    run.set_defaults(handler=cmd_run, host_launcher=None, resumes_collection=True)

    check = sub.add_parser("check", help="compile a script without running it",
                           description="Parse and type-check a script; report errors as file:line:col.")
    _add_compile_options(check)
    check.add_argument("script")
    check.set_defaults(handler=cmd_check)

    dag = sub.add_parser("dag", help="draw the static dataflow graph of a script",
                         description="Write the script's static task graph as DOT, or render it to "
                                     "PNG/SVG with Graphviz's 'dot'.")
    _add_compile_options(dag)
    dag.add_argument("script")
    dag.add_argument("-o", "--output", required=True, metavar="FILE",
                     help="output file; the suffix picks the format: .dot, .png or .svg")
    dag.set_defaults(handler=cmd_dag)

    rep = sub.add_parser("report", help="summarize runs and draw their task traces and completion curves",
                         description="Print each run's figures (tasks, makespan, ideal makespan = summed "
                                     "task time / workers, seconds of coordination wait, stage-in, run, "
                                     "stage-out, bytes in/out) and write trace.png, completion.png, "
                                     "timeline.html, trace.json and report.html into its directory; with "
                                     "--overlay, also compare the runs in one plot (docs/report.md).")
    rep.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="a run directory such as runs/001")
    rep.add_argument("--json", action="store_true", help="print the figures as one JSON line per run")
    rep.add_argument("--no-plots", action="store_true", help="write no files for each run, only print its figures")
    rep.add_argument("--overlay", metavar="OUT_DIR",
                     help="write overlay_completion.png, overlay_makespan.png and overlay.json comparing the"
                          " runs into OUT_DIR")
    rep.add_argument("--labels", metavar="A,B,...",
                     help="with --overlay: one legend label per run (default: the run directory names)")

    rep.set_defaults(handler=cmd_report)

    ver = sub.add_parser("verify", help="read back every file a run wrote and report any that changed or went"
                                        " missing",
                         description="Read again, from the run's store, every file whose content digest the run "
                                     "recorded (task outputs and files the engine wrote), and compare. Prints "
                                     "each changed, missing or unreadable file and a summary; exits 1 if there "
                                     "is any (docs/storage.md, 'Integrity').")
    ver.add_argument("run_dir", metavar="RUN_DIR", help="a run directory such as runs/001")
    ver.add_argument("--json", action="store_true", help="print one JSON line per file instead")
    ver.set_defaults(handler=cmd_verify)
    return run


def _non_negative_int(text: str) -> int:
    """An argparse type: a whole number >= 0."""
    return int(_number(text, int, "a whole number", lambda v: v >= 0, "0 or more"))


def _positive_seconds(text: str) -> float:
    """An argparse type: a number of seconds > 0."""
    return _number(text, float, "a number of seconds", lambda v: 0 < v < float("inf"), "more than 0 seconds")


def _number(text: str, kind: type, what: str, fits: Callable[[float], bool], rule: str) -> float:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {what}: '{text}'") from None
    if not fits(value):
        raise argparse.ArgumentTypeError(f"must be {rule}, not {text}")
    return value


def _add_compile_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR",
                   help="also search DIR for imported modules and #include files")


def _compile(args: argparse.Namespace) -> Program:
    """The command's script, compiled; its warnings go to stderr."""
    from engine.script import compile_script

    program = compile_script(args.script, args.include)
    for warning in program.warnings:
        print(warning, file=sys.stderr)
    return program


def cmd_run(args: argparse.Namespace) -> int:
    from engine.scheduler.launch import enter_run

    if args.processes is None and args.host_launcher is None:
        args.processes = DEFAULT_PROCESSES
    status = enter_run(args)  # runs the job under mpiexec (or --cluster's), or serves as an MPI worker rank
    if status is not None:
        return status
    from engine.observe.restart import RestartLog, read_restart_log
    from engine.observe.runlog import RunLog, latest_run_dir, next_run_dir
    from engine.runtime.collection import spare_at_exit
    from engine.runtime.engine import Engine
    from engine.runtime.files import TempFiles
    from engine.runtime.resume import TaskCache
    from engine.runtime.run import Run
    from engine.runtime.store import open_files
    from engine.task import scratch

    if args.processes < 2:
        raise UsageError("-n needs at least 2 processes (1 engine + 1 worker)")
    program = _compile(args)
    previous = None
    resuming = args.resume or args.resume_from is not None
    if resuming and args.no_restart_log:
        raise UsageError("--resume needs the restart log: leave out --no-restart-log")
    if resuming:
        earlier = args.resume_from or latest_run_dir()
        if earlier is None:
            raise UsageError("--resume: there is no earlier run in runs/ (name one with --resume-from)")
        previous = read_restart_log(earlier)
    workers = args.processes - 1
    nodes = _node_names(args.nodes, workers)
    scratch.sweep()  # what runs killed outright left in the temporary directory
    # The storage is opened (and validated) first: bad settings fail before any run starts;
    # a bad --run-dir fails next, before any task starts.
    temp = TempFiles()
    files = open_files(args.storage, args.config, temp)
    try:
        log = RunLog(args.run_dir or next_run_dir())
    except BaseException:
        files.close()
        temp.cleanup()
        raise
    config = os.path.abspath(args.config) if args.config else None
    log.run_started(args.script, list(args.args), workers, args.storage, config, files.temp_prefix)
    files.digests.run_log = log
    restart = None if args.no_restart_log else RestartLog(log.directory)
    task_cache = TaskCache(files, restart, previous, args.explain) if restart is not None else None
    progress = _progress_bar()
    run = Run(program, files, temp, workers=workers, script_args=args.args, run_log=log, task_cache=task_cache,
              progress=progress, app_retries=args.retries, task_walltime=args.task_walltime,
              mpi_world=getattr(args, "mpi_world", None), nodes=nodes)
    engine = Engine(run)
    started = time.time()
    status = EXIT_RUNTIME
    try:
        engine.execute()
        status = EXIT_OK
    finally:
        if progress is not None:
            progress.stop()
        if restart is not None:
            restart.close()
        if resuming and task_cache is not None:
            reused = task_cache.reused
            print(f"swiftcloud: resumed: {reused} app task(s) reused, "
                  f"{engine.tasks_submitted - reused} run", file=sys.stderr)
        log.run_finished(status, time.time() - started)
        spare_at_exit()
    return status


def _node_names(spec: Optional[str], workers: int) -> Optional[list[str]]:
    """One node name per worker from `A,B,...` (round robin), or None for the host's name."""
    if not spec:
        return None
    names = [n.strip() for n in spec.split(",") if n.strip()]
    if not names:
        raise UsageError("--nodes needs at least one node name")
    return [names[i % len(names)] for i in range(workers)]


def cmd_check(args: argparse.Namespace) -> int:
    from engine.lang.deep_stack import call_with_deep_stack
    from engine.observe.dag import build_dag

    program = _compile(args)
    graph = call_with_deep_stack(lambda: build_dag(program))
    print(f"{args.script}: ok ({len(program.functions)} functions, {graph.number_of_nodes()} statements)")
    return EXIT_OK


def cmd_dag(args: argparse.Namespace) -> int:
    from engine.lang.deep_stack import call_with_deep_stack
    from engine.observe.dag import build_dag, write_dag

    program = _compile(args)
    write_dag(call_with_deep_stack(lambda: build_dag(program)), args.output)
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    import json

    from engine.observe.report import RUN_FILES, overlay, report

    if args.labels is not None and args.overlay is None:
        raise UsageError("--labels goes with --overlay")
    labels = None
    if args.labels is not None:
        labels = [label.strip() for label in args.labels.split(",")]
        if not all(labels) or len(labels) != len(args.run_dirs):
            raise UsageError(f"--labels needs one non-empty label per run ({len(args.run_dirs)}),"
                             f" not '{args.labels}'")
    try:
        summaries = [(run_dir, report(run_dir, plots=not args.no_plots)) for run_dir in args.run_dirs]
        written = overlay(args.run_dirs, args.overlay, labels) if args.overlay is not None else {}
    except OSError as error:
        where = f" {error.filename}" if error.filename else ""
        raise SwiftError(f"cannot write the report{where}: {error.strerror or error}") from None
    for run_dir, summary in summaries:
        if args.json:
            print(json.dumps({"run_dir": run_dir, **summary.as_dict()}))
            continue
        if len(summaries) > 1:
            print(f"{'run':>20}: {run_dir}")
        for key, value in summary.as_dict().items():
            print(f"{key:>20}: {value}")
        if not args.no_plots and summary.tasks:
            print(f"{'files':>20}: " + ", ".join(os.path.join(run_dir, name) for name in RUN_FILES))
    if written and not args.json:
        print(f"{'overlay':>20}: " + ", ".join(written.values()))
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    import json

    from engine.verify import CHANGED, MISSING, REMOVED, UNCHANGED, UNREADABLE, recorded_run, verify

    run = recorded_run(args.run_dir)
    if not run.digests:
        print(f"swiftcloud verify: {args.run_dir} records no file digests: nothing to check", file=sys.stderr)
        return EXIT_RUNTIME
    where = f"storage '{run.storage}'" if run.storage else f"local paths under {run.cwd}"
    if not args.json:
        print(f"{args.run_dir}: reading {len(run.digests)} recorded file(s) from {where}", file=sys.stderr)
    findings = verify(run)
    counts = {status: 0 for status in (UNCHANGED, CHANGED, MISSING, UNREADABLE, REMOVED)}
    for finding in findings:
        counts[finding.status] += 1
        if args.json:
            print(json.dumps(finding.as_dict()))
        elif finding.status == CHANGED:
            print(f"changed     {finding.name}: recorded {finding.recorded}, now {finding.found}")
        elif finding.status in (MISSING, UNREADABLE):
            detail = f": {finding.detail}" if finding.detail else ""
            print(f"{finding.status:<11} {finding.name}{detail}")
    if not args.json:
        summary = ", ".join(f"{counts[s]} {s}" for s in (UNCHANGED, CHANGED, MISSING, UNREADABLE) if counts[s]
                            or s == UNCHANGED)
        removed = f"; {counts[REMOVED]} temporary file(s) the run removed were not checked" if counts[REMOVED] else ""
        print(f"swiftcloud verify: {summary}{removed}")
    return EXIT_OK if counts[CHANGED] + counts[MISSING] + counts[UNREADABLE] == 0 else EXIT_RUNTIME


def _progress_bar():  # type: ignore[no-untyped-def]
    if not sys.stderr.isatty():
        return None
    from engine.observe.progress import TaskProgress
    return TaskProgress()
