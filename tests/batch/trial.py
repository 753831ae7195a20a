"""What the batch tests share: the CLI as a user calls it, and what runs in the trial Slurm."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import psutil

from cluster import netns
from hostkit.records import ServiceRecord

ROOT = Path(__file__).resolve().parents[2]
PIPELINE = ROOT / "examples" / "file_pipeline.swift"
OUTPUTS = ("out/numbers.txt", "out/labelled.txt", "out/labelled.sha256")
FAILING = """
app (file o) bad(int i) { "sh" "-c" "echo 'step' $1 'broke' >&2; exit 1" "x" i @stdout=o }
file f <"out/bad.txt"> = bad(7);
"""


def naps(marker: str) -> str:
    """Two apps that write their PID to `marker`1 and `marker`2, then sleep for 5 minutes."""
    return ("app (void o) nap(string marker) { \"sh\" \"-c\" \"echo $$ > \\\"$1\\\"; exec sleep 300\" \"x\" marker }\n"
            f'foreach i in [1:2] {{ nap("{marker}" + i); }}\n')


def swiftcloud(*args: str, cwd: Path, state: Path, timeout: float = 180,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "SWIFTCLOUD_STATE_DIR": str(state), **(env or {})}
    return subprocess.run([sys.executable, "-m", "swiftcloud", *args], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=timeout)


def digests(directory: Path, paths: tuple[str, ...] = OUTPUTS) -> dict[str, str]:
    return {p: hashlib.sha256((directory / p).read_bytes()).hexdigest() for p in paths}


def job_processes(record: ServiceRecord) -> list[str]:
    """What runs in the namespace besides the daemons: the jobs' processes."""
    daemons = {record.pid, *record.info["daemons"].values()}
    names = []
    for pid in netns.pids(record.info["namespace"]):
        try:
            process = psutil.Process(pid)
            if pid not in daemons and process.status() != psutil.STATUS_ZOMBIE and process.name() != "slurmscriptd":
                names.append(f"{pid} {process.name()}")
        except psutil.Error:
            continue
    return names


def completed_jobs(record: ServiceRecord) -> dict[str, str]:
    """Slurm's own job completion log: job id -> its line."""
    log = Path(record.info["conf"]).parent / "log" / "jobs.txt"
    lines = log.read_text().splitlines() if log.exists() else []
    return {re.search(r"JobId=(\d+)", line).group(1): line for line in lines}
