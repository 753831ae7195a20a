"""Policy pieces on their own: ready queue order, estimates, backoff, placement verdicts."""

from __future__ import annotations

import random

from engine.scheduler.dispatch import Locator
from engine.scheduler.policy import (
    Affinity, Backoff, DurationEstimates, Placement, ReadyQueue, Verdict,
)
from engine.task.contract import Task


def test_ready_queue_orders_by_priority_then_fifo_and_requeues_at_the_front() -> None:
    queue = ReadyQueue()
    for task_id, priority in [(0, 0), (1, 2), (2, 0), (3, 2), (4, -1)]:
        queue.push(task_id, priority)
    queue.push(9, 0, front=True)
    assert list(queue) == [1, 3, 9, 0, 2, 4] and len(queue) == 6
    popped = []
    for pair in queue.pop_in_order():
        popped.append(pair)
        if len(popped) == 4:
            break
    assert popped == [(2, 1), (2, 3), (0, 9), (0, 0)] and len(queue) == 2
    queue.restore([popped[0], popped[2]])
    assert list(queue) == [1, 9, 2, 4]


def test_duration_estimates_follow_a_moving_average_per_key() -> None:
    estimates = DurationEstimates(weight=0.5)
    assert estimates.get(("app", "f")) is None
    estimates.observe(("app", "f"), 1.0)
    estimates.observe(("app", "f"), 3.0)
    estimates.observe(("app", "g"), -1.0)  # clock skew never makes a negative estimate
    assert estimates.get(("app", "f")) == 2.0 and estimates.get(("app", "g")) == 0.0


def test_backoff_doubles_with_jitter_and_is_capped() -> None:
    backoff = Backoff(base_s=0.1, cap_s=1.0)
    rng = random.Random(3)
    for failures, low, high in [(1, 0.05, 0.15), (2, 0.1, 0.3), (3, 0.2, 0.6)]:
        assert all(low <= backoff.delay(failures, rng) <= high for _ in range(100))
    assert backoff.delay(10, rng) == 1.0
    again = [Backoff().delay(1, random.Random(5)) for _ in range(2)]
    assert again[0] == again[1]  # deterministic under an injected rng


def test_verdicts() -> None:
    placement = Placement(patience=2)
    on_n1 = Affinity(nodes=frozenset({"n1"}))
    assert placement.verdict(None, 0, 0, "n0", True) is Verdict.TAKE
    assert placement.verdict(on_n1, 0, 0, "n1", True) is Verdict.TAKE
    assert placement.verdict(on_n1, 1, 0, "n0", True) is Verdict.DEFER
    assert placement.verdict(on_n1, 2, 0, "n0", True) is Verdict.TAKE  # patience used up
    same_worker = Affinity(nodes=frozenset({"n1"}), worker=4)
    assert placement.verdict(same_worker, 0, 4, "n9", True) is Verdict.TAKE
    avoid = Affinity(avoid=4)
    assert placement.verdict(avoid, 0, 4, "n1", True) is Verdict.REFUSE
    assert placement.verdict(avoid, 0, 4, "n1", False) is Verdict.TAKE  # nobody else left
    assert placement.verdict(avoid, 0, 5, "n1", True) is Verdict.TAKE


def test_affinity_ignores_nodes_without_workers_and_locate_failures() -> None:
    def locate(path: str) -> list[str]:
        if path == "/broken":
            raise OSError("storage is down")
        return {"/a": ["n1", "far"], "/b": ["far"]}.get(path, [])

    locator, placement = Locator(locate), Placement()
    task = Task(0, "app", None, inputs=("/a", "/b", "/broken"))
    assert locator.locations(task) == (("/a", ("n1", "far")), ("/b", ("far",)))
    assert placement.affinity(locator.locations(task), {"n0", "n1"}) == Affinity(nodes=frozenset({"n1"}))
    assert placement.affinity(locator.locations(Task(1, "app", None, inputs=("/b",))), {"n0", "n1"}) is None
    assert Locator(None).locations(task) == ()


def test_retry_affinity_first_same_worker_then_elsewhere() -> None:
    base = Affinity(nodes=frozenset({"n3"}))
    assert Placement.retry_affinity(base, 1, 2, "n2") == Affinity(nodes=frozenset({"n2"}), worker=2)
    assert Placement.retry_affinity(base, 2, 2, "n2") == Affinity(nodes=frozenset({"n3"}), avoid=2)
    assert Placement.retry_affinity(None, 3, 2, "n2") == Affinity(avoid=2)
