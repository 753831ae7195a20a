"""`swiftcloud study` end to end: the workflows part on two stores of a real emulated cluster
(BLAST, EnergyPlus, staged vs shared, stream vs copy), its results directory, and nothing
left behind; and the command's refusals."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from cluster.launch import without_node_names
from cluster.state import cluster_dir, tag_for
from study.claims import CHECKS
from study.workflows import WorkflowOptions

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


def study(*words: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**without_node_names(os.environ), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "swiftcloud", "study", *words], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=1800)


@pytest.fixture(scope="module")
def quick_workflows(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    out = tmp_path_factory.mktemp("study") / "results"
    done = study("--quick", "--parts", "workflows", "--stores", "local,s3,s3fs", "--out", str(out), cwd=ROOT)
    return out, done


def test_the_workflows_part_runs_every_workflow_on_every_store(quick_workflows: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, done = quick_workflows
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((out / "study.json").read_text())
    assert results["mode"] == "quick" and results["errors"] == {}
    part = results["parts"]["workflows"]
    repeats = part["repeats"]
    assert repeats == WorkflowOptions.quick().repeats
    assert part["headroom"]["repeats"] == 2 * 3 * repeats  # two workflows on three stores
    for workflow in ("blast", "energyplus"):
        records = part["workflows"][workflow]
        assert set(records) == {"local", "s3", "s3fs"}
        counts = set()
        for store, record in records.items():
            assert [run["repeat"] for run in record["runs"]] == list(range(1, repeats + 1))
            assert record["samples"] == [run["summary"]["makespan_s"] for run in record["runs"]]
            assert record["saturated"] == [run["cpu"]["saturated"] for run in record["runs"]]
            for run in record["runs"]:
                assert run["error"] is None, (workflow, store, run["error"])
                events = [json.loads(line) for line in Path(run["run_dir"], "events.jsonl").read_text().splitlines()]
                ends = [event for event in events if event["event"] == "end"]
                assert run["summary"]["tasks"] == len(ends) and all(event["status"] == "ok" for event in ends)
                assert set(run["summary"]["nodes"]) == {"node1", "node2"}  # the two quick workers, home region
                counts.add(len(ends))
                apps = [event for event in ends if event["kind"] == "app"]
                # Every app task says where its time went; staged S3 moved bytes in and out.
                assert apps and all({"stage_in_s", "run_s", "stage_out_s"} <= set(event) for event in apps)
                if store == "s3":
                    assert run["summary"]["stage_in_s_total"] > 0 and run["summary"]["bytes_in"] > 0
        assert len(counts) == 1, counts  # the same workflow has the same tasks on every store
    # The same BLAST hits on every store (the workflow's own summary line, in each run's output).
    lines = {store: re.search(r"(\d+) hits for (\d+) queries", (out / "workflows" / "runs" / f"blast-{store}-r1.log")
                              .read_text()).groups() for store in ("local", "s3", "s3fs")}
    assert len(set(lines.values())) == 1, lines
    pair = part["staged_vs_shared"]["s3"]
    assert pair["shared_store"] == "s3fs"
    assert pair["staged"]["samples"] == part["workflows"]["blast"]["s3"]["samples"]
    assert pair["shared"]["samples"] == part["workflows"]["blast"]["s3fs"]["samples"]
    stream = part["stream_vs_copy"]
    assert {mode: stream[mode]["label_summary"]["tasks"] for mode in ("copy", "stream")} == {"copy": 2, "stream": 2}
    # Stream staging starts each digest before its download ends: its stage-in is shorter.
    assert stream["stream"]["label_summary"]["mean_stage_in_s"] < stream["copy"]["label_summary"]["mean_stage_in_s"]


def test_the_results_directory_holds_every_figure_and_the_claims(quick_workflows: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, done = quick_workflows
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((out / "study.json").read_text())
    figures = results["parts"]["workflows"]["figures"]
    expected = {f"{w}_{kind}.png" for w in ("blast", "energyplus") for kind in ("completion", "makespan")}
    expected |= {f"{w}_{kind}_{s}.png" for w in ("blast", "energyplus") for s in ("local", "s3", "s3fs")
                 for kind in ("trace", "queue")}
    expected |= {"staged_vs_shared.png", "stream_vs_copy.png"}
    assert set(figures) == expected
    page = (out / "index.html").read_text()
    for figure in figures:
        assert (out / "workflows" / figure).read_bytes().startswith(PNG)
        assert f"src='workflows/{figure}'" in page
    timelines = results["parts"]["workflows"]["timelines"]
    runs = [run for workflow in results["parts"]["workflows"]["workflows"].values() for record in workflow.values()
            for run in record["runs"]]
    assert len(timelines) == len({run["tag"] for run in runs}) + 2  # and the stream workflow's two runs
    for timeline in timelines:
        assert "<script>" in (out / "workflows" / timeline).read_text() and f"href='workflows/{timeline}'" in page
    claims = (out / "claims.md").read_text()
    assert claims.count("\n### ") == len(CHECKS) and "MosaStore finishes workflows" in claims
    assert len(results["claims"]) == len(CHECKS)
    assert "S3 is the most variable" in done.stdout and "index.html" in done.stdout


def test_the_study_leaves_no_cluster_behind(quick_workflows: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, done = quick_workflows
    tag = tag_for(cluster_dir(str(out / "state")))
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    assert not [line for line in listed.splitlines() if line.startswith(tag)]
    assert not (out / "state").exists()
    for process in psutil.process_iter(["cmdline"]):
        assert str(out / "state") not in " ".join(process.info["cmdline"] or []), process
    with open("/proc/self/mountinfo") as table:
        assert str(out) not in table.read()


@pytest.mark.parametrize("words, message", [
    (["--stores", "s3,nfs"], "--stores: unknown nfs; choose from local, s3, s3fs, mosastore, hdfs, chirp"),
    (["--parts", "figs"], "--parts: unknown figs"),
    (["--quick", "--full"], "not allowed with argument"),
])
def test_bad_arguments_are_refused_before_anything_starts(words: list[str], message: str, tmp_path: Path) -> None:
    done = study(*words, "--out", str(tmp_path / "results"), cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "results" / "state").exists()
