"""`submit --storage mosastore|hdfs|chirp`: the job brings its own store up on its nodes.

Against the trial Slurm (conftest.py): the store's daemons and mounts start as a step
of the job, the run uses them, its results come back to the submitting directory, and
when the job ends no mount, daemon, node-local directory or job process is left.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import psutil
import pytest

from batch.job_store import node_dir_for
from engine.observe.runlog import read_events
from hostkit.records import ServiceRecord
from storage_adapters.chirp.service import data_directory
from tests.batch.trial import FAILING, PIPELINE, digests, job_processes, naps, swiftcloud

GLOBBED = """
app (file o) count (file i) { "wc" "-l" @stdin=i @stdout=o }
file inputs[] = glob("data/*.txt");
foreach f, i in inputs {
  file o <sprintf("out/count-%i.txt", i)> = count(f);
}
"""


def fuse_mounts() -> list[str]:
    return [line for line in Path("/proc/mounts").read_text().splitlines() if " fuse." in line]


def assert_store_gone(record: ServiceRecord, run_dir: Path) -> None:
    """Nothing of the job's store is left: mounts, node directory, daemons, job processes."""
    assert not [line for line in fuse_mounts() if "swiftcloud-job-" in line]
    assert not Path(node_dir_for(str(run_dir))).exists()
    assert job_processes(record) == []
    for process in psutil.process_iter(["cmdline"]):
        assert str(run_dir) not in " ".join(process.info["cmdline"] or []), process


def submitted_run(stdout: str, work: Path) -> Path:
    return work / re.search(r"run directory (\S+)", stdout).group(1)


@pytest.mark.parametrize("store", ["mosastore", "hdfs", "chirp"])
def test_a_job_brings_its_store_up_and_copies_the_results_back(
        slurm: tuple[ServiceRecord, Path], tmp_path: Path, store: str) -> None:
    record, state = slurm
    reference = tmp_path / "local"
    reference.mkdir()
    assert swiftcloud("run", str(PIPELINE), "--lines=3000", cwd=reference, state=state).returncode == 0
    work = tmp_path / "submitted"
    work.mkdir()
    done = swiftcloud("submit", "-m", "slurm", "-n", "3", "--storage", store, "--wait", str(PIPELINE),
                      "--lines=3000", cwd=work, state=state)
    assert done.returncode == 0, done.stderr
    assert digests(work) == digests(reference)
    run_dir = submitted_run(done.stdout, work)
    table = json.loads((run_dir / "store" / "ready.json").read_text())["table"]
    assert table["backend"] == store and table["mount_path"].startswith(node_dir_for(str(run_dir)))
    assert f"[storage.{store}]" in (run_dir / "store" / "swiftcloud.toml").read_text()
    events = read_events(str(run_dir))
    assert events[-1]["event"] == "run_end" and events[-1]["exit_status"] == 0
    assert "copied 3 files" in (run_dir / "job.err").read_text()
    assert_store_gone(record, run_dir)
    if store == "chirp":  # a root-started server keeps its files outside the node directory
        assert not Path(data_directory(node_dir_for(str(run_dir)), "node0")).parent.exists()


def test_stage_in_loads_what_the_workflow_globs(slurm: tuple[ServiceRecord, Path], tmp_path: Path) -> None:
    record, state = slurm
    (tmp_path / "count.swift").write_text(GLOBBED)
    (tmp_path / "data").mkdir()
    lines = {name: count for name, count in (("a", 3), ("b", 7), ("c", 11))}
    for name, count in lines.items():
        (tmp_path / "data" / f"{name}.txt").write_text("x\n" * count)
    done = swiftcloud("submit", "-n", "3", "--storage", "mosastore", "--stage-in", "data", "--wait", "count.swift",
                      cwd=tmp_path, state=state)
    assert done.returncode == 0, done.stderr
    counts = sorted(int((tmp_path / "out" / f"count-{i}.txt").read_text()) for i in range(3))
    assert counts == [3, 7, 11]
    assert "copied 3 files" in (submitted_run(done.stdout, tmp_path) / "job.err").read_text()  # not data/ again
    assert_store_gone(record, submitted_run(done.stdout, tmp_path))


