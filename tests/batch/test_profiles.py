"""Submission settings: a [submit.NAME] profile under the command line's flags, checked early."""

from __future__ import annotations

from datetime import timedelta

import pytest

from batch.profiles import parse_time, resolve
from engine.errors import UsageError

CONFIG = {"submit": {"campus": {"executor": "pbs", "processes": 33, "time": "1-02:00:00", "queue": "normal",
                                "modules": ["gcc/12"], "environment": {"OMP_NUM_THREADS": 1}}}}


def test_a_profile_gives_defaults_that_flags_override() -> None:
    settings = resolve(CONFIG, "campus", {"processes": 5, "queue": None})
    assert (settings.executor, settings.processes, settings.queue) == ("pbs", 5, "normal")
    assert settings.duration() == timedelta(days=1, hours=2)
    assert settings.modules == ["gcc/12"] and settings.environment == {"OMP_NUM_THREADS": "1"}


def test_without_a_profile_the_defaults_hold() -> None:
    settings = resolve({}, None, {})
    assert (settings.executor, settings.processes, settings.duration()) == ("slurm", 3, timedelta(hours=1))


@pytest.mark.parametrize("config, profile, flags, message", [
    ({}, "campus", {}, "no [submit.campus] profile"),
    ({"submit": {"x": {"walltime": "1:00"}}}, "x", {}, "unknown setting 'walltime'"),
    ({"submit": {"x": {"processes": "many"}}}, "x", {}, "processes has the wrong type"),
    ({"submit": {"x": {"modules": ["a", 3]}}}, "x", {}, "modules must be a list of strings"),
    ({}, None, {"executor": "condor"}, "unknown executor"),
    ({}, None, {"processes": 1}, "at least 2"),
    ({}, None, {"time": "soon"}, "expected HH:MM:SS"),
    ({}, None, {"time": "00:00"}, "more than zero"),
])
def test_bad_settings_are_refused_with_a_reason(config: dict, profile: str | None, flags: dict,
                                                message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("[", r"\[").replace("]", r"\]")):
        resolve(config, profile, flags)


def test_walltimes_in_slurms_forms() -> None:
    assert parse_time("45:00") == timedelta(minutes=45)
    assert parse_time("02:30:00") == timedelta(hours=2, minutes=30)
    assert parse_time("3-00:00:01") == timedelta(days=3, seconds=1)
