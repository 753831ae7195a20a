"""The whole study in one call: bring up the emulated cluster with every store, run each part
on it, take it down, and write the results directory (JSON, figures, claims, index page).

A part that fails is recorded (with its error) and the study goes on with the next one; the
cluster is taken down whatever happens, Ctrl-C and SIGTERM included.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cluster import lifecycle
from cluster.stores import with_daemons
from engine.errors import UsageError
from hostkit.interrupt import terminate_as_interrupt
from study import claims, index, io, links, lmp, workflows

SIZES = ("quick", "small", "full")
Say = Callable[[str], None]


@dataclass
class StudyPlan:
    """What to run: stores, parts, size (quick, small or full), where to write."""

    stores: list[str]
    parts: list[str]
    size: str
    out_dir: str
    state_dir: str
    started: float = field(default_factory=time.time)


def part_options(part: str, size: str) -> Any:
    """The options of one part at the chosen size: its class's quick(), small() or full()."""
    kind = {"links": links.LinksOptions, "io": io.IoOptions, "workflows": workflows.WorkflowOptions,
            "lmp": lmp.LmpOptions}[part]
    return getattr(kind, size)()


def run_study(plan: StudyPlan, say: Say) -> dict[str, Any]:
    """Run every part of `plan` on one cluster; returns (and writes) study.json's content."""
    if os.geteuid() != 0:
        raise UsageError("the study runs on the emulated cluster, which needs root (network namespaces, tc)")
    options = {part: part_options(part, plan.size) for part in plan.parts}
    # The links between regions and the LMP sweep need every region; the other parts the home one.
    regions = lmp.STUDY_REGIONS if {"lmp", "links"} & set(plan.parts) else lmp.STUDY_REGIONS[:1]
    nodes = sum(region.nodes for region in regions)
    results: dict[str, Any] = {"mode": plan.size, "stores": plan.stores, "parts": {}, "errors": {},
                               "regions": [vars(region) for region in regions], "nodes": nodes}
    with terminate_as_interrupt():
        say(f"bringing up {nodes} nodes with {', '.join(with_daemons(plan.stores)) or 'no daemons'}")
        begin = time.perf_counter()
        try:  # a refused or failed `up` leaves no state directory behind either
            cluster = lifecycle.up(plan.state_dir, nodes, regions, with_daemons(plan.stores), say)
            results["cluster_up_s"] = round(time.perf_counter() - begin, 1)
            for part in plan.parts:
                directory = os.path.join(plan.out_dir, part)
                os.makedirs(directory, exist_ok=True)
                say(f"== {part} ({plan.size}) ==")
                begin = time.perf_counter()
                try:
                    if part == "workflows":
                        outcome = workflows.run(cluster, plan.stores, options[part], directory, say, plan.state_dir)
                    else:
                        module = {"links": links, "io": io, "lmp": lmp}[part]
                        outcome = module.run(cluster, plan.stores, options[part], directory, say)
                except Exception as error:  # one part's failure must not lose the others' results
                    say(f"{part} failed: {type(error).__name__}: {error}")
                    results["errors"][part] = f"{type(error).__name__}: {error}"
                    continue
                outcome["seconds"] = round(time.perf_counter() - begin, 1)
                results["parts"][part] = outcome
                _save(plan, results)
        finally:
            say("taking the cluster down")
            lifecycle.down(plan.state_dir, say)
            _remove_empty(plan.state_dir)
    results["seconds"] = round(time.time() - plan.started, 1)
    try:
        results["claims"] = [claim.as_dict() for claim in claims.evaluate(results)]
    except (KeyError, TypeError, ValueError) as error:  # a claims module behind the parts' result format
        say(f"the claims could not be evaluated: {type(error).__name__}: {error}")
        results["claims"], results["errors"]["claims"] = [], f"{type(error).__name__}: {error}"
    _save(plan, results)
    index.write(plan.out_dir, results)
    return results


def _remove_empty(directory: str) -> None:
    """Remove `directory` and its empty subdirectories (what `down` leaves of the state)."""
    for root, _, _ in sorted(os.walk(directory), key=lambda entry: -len(entry[0])):
        try:
            os.rmdir(root)
        except OSError:
            pass


def _save(plan: StudyPlan, results: dict[str, Any]) -> None:
    path = os.path.join(plan.out_dir, "study.json")
    with open(path + ".part", "w", encoding="utf-8") as handle:
        json.dump(results, handle, indent=2)
    os.replace(path + ".part", path)
