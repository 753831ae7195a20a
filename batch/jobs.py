"""The record `submit` keeps of each job: `.swiftcloud/jobs/<id>.json` in the submitting directory.

`swiftcloud jobs` lists these records and `swiftcloud cancel ID` finds its job
through them; each names the executor, the batch system's job id, the script
and the run directory the job writes, and the last state seen.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import asdict, dataclass

from engine.errors import UsageError

JOBS_DIR = os.path.join(".swiftcloud", "jobs")
_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]+$")


@dataclass
class JobRecord:
    """One submitted run."""

    id: str
    executor: str
    script: str
    args: list[str]
    run_dir: str
    submitted: float
    state: str = "QUEUED"
    exit_code: int | None = None

    @property
    def final(self) -> bool:
        return self.state in ("COMPLETED", "FAILED", "CANCELED")


def jobs_dir(base: str = ".") -> str:
    path = os.path.join(os.path.abspath(base), JOBS_DIR)
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def save(record: JobRecord, base: str = ".") -> None:
    if not _SAFE_ID.match(record.id):
        raise UsageError(f"the batch system returned an unusable job id {record.id!r}")
    path = os.path.join(jobs_dir(base), f"{record.id}.json")
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        json.dump(asdict(record), handle, indent=2)
    os.replace(path + ".tmp", path)


def load(job_id: str, base: str = ".") -> JobRecord:
    """The record of job `job_id`, or a UsageError naming the jobs known here."""
    if not _SAFE_ID.match(job_id):
        raise UsageError(f"not a job id: {job_id!r}")
    path = os.path.join(jobs_dir(base), f"{job_id}.json")
    try:
        with open(path, encoding="utf-8") as handle:
            return JobRecord(**json.load(handle))
    except FileNotFoundError:
        known = ", ".join(r.id for r in all_records(base)) or "none"
        raise UsageError(f"no job {job_id} was submitted from this directory (jobs: {known})") from None
    except (OSError, ValueError, TypeError) as error:
        raise UsageError(f"unreadable job record {path}: {error}") from None


def all_records(base: str = ".") -> list[JobRecord]:
    """Every job submitted from `base`, oldest first."""
    records = []
    for name in os.listdir(jobs_dir(base)):
        if name.endswith(".json"):
            try:
                records.append(load(name[:-5], base))
            except UsageError:
                continue  # an unreadable record is not worth failing the listing for
    return sorted(records, key=lambda r: r.submitted)


def age(record: JobRecord) -> str:
    seconds = int(time.time() - record.submitted)
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m" if seconds >= 3600 else f"{seconds // 60}m{seconds % 60:02d}s"
