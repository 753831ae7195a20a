"""What the zygote forks a stub's rank as, read from the command the stub would run itself
(engine.scheduler.zygote): a worker rank, the engine (rank 0), or nothing it runs."""

from __future__ import annotations

import sys

import pytest

from engine.scheduler import zygote
from engine.scheduler.launch import rank_commands, worker_rank_command


def test_a_worker_ranks_command_makes_a_worker() -> None:
    assert zygote.engine_words(worker_rank_command()) is None


def test_rank_0s_command_makes_the_engine_with_its_words() -> None:
    words = rank_commands(3, ["-n", "3", "a.swift", "--x=1"])
    engine = words[2:words.index(":")]  # after "-n 1"
    assert zygote.engine_words(engine) == ["run", "--mpi", "-n", "3", "a.swift", "--x=1"]


@pytest.mark.parametrize("command", [
    [sys.executable, "-m", "swiftcloud", "study"],  # not a run's rank 0
    [sys.executable, "-m", "swiftcloud", "run", "a.swift"],  # would start a job of its own
    ["/bin/sh", "-c", "echo"],
    [sys.executable, "-m", "engine.scheduler.launch_worker", "extra"],
    [],
])
def test_any_other_command_is_turned_away_for_its_stub_to_run_itself(command: list[str]) -> None:
    with pytest.raises(ValueError):
        zygote.engine_words(command)
