"""Repeated measurements: the interleaved order of repeats, each repeat's CPU headroom, and
the measure records and headroom summary the study's parts write (docs/study.md).

Repeats go round-robin over the compared configurations (repeat 1 of every one, then
repeat 2, ...), so a slow spell of the host falls on every store alike instead of on the
one measured during it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

from cluster.cpuwatch import SATURATED_ABOVE
from study.stats import measure_of

Key = TypeVar("Key", bound=Hashable)


def round_robin(keys: Sequence[Key], repeats: Callable[[Key], int]) -> list[tuple[int, Key]]:
    """(repeat, key) in the order to measure: repeat 0 of every key, then repeat 1, ...; a key
    with fewer repeats than another drops out after its last."""
    most = max((repeats(key) for key in keys), default=0)
    return [(repeat, key) for repeat in range(most) for key in keys if repeat < repeats(key)]


def measure_from(runs: Sequence[dict[str, Any]], value: Callable[[dict[str, Any]], float | None]) -> dict[str, Any]:
    """The measure of the runs that gave a value (a failed run gives none), with the saturation
    and busy fraction of each from its `cpu` record (CpuWatch's as_dict)."""
    done = [(run, value(run)) for run in runs]
    done = [(run, number) for run, number in done if number is not None]
    return measure_of([number for _, number in done], [bool(run["cpu"]["saturated"]) for run, _ in done],
                      [float(run["cpu"]["host_busy"]) for run, _ in done])


def headroom(measures: dict[str, list[dict[str, Any]]], threshold: float = SATURATED_ABOVE) -> dict[str, Any]:
    """The part's headroom summary from its measures grouped by store."""
    by_store = {store: [sum(sum(m["saturated"]) for m in group), sum(len(m["samples"]) for m in group)]
                for store, group in measures.items()}
    return {"threshold": threshold, "repeats": sum(total for _, total in by_store.values()),
            "saturated": sum(saturated for saturated, _ in by_store.values()), "by_store": by_store}


def median_index(samples: Sequence[float]) -> int:
    """The index of the sample at the median (the lower middle one of an even count): the run
    that stands for its repeats in completion curves and traces."""
    if not samples:
        raise ValueError("no samples")
    order = sorted(range(len(samples)), key=lambda index: samples[index])
    return order[(len(order) - 1) // 2]
