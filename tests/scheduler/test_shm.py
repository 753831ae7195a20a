"""Sweeping the MPICH segments that killed ranks leave in /dev/shm (hostkit/shm.py)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hostkit import shm

ROOT = Path(__file__).resolve().parents[2]

HOLD = """
import mmap, sys
with open(sys.argv[1], "r+b") as handle:
    mapped = mmap.mmap(handle.fileno(), 4096)
    print("mapped", flush=True)
    sys.stdin.read()
"""


# MPICH's own segment, and the one libfabric's shm provider keeps per rank (PID:N:N).
NAMES = {"mpich": lambda tag, index: f"mpich_shm_test{tag}{index}_0",
         "libfabric": lambda tag, index: f"{int(tag, 16)}{index}:0:0"}


@pytest.fixture(params=sorted(NAMES))
def segments(request: pytest.FixtureRequest) -> Iterator[dict[str, Path]]:
    tag, name_of = secrets.token_hex(4), NAMES[request.param]
    made = {name: Path("/dev/shm", name_of(tag, index)) for index, name in enumerate(("old", "mapped", "open", "new"))}
    # Young however long the test takes (dated an hour ahead): no sweep takes one before the
    # test has put it in use and aged it.
    hour_ahead = time.time() + 3600
    for path in made.values():
        path.write_bytes(b"\0" * 4096)
        os.utime(path, (hour_ahead, hour_ahead))
    yield made
    for path in made.values():
        path.unlink(missing_ok=True)


def age(*paths: Path) -> None:
    """Make segments an hour old: past the sweep's grace, as a killed job's would be."""
    hour_ago = time.time() - 3600
    for path in paths:
        os.utime(path, (hour_ago, hour_ago))


def test_only_old_segments_nobody_uses_are_deleted(segments: dict[str, Path]) -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(segments["mapped"])], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    opener = subprocess.Popen(["sleep", "300"], stdin=open(segments["open"], "rb"))
    try:
        assert holder.stdout.readline() == "mapped\n"
        # A run under mpiexec in a test running beside this one sweeps too: the segments are
        # aged only once in use (that sweep took an aged one before the holder had mapped it),
        # and what is asserted is what the sweep leaves, not what this call removed.
        age(segments["old"], segments["mapped"], segments["open"])
        removed = shm.sweep()
        assert not segments["old"].exists()
        assert segments["mapped"].exists() and segments["open"].exists() and segments["new"].exists()
        assert not {str(segments[name]) for name in ("mapped", "open", "new")} & set(removed)
    finally:
        holder.communicate("")
        opener.kill()
        opener.wait()
    shm.sweep()
    assert not segments["mapped"].exists()  # once its process is gone
    assert segments["new"].exists()


# The supervisor of `run -n N`, run in a process of its own: it becomes a subreaper and kills
# every other child of its process once the job ends (here: the servers other tests started).
SUPERVISE = """
import os, sys
from engine.scheduler.supervise import run_job
orderly = "import os; open(os.environ['SWIFTCLOUD_MPI_STATUS'], 'w').write('orderly exit')"
sys.exit(run_job([sys.executable, "-c", orderly], dict(os.environ)))
"""


def test_a_run_under_our_mpiexec_sweeps_what_earlier_jobs_left(segments: dict[str, Path]) -> None:
    age(segments["old"])
    # A job that ends in order (as rank 0 marks it), so no sweep follows it: only the one before.
    supervised = subprocess.run([sys.executable, "-c", SUPERVISE], env={**os.environ, "PYTHONPATH": str(ROOT)},
                                capture_output=True, text=True, timeout=120)
    assert supervised.returncode == 0, supervised.stderr
    assert not segments["old"].exists() and segments["new"].exists()


def test_topology_files_go_once_no_proxy_could_read_them(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.scheduler.launch import venv_mpiexec

    left = Path(f"/tmp/hydra_hwloc_xmlfile_test{secrets.token_hex(4)}")
    try:
        mpiexec = venv_mpiexec()
        assert mpiexec is not None
        # A job whose one rank waits for the end of its input (mpiexec forwards ours to it).
        job = subprocess.Popen([mpiexec, "-n", "1", "cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while not shm.proxy_running():  # a job's proxy may still read its file
                assert time.monotonic() < deadline, "mpiexec started no proxy"
                time.sleep(0.05)
            # Made once the proxy runs: the sweep of a run in a test beside this one, with no
            # proxy running yet, would take it.
            left.write_text("<topology/>")
            assert str(left) not in shm.sweep() and left.exists()
        finally:
            job.communicate(b"")  # the rank reads the end of its input: the job ends in order
        assert job.returncode == 0
        # Without a proxy (another test's job may have one now: take that out of the question).
        # What is asserted is what the sweep leaves: a run's sweep beside this one may be first.
        monkeypatch.setattr(shm, "proxy_running", lambda: False)
        shm.sweep()
        assert not left.exists()
    finally:
        left.unlink(missing_ok=True)
