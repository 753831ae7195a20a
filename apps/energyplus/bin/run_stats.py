#!/usr/bin/env python3
"""Makespan figures of one swiftcloud run, from its runs/NNN/events.jsonl.

Prints the task count (per kind of task), the makespan (first task start to last
task end), the ideal makespan (sum of task durations / workers) and their ratio.
Standard library only.

    run_stats.py runs/NNN/events.jsonl
"""

from __future__ import annotations

import json
import sys
from collections import Counter


def run_stats(events_path: str) -> dict[str, object]:
    """Figures of the run whose event log is at `events_path`."""
    starts: dict[int, float] = {}
    durations: dict[int, float] = {}
    labels: Counter[str] = Counter()
    workers = 0
    first_start, last_end = float("inf"), float("-inf")
    with open(events_path, encoding="utf-8") as f:
        for line in f:
            event = json.loads(line)
            kind = event.get("event")
            if kind == "run_start":
                workers = int(event["workers"])
            elif kind == "start":
                starts[event["task"]] = event["time"]
                first_start = min(first_start, event["time"])
            elif kind == "end" and event["task"] in starts:
                # A retried task has several start/end pairs: count each attempt's time.
                durations[event["task"]] = durations.get(event["task"], 0.0) + event["time"] - starts[event["task"]]
                last_end = max(last_end, event["time"])
                labels[event.get("label", "?")] += 1
    if not durations or workers < 1:
        raise ValueError(f"{events_path} records no finished task or no worker count")
    makespan = last_end - first_start
    ideal = sum(durations.values()) / workers
    return {"tasks": len(durations), "by_label": dict(labels), "workers": workers,
            "makespan_s": makespan, "ideal_makespan_s": ideal, "ratio": makespan / ideal}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: run_stats.py runs/NNN/events.jsonl", file=sys.stderr)
        return 2
    try:
        stats = run_stats(args[0])
    except (OSError, ValueError, KeyError) as e:
        print(f"run_stats: {e}", file=sys.stderr)
        return 1
    labels = ", ".join(f"{count} {label}" for label, count in sorted(stats["by_label"].items()))
    print(f"tasks: {stats['tasks']} ({labels}) on {stats['workers']} workers")
    print(f"makespan: {stats['makespan_s']:.1f} s; ideal (sum of task times / workers):"
          f" {stats['ideal_makespan_s']:.1f} s; ratio {stats['ratio']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