def test_a_failing_task_in_a_job_with_its_own_store(slurm: tuple[ServiceRecord, Path], tmp_path: Path) -> None:
    record, state = slurm
    (tmp_path / "fail.swift").write_text(FAILING)
    done = swiftcloud("submit", "-n", "3", "--storage", "mosastore", "--wait", "fail.swift", cwd=tmp_path,
                      state=state)
    assert done.returncode == 1
    assert "app function 'bad'" in done.stderr and "step 7 broke" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "bad.txt").exists()
    assert_store_gone(record, submitted_run(done.stdout, tmp_path))


def test_cancel_ends_the_run_and_takes_the_store_down(slurm: tuple[ServiceRecord, Path], tmp_path: Path) -> None:
    record, state = slurm
    (tmp_path / "naps.swift").write_text(naps(str(tmp_path / "started-")))
    submitted = swiftcloud("submit", "-n", "3", "--storage", "mosastore", "naps.swift", cwd=tmp_path, state=state)
    assert submitted.returncode == 0, submitted.stderr
    job_id = re.search(r"submitted job (\d+)", submitted.stdout).group(1)
    run_dir = submitted_run(submitted.stdout, tmp_path)
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"started-{i}").exists() for i in (1, 2)):
        assert time.monotonic() < deadline, "the job's apps never started"
        time.sleep(0.1)
    assert [line for line in fuse_mounts() if node_dir_for(str(run_dir)) in line]
    cancelled = swiftcloud("cancel", job_id, cwd=tmp_path, state=state)
    assert cancelled.returncode == 0 and f"job {job_id} canceled" in cancelled.stdout, cancelled.stderr
    deadline = time.monotonic() + 30
    while job_processes(record) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert_store_gone(record, run_dir)
    assert "results are not copied back" in (run_dir / "job.err").read_text()


def test_a_store_that_cannot_start_fails_the_job_clearly(slurm: tuple[ServiceRecord, Path], tmp_path: Path) -> None:
    record, state = slurm
    (tmp_path / "swiftcloud.toml").write_text(
        '[submit.nojars]\nenvironment = { SWIFTCLOUD_HADOOP_LIB = "/nonexistent/hadoop" }\n')
    done = swiftcloud("submit", "-p", "nojars", "-n", "3", "--storage", "hdfs", "--wait", str(PIPELINE),
                      cwd=tmp_path, state=state)
    assert done.returncode == 1
    assert "the hdfs store did not come up" in done.stderr and "/nonexistent/hadoop" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()
    assert_store_gone(record, submitted_run(done.stdout, tmp_path))


def test_without_slurm_the_local_executor_brings_the_store_up_too(tmp_path: Path) -> None:
    state = tmp_path / "state"
    reference = tmp_path / "local"
    reference.mkdir()
    assert swiftcloud("run", str(PIPELINE), cwd=reference, state=state).returncode == 0
    work = tmp_path / "work"
    work.mkdir()
    done = swiftcloud("submit", "-m", "local", "-n", "3", "--storage", "mosastore", str(PIPELINE), cwd=work,
                      state=state)
    assert done.returncode == 0, done.stderr
    assert digests(work) == digests(reference)
    run_dir = submitted_run(done.stdout, work)
    assert not [line for line in fuse_mounts() if "swiftcloud-job-" in line]
    assert not Path(node_dir_for(str(run_dir))).exists()


def test_what_submit_refuses_about_job_stores(tmp_path: Path) -> None:
    state = tmp_path / "state"
    (tmp_path / "swiftcloud.toml").write_text('[storage.mosastore]\nmount_path = "/somewhere"\n'
                                              '[submit.relative]\nstore_dir = "scratch"\n')
    for args, message in (
            (["-m", "local", "-p", "relative", "--storage", "hdfs"], "must be an absolute path"),
            (["-m", "pbs", "--storage", "hdfs"], "inside a pbs job is not supported"),
            (["-m", "local", "--storage", "mosastore", "--stage-in", "data"], "--stage-in loads files into a store"),
            (["-m", "local", "--storage", "hdfs", "--stage-in", "missing"], "--stage-in missing: not an existing"),
            (["-m", "local", "--storage", "hdfs", "--stage-in", "/etc"], "--stage-in /etc: not an existing")):
        bad = swiftcloud("submit", *args, str(PIPELINE), cwd=tmp_path, state=state)
        assert bad.returncode == 2 and message in bad.stderr, (args, bad.stderr)
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())
