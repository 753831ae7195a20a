"""The MosaStore client's kept placement plans: per directory, hint and writer, while fresh; a
striped plan starts each file at a node of its own; a hint change drops them all."""

from __future__ import annotations

import pytest

from mosastore.client import plans as plans_module
from mosastore.client.plans import Plans
from mosastore.placement import Plan, for_another_file

STRIPED = Plan("scatter", ("n1", "n2", "n3", "n4"), 1, 2)


def test_a_plan_is_kept_per_directory_hint_and_writer() -> None:
    kept = Plans(timeout=3600)
    local = Plan("local", ("n2",), 1)
    kept.put(7, "", "n2", local)
    assert kept.get(7, "", "n2") == local
    assert kept.get(8, "", "n2") is None and kept.get(7, "local", "n2") is None and kept.get(7, "", "n1") is None


def test_nothing_older_than_the_timeout_is_answered() -> None:
    kept = Plans(timeout=0.0)
    kept.put(7, "", "n1", STRIPED)
    assert kept.get(7, "", "n1") is None


def test_a_hint_changed_anywhere_drops_every_plan() -> None:
    kept = Plans(timeout=3600)
    kept.put(7, "", "n1", STRIPED)
    kept.put(9, "replicate:2", "n1", Plan("replicate:2", ("n1", "n3"), 2, 0, 0))
    kept.clear()
    assert kept.get(7, "", "n1") is None and kept.get(9, "replicate:2", "n1") is None


def test_a_striped_plan_starts_each_file_at_a_node_of_its_own() -> None:
    starts = {for_another_file(STRIPED).start for _ in range(200)}
    assert starts == {0, 1, 2, 3}  # every node, as the manager's random start: 4 * 0.75**200 to miss one
    others = {for_another_file(STRIPED) for _ in range(20)}
    assert {(plan.hint, plan.nodes, plan.copies, plan.stride) for plan in others} == {("scatter", STRIPED.nodes, 1, 1)}


@pytest.mark.parametrize("plan", [Plan("local", ("n2",), 1), Plan("collocate:g", ("n3",), 1),
                                  Plan("replicate:3", ("n1", "n2", "n4"), 3, 0, 0)])
def test_plans_that_name_their_nodes_stay_as_they_are(plan: Plan) -> None:
    assert for_another_file(plan) == plan


def test_stale_entries_make_room(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plans_module, "LIMIT", 3)
    kept = Plans(timeout=0.0)
    for directory in range(10):
        kept.put(directory, "", "n1", STRIPED)
    assert len(kept) <= 3
