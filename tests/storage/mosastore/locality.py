"""Counting data locality from a run log: did tasks run on the node holding their input?

The engine's `events.jsonl` has, per task, the node it ran on ("node" in its
"start"/"end" events). For this count it must also carry the task's input
files ("inputs": logical paths or paths under the mount, in the task's
"submit" or "start" event). After the run the files are still in the store,
so `adapter.locations(input)` tells which nodes hold them. A task counts
when at least one of its inputs has a known location; it is local when its
node holds every such input.

`chance_bar` is the bar such a count must reach: the fewest local tasks that
placement blind to data reaches by chance with probability at most `p` (each
task lands on its input's node with probability 1/nodes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from math import comb

from storage_adapters.base import StorageAdapter


@dataclass(frozen=True)
class LocalityCount:
    """Tasks whose inputs have known locations (`counted`), and how many ran where their inputs are."""

    local: int
    counted: int
    without_inputs: int

    @property
    def fraction(self) -> float:
        return self.local / self.counted if self.counted else 0.0


def count_locality(events_path: str, adapter: StorageAdapter) -> LocalityCount:
    """Count locality over the tasks of one run log (see the module docstring)."""
    inputs: dict[object, list[str]] = {}
    nodes: dict[object, str] = {}
    with open(events_path, encoding="utf-8") as log:
        for line in log:
            if not line.strip():
                continue
            event = json.loads(line)
            task = event.get("task")
            if event.get("inputs"):
                inputs[task] = list(event["inputs"])
            if event.get("event") == "start" and event.get("node"):
                nodes[task] = event["node"]
    local = counted = without = 0
    for task, node in nodes.items():
        holders = [set(adapter.locations(path)) for path in inputs.get(task, [])]
        holders = [held for held in holders if held]
        if not holders:
            without += 1
            continue
        counted += 1
        local += all(node in held for held in holders)
    return LocalityCount(local, counted, without)


def chance_bar(tasks: int, nodes: int, p: float = 1e-4) -> int:
    """The smallest k such that, placing each of `tasks` tasks on one of `nodes` nodes at
    random, P(k or more land on their input's node) <= p."""
    hit = 1.0 / nodes

    def tail(k: int) -> float:
        return sum(comb(tasks, j) * hit ** j * (1 - hit) ** (tasks - j) for j in range(k, tasks + 1))

    return next(k for k in range(tasks + 1) if tail(k) <= p)
