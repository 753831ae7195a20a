"""Workflow-aware placement: parse a hint, then decide which benefactors get each chunk.

Hints are the value of the extended attribute `user.mosastore.placement`:

- `scatter` (the default): stripe the chunks over every live benefactor,
  starting at a random one so that many small files spread too;
- `local`: every chunk on the writer's node (pipelines: the next task reads
  locally); falls back to `scatter` when the writer's node has no live
  benefactor;
- `collocate:GROUP`: every file of GROUP on one node, chosen by the manager
  the first time the group is used (reduce: the reducer's inputs in one place);
- `replicate:K`: K whole copies, on the writer's node first (broadcast
  inputs read from everywhere; also survives the loss of K-1 nodes).

A `Plan` is what a client needs to place every chunk of one file without
asking the manager again: chunk i goes to `chunk_nodes(plan, i)`.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, replace

PLACEMENT_XATTR = "user.mosastore.placement"
LOCATION_XATTR = "user.mosastore.location"
WRITER_XATTR = "user.mosastore.writer"
KINDS = ("scatter", "local", "collocate", "replicate")
MAX_REPLICAS = 16


@dataclass(frozen=True)
class Hint:
    """A parsed placement hint."""

    kind: str = "scatter"
    group: str = ""
    replicas: int = 1

    def __str__(self) -> str:
        if self.kind == "collocate":
            return f"collocate:{self.group}"
        if self.kind == "replicate":
            return f"replicate:{self.replicas}"
        return self.kind


def parse_hint(text: str) -> Hint:
    """Parse `local`, `scatter`, `collocate:GROUP` or `replicate:K`; ValueError otherwise."""
    kind, _, argument = text.strip().partition(":")
    if kind in ("scatter", "local") and not argument:
        return Hint(kind)
    if kind == "collocate" and argument and len(argument) <= 255 and argument.isprintable():
        return Hint(kind, group=argument)
    if kind == "replicate" and argument.isdigit() and 1 <= int(argument) <= MAX_REPLICAS:
        return Hint(kind, replicas=int(argument))
    raise ValueError(
        f"bad placement hint {text!r}: use local, scatter, collocate:GROUP or replicate:K (1 <= K <= {MAX_REPLICAS})"
    )


@dataclass(frozen=True)
class Plan:
    """Where the chunks of one file go: chunk i → `nodes[(start + i*stride + j) % len(nodes)]`, j < copies."""

    hint: str
    nodes: tuple[str, ...]
    copies: int
    start: int = 0
    stride: int = 1

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Plan:
        return cls(str(data["hint"]), tuple(data["nodes"]), int(data["copies"]),  # type: ignore[arg-type]
                   int(data.get("start", 0)), int(data.get("stride", 1)))  # type: ignore[arg-type]


def chunk_nodes(plan: Plan, index: int) -> list[str]:
    """The nodes (replicas) that get chunk `index`."""
    count = len(plan.nodes)
    first = plan.start + index * plan.stride
    return [plan.nodes[(first + copy) % count] for copy in range(min(plan.copies, count))]


def for_another_file(plan: Plan) -> Plan:
    """`plan` for another file of the same directory and writer: one that stripes over several
    nodes starts at a random one of them, as the manager's plan for that file would."""
    if plan.copies != 1 or plan.stride != 1 or len(plan.nodes) < 2:
        return plan
    return replace(plan, start=random.randrange(len(plan.nodes)))


def make_plan(hint: Hint, writer: str, live: dict[str, int], group_node: str | None = None) -> Plan:
    """A plan for a file written on node `writer`, given live benefactors (node → free bytes).

    `group_node` is the node already chosen for a `collocate` group (the caller
    picks and remembers it with `choose_group_node`). Raises LookupError when
    no benefactor is alive.
    """
    if not live:
        raise LookupError("no live benefactor")
    nodes = sorted(live)
    if hint.kind == "local" and writer in live:
        return Plan(str(hint), (writer,), 1)
    if hint.kind == "collocate" and group_node in live:
        return Plan(str(hint), (group_node,), 1)  # type: ignore[arg-type]
    if hint.kind == "replicate":
        # Whole copies: the writer's node first, then the nodes with the most free space.
        others = sorted((node for node in nodes if node != writer), key=lambda node: (-live[node], node))
        ordered = ([writer] if writer in live else []) + others
        copies = min(hint.replicas, len(ordered))
        return Plan(str(hint), tuple(ordered[:copies]), copies, 0, 0)
    return Plan(str(hint), tuple(nodes), 1, random.randrange(len(nodes)))


def choose_group_node(live: dict[str, int], groups_per_node: dict[str, int]) -> str:
    """The node for a new collocation group: fewest groups so far, then most free space."""
    if not live:
        raise LookupError("no live benefactor")
    return min(live, key=lambda node: (groups_per_node.get(node, 0), -live[node], node))


def holders(chunks: list[list[object]]) -> list[str]:
    """Nodes holding a file's chunks, most chunks first (the `user.mosastore.location` value)."""
    counts: dict[str, int] = {}
    for chunk in chunks:
        for node in chunk[1]:  # type: ignore[union-attr]
            counts[node] = counts.get(node, 0) + 1  # type: ignore[index]
    return sorted(counts, key=lambda node: (-counts[node], node))
