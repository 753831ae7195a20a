"""Submission settings: a `[submit.NAME]` profile in swiftcloud.toml under the command line's flags.

    [submit.campus]
    executor = "slurm"          # -m: slurm, pbs, lsf, cobalt, flux or local
    processes = 33              # -n: the engine and 32 workers
    time = "02:00:00"           # --time
    queue = "normal"            # --queue
    account = "proj123"         # --account
    storage = "mosastore"       # --storage
    stage_in = ["data"]         # --stage-in: loaded into a store the job brings up
    store_dir = "/local/scratch"  # node-local directory for that store's data (default /tmp)
    modules = ["gcc/12", "blast+/2.14"]   # `module load`ed before the run starts
    environment = { OMP_NUM_THREADS = "1" }
    poll_seconds = 10           # how often the queue is asked about the job

A flag given on the command line wins over the profile's value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from datetime import timedelta
from typing import Any

from engine.errors import UsageError

EXECUTORS = ("slurm", "pbs", "lsf", "cobalt", "flux", "local")
DEFAULT_TIME = "01:00:00"
DEFAULT_POLL_S = 2.0  # PSI/J's own default is 30 s: too slow to follow a run interactively
_TIME = re.compile(r"^(?:(?P<days>\d+)-)?(?:(?P<h>\d+):)?(?P<m>\d+):(?P<s>\d{2})$")


@dataclass
class SubmitSettings:
    """Everything `submit` needs besides the script and its arguments."""

    executor: str = "slurm"
    processes: int = 3
    time: str = DEFAULT_TIME
    queue: str | None = None
    account: str | None = None
    storage: str | None = None
    stage_in: list[str] = field(default_factory=list)
    store_dir: str = "/tmp"
    modules: list[str] = field(default_factory=list)
    environment: dict[str, str] = field(default_factory=dict)
    poll_seconds: float = DEFAULT_POLL_S

    def duration(self) -> timedelta:
        return parse_time(self.time)


def parse_time(text: str) -> timedelta:
    """A walltime as Slurm writes it: [D-][HH:]MM:SS."""
    match = _TIME.match(text.strip())
    if match is None:
        raise UsageError(f"--time {text!r}: expected HH:MM:SS, MM:SS or D-HH:MM:SS")
    parts = {k: int(v) for k, v in match.groupdict(default="0").items()}
    duration = timedelta(days=parts["days"], hours=parts["h"], minutes=parts["m"], seconds=parts["s"])
    if duration <= timedelta(0):
        raise UsageError(f"--time {text!r}: the walltime must be more than zero")
    return duration


def resolve(config: dict[str, Any], profile: str | None, flags: dict[str, Any]) -> SubmitSettings:
    """The profile's settings (if one is named) with the flags that were given on top."""
    settings = SubmitSettings()
    if profile is not None:
        table = config.get("submit", {}).get(profile)
        if not isinstance(table, dict):
            known = ", ".join(sorted(config.get("submit", {}))) or "none"
            raise UsageError(f"no [submit.{profile}] profile in swiftcloud.toml (profiles: {known})")
        _apply(settings, table, f"[submit.{profile}]")
    _apply(settings, {k: v for k, v in flags.items() if v is not None}, "the command line")
    if settings.executor not in EXECUTORS:
        raise UsageError(f"unknown executor {settings.executor!r}; choose one of {', '.join(EXECUTORS)}")
    if settings.processes < 2:
        raise UsageError("-n needs at least 2 processes (1 engine + 1 worker)")
    if settings.poll_seconds <= 0:
        raise UsageError("poll_seconds must be more than 0")
    settings.duration()  # a bad walltime fails before anything is submitted
    return settings


def _apply(settings: SubmitSettings, values: dict[str, Any], where: str) -> None:
    kinds = {f.name: f.type for f in fields(SubmitSettings)}
    for key, value in values.items():
        if key not in kinds:
            raise UsageError(f"{where}: unknown setting {key!r} (settings: {', '.join(kinds)})")
        expected = {"processes": int, "poll_seconds": (int, float), "modules": list, "stage_in": list,
                    "environment": dict}.get(key, str)
        if not isinstance(value, expected) or isinstance(value, bool):
            raise UsageError(f"{where}: {key} has the wrong type ({type(value).__name__})")
        if key in ("modules", "stage_in") and not all(isinstance(m, str) for m in value):
            raise UsageError(f"{where}: {key} must be a list of strings")
        if key == "environment":
            value = {str(k): str(v) for k, v in value.items()}
        setattr(settings, key, value)
