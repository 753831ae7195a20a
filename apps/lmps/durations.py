"""Measured task durations of a real LMP run, for skeleton runs (`lmps.swift --skeleton=FILE`).

    python -m apps.lmps.durations runs/NNN -o durations.json [--base DIR]

Reads the run's `events.jsonl` and writes, per `solve_chunk` task, its hours, its
duration and its output size, and the same for `prepare_model`. A solve task's duration
is split into its computation (`compute_s`: what the task did but read inputs and write
its output, start-up included), the time it spent reading (`read_s`), both as the task
measured them into its chunk file's `timing`, and the rest (`write_s`: writing and exit),
so a skeleton task can read through its store, sleep the computation only, then write. A task's duration is
the app's own run time (`run_s` of its end record) when the log has it, else end −
start; its output size is `bytes_out` when logged, else the size of its `--out` file
(relative paths are taken from `--base`, default: the current directory). Skeleton
tasks look their entry up by first hour; hours beyond the recorded ones reuse the
entries in a cycle, which the file says in its `reuse` field.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Optional, Sequence

from apps.lmps.chunk_file import ChunkFileError, read_timing
from apps.lmps.outputs import open_output
from apps.lmps.skeleton_chunk import DURATIONS_FORMAT

VERSION = 1
REUSE = ("a skeleton chunk starting at a recorded first hour takes that task's duration and size; "
         "any other takes entry ((first - first recorded hour) // recorded chunk size) mod (entries), "
         "i.e. the recorded tasks are reused in a cycle")


def _option(command: Sequence[str], name: str) -> Optional[str]:
    """The value after `name` in an argv list, or None."""
    words = list(command)
    if name in words and words.index(name) + 1 < len(words):
        return words[words.index(name) + 1]
    return None


def _module(command: Any) -> str:
    """The apps.lmps module an app task ran (`PY -m apps.lmps.NAME ...`), or ''."""
    if isinstance(command, list):
        module = _option(command, "-m") or ""
        if module.startswith("apps.lmps."):
            return module.rsplit(".", 1)[1]
    return ""


def _measure(start: dict[str, Any], end: dict[str, Any], base: str) -> dict[str, Any]:
    """Duration and output size of one task, from its records (and its output file)."""
    if end.get("run_s") is not None:
        seconds, seconds_from = float(end["run_s"]), "run_s"
    else:
        seconds, seconds_from = end["time"] - start["time"], "end-start"
    if end.get("bytes_out") is not None:
        size, size_from = int(end["bytes_out"]), "bytes_out"
    else:
        out = _option(start["command"], "--out")
        if out is None:
            raise ValueError(f"task {start['task']} names no --out file")
        path = os.path.join(base, out)
        try:
            size = os.path.getsize(path)
        except OSError as error:
            raise ValueError(f"task {start['task']}: its output {path} is not readable ({error.strerror}); "
                             "give the directory the run ran in with --base") from None
        size_from = "file"
    return {"seconds": round(seconds, 6), "output_bytes": size, "seconds_from": seconds_from, "bytes_from": size_from}


def _split(start: dict[str, Any], seconds: float, base: str) -> dict[str, Any]:
    """compute_s, read_s and write_s of a solve task from its chunk file's timing (all None
    when the file holds none: then a skeleton task sleeps the whole duration)."""
    out = _option(start["command"], "--out")
    try:
        timing = read_timing(os.path.join(base, out)) if out is not None else None
    except ChunkFileError:
        timing = None
    if not timing or "compute_s" not in timing or "read_s" not in timing:
        return {"compute_s": None, "read_s": None, "write_s": None}
    compute, read = float(timing["compute_s"]), float(timing["read_s"])
    return {"compute_s": round(compute, 6), "read_s": round(read, 6),
            "write_s": round(max(0.0, seconds - compute - read), 6)}


def extract(run_dir: str, base: str = ".") -> dict[str, Any]:
    """The durations document of a run directory (see the module docstring)."""
    from engine.observe.runlog import read_events

    try:
        events = read_events(run_dir)
    except OSError as error:
        raise ValueError(f"cannot read {os.path.join(run_dir, 'events.jsonl')}: {error.strerror}") from None
    starts = {event["task"]: event for event in events if event.get("event") == "start"}
    tasks: list[dict[str, Any]] = []
    prepare: Optional[dict[str, Any]] = None
    for end in (event for event in events if event.get("event") == "end" and event.get("status") == "ok"):
        start = starts.get(end["task"])
        module = _module(start["command"]) if start else ""
        if module == "solve_chunk":
            first, count = int(_option(start["command"], "--first")), int(_option(start["command"], "--count"))
            measured = _measure(start, end, base)
            tasks.append({"first": first, "count": count, "hours": list(range(first, first + count)),
                          **measured, **_split(start, measured["seconds"], base), "node": end.get("node", "")})
        elif module == "prepare_model":
            prepare = _measure(start, end, base)
    if not tasks:
        raise ValueError(f"{run_dir} holds no finished solve_chunk task: is it a real (not skeleton) run of apps/lmps/lmps.swift?")
    tasks.sort(key=lambda task: task["first"])
    seconds = [task["seconds"] for task in tasks]
    return {"format": DURATIONS_FORMAT, "version": VERSION, "mode": "real", "source": os.path.abspath(run_dir),
            "recorded_tasks": len(tasks), "recorded_hours": sum(task["count"] for task in tasks),
            "chunk": tasks[0]["count"], "seconds_total": round(sum(seconds), 6),
            "seconds_mean": round(sum(seconds) / len(seconds), 6), "reuse": REUSE,
            "compute_mean": _mean([task["compute_s"] for task in tasks]),
            "prepare_model": prepare, "tasks": tasks}


def _mean(values: list[Optional[float]]) -> Optional[float]:
    """The mean of the values, None when any is missing."""
    known = [value for value in values if value is not None]
    if not values or len(known) != len(values):
        return None
    return round(sum(known) / len(known), 6)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m apps.lmps.durations", description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", help="run directory of a real lmps.swift run (runs/NNN)")
    parser.add_argument("-o", "--output", required=True, help="durations file to write (JSON)")
    parser.add_argument("--base", default=".", help="directory the run ran in, for its relative output paths")
    args = parser.parse_args(argv)
    try:
        document = extract(args.run_dir, args.base)
        with open_output(args.output) as out:
            json.dump(document, out, indent=1)
    except (ValueError, OSError) as error:
        print(f"durations: {error}", file=sys.stderr)
        return 1
    print(f"durations: {document['recorded_tasks']} solve tasks ({document['recorded_hours']} hours), "
          f"mean {document['seconds_mean']:.3f} s, written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
