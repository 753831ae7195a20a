"""The result file of one chunk of hours, written by `solve_chunk`, read by `merge_chunks`.

JSON with one entry per hour in each list. Numbers are rounded to 1e-6
($/MWh, MW, $/h), far below the 1e-3 $/MWh the results are checked to,
which keeps a year of results at tens of MB. Hours that did not solve to
optimality have `null` cost and empty lists.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Optional

from apps.lmps.outputs import open_output

FORMAT = "swiftcloud-lmps-chunk"
VERSION = 1
DIGITS = 6


class ChunkFileError(ValueError):
    """A chunk result file that is missing, unreadable or of another format."""


@dataclass
class ChunkResult:
    hours: list[int] = field(default_factory=list)
    load_factor: list[float] = field(default_factory=list)
    status: list[str] = field(default_factory=list)
    cost: list[Optional[float]] = field(default_factory=list)
    lmp: list[list[float]] = field(default_factory=list)
    generation: list[list[float]] = field(default_factory=list)
    flow: list[list[float]] = field(default_factory=list)
    solve_seconds: list[float] = field(default_factory=list)

    def add(self, hour: int, load_factor: float, status: str, cost: Optional[float],
            lmp: Iterable[float], generation: Iterable[float], flow: Iterable[float], seconds: float) -> None:
        self.hours.append(hour)
        self.load_factor.append(load_factor)
        self.status.append(status)
        self.cost.append(None if cost is None else _round(cost))
        self.lmp.append([_round(x) for x in lmp])
        self.generation.append([_round(x) for x in generation])
        self.flow.append([_round(x) for x in flow])
        self.solve_seconds.append(round(seconds, DIGITS))


def _round(x: float) -> float:
    return round(float(x), DIGITS) + 0.0  # + 0.0 turns -0.0 into 0.0


def write_chunk(result: ChunkResult, path: str, timing: Optional[dict[str, float]] = None) -> None:
    """Write the chunk; `timing` (the task's own read and compute seconds) is kept beside the
    results for `apps.lmps.durations`, which needs computation and I/O apart."""
    document = {"format": FORMAT, "version": VERSION, **asdict(result)}
    if timing is not None:
        document["timing"] = {name: round(seconds, DIGITS) for name, seconds in timing.items()}
    with open_output(path) as out:
        json.dump(document, out, separators=(",", ":"))


def read_timing(path: str) -> Optional[dict[str, float]]:
    """The `timing` a chunk file holds (None for a file written without one)."""
    try:
        with open(path, encoding="utf-8") as src:
            doc: Any = json.load(src)
    except (OSError, ValueError) as e:
        raise ChunkFileError(f"cannot read chunk result {path}: {e}") from e
    timing = doc.get("timing") if isinstance(doc, dict) else None
    return timing if isinstance(timing, dict) else None


def read_chunk(path: str) -> ChunkResult:
    try:
        with open(path, encoding="utf-8") as src:
            doc: Any = json.load(src)
    except (OSError, ValueError) as e:
        raise ChunkFileError(f"cannot read chunk result {path}: {e}") from e
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise ChunkFileError(f"{path} is not a chunk result ({FORMAT} version {VERSION})")
    try:
        return ChunkResult(**{name: doc[name] for name in ChunkResult.__dataclass_fields__})
    except KeyError as e:
        raise ChunkFileError(f"{path} is an incomplete chunk result (no {e})") from e
