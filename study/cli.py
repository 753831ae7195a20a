"""`swiftcloud study`: the storage study from the command line."""

from __future__ import annotations

import argparse
import os
import sys
import time

from engine.errors import UsageError
from hostkit.errors import EXIT_OK, EXIT_RUNTIME
from study.parts import PARTS

DESCRIPTION = """\
Reproduce the storage study on an emulated cluster of this machine (network namespaces,
shaped links, regions apart by a delay line; needs root): every store is started
on the nodes, then
  links      bandwidth and round trip between every pair of regions, measured beside
             the configured values, as heatmaps (Figs 1/2)
  io         concurrent read / write / read-after-write, one file per node, 5 interleaved
             repeats with 95% intervals, read-after-write at 500 MB too (Figs 3/4/6)
  workflows  BLAST and EnergyPlus on every store: completion curves and task traces
             (Figs 8/9/11/12), staged vs shared execution, stream vs copy staging
  lmp        the power-grid workflow's makespan vs node count, one task per hour, in
             skeleton mode (Fig 13)
and the study's claims are checked against what was measured. Writes study.json, the
figures, claims.md and index.html into the results directory.

  swiftcloud study                          # the small default (45-50 minutes on 2 cores)
  swiftcloud study --parts io --stores s3,mosastore
  swiftcloud study --quick                  # every part at tiny sizes (about 7 minutes)
  swiftcloud study --full                   # the study's sizes: hours
  swiftcloud study --compare study-results/001 study-results/002
                                            # two runs' verdicts side by side (markdown)

See docs/study.md for what each figure shows and what we found."""


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `study` on the CLI's sub-parsers."""
    parser = subparsers.add_parser("study", help="run the storage study on an emulated cluster (needs root)",
                                   description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stores", metavar="NAME[,NAME]",
                        help="stores to compare (default: every store the emulated cluster can start)")
    parser.add_argument("--parts", default=",".join(PARTS), metavar="PART[,PART]",
                        help=f"parts to run (default: all of {', '.join(PARTS)})")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--full", dest="size", action="store_const", const="full", default="small",
                      help="the study's sizes (files up to 1000 MB, EnergyPlus annual at 420 tasks, 8,760 hourly"
                           " LMP tasks up to 16 nodes) instead of the small default")
    size.add_argument("--quick", dest="size", action="store_const", const="quick",
                      help="every part at tiny sizes, about 7 minutes (checks the set-up, not the claims)")
    parser.add_argument("--out", metavar="DIR",
                        help="results directory (default: the next study-results/NNN)")
    parser.add_argument("--compare", nargs=2, metavar="RESULTS",
                        help="run nothing: print two finished runs' verdicts side by side, claim by claim and"
                             " case by case, with one verdict for both (a claim the runs disagree on is"
                             " inconclusive)")
    parser.set_defaults(handler=run_command)


def _names(text: str, known: tuple[str, ...], what: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        raise UsageError(f"--{what}: unknown {', '.join(unknown) or '(none given)'}; choose from {', '.join(known)}")
    return list(dict.fromkeys(names))


def compare_command(directories: list[str]) -> int:
    from study.compare import load, side_by_side

    try:
        runs = [load(directory) for directory in directories]
    except ValueError as error:
        raise UsageError(f"--compare: {error}") from None
    print(side_by_side(runs), end="")
    return EXIT_OK


def run_command(args: argparse.Namespace) -> int:
    if args.compare:
        return compare_command(args.compare)
    from engine.observe.runlog import next_run_dir
    from study.driver import StudyPlan, run_study
    from study.stores import study_stores

    known = study_stores()
    stores = _names(args.stores or ",".join(known), known, "stores")
    parts = _names(args.parts, PARTS, "parts")
    out_dir = os.path.abspath(args.out) if args.out else os.path.abspath(next_run_dir("study-results"))
    os.makedirs(out_dir, exist_ok=True)
    plan = StudyPlan(stores, [part for part in PARTS if part in parts], args.size, out_dir,
                     os.path.join(out_dir, "state"))
    begin = time.perf_counter()

    def say(line: str) -> None:
        print(f"study [{time.perf_counter() - begin:6.0f} s] {line}", file=sys.stderr, flush=True)

    try:
        results = run_study(plan, say)
    except KeyboardInterrupt:
        say(f"interrupted; the cluster was taken down; partial results in {out_dir}")
        return EXIT_RUNTIME
    for claim in results["claims"]:
        print(f"[{claim['verdict']:>12}] {claim['claim']}\n               {claim['summary']}")
    print(f"\nevery case with its interval: {os.path.join(out_dir, 'claims.md')}")
    print(f"results: {os.path.join(out_dir, 'index.html')} ({results['seconds']:.0f} s)")
    for part, error in results["errors"].items():
        print(f"part {part} failed: {error}", file=sys.stderr)
    return EXIT_RUNTIME if results["errors"] else EXIT_OK
