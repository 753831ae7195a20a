"""timeline.html in a real headless Chromium, and trace.json, for a real run of 30 app tasks.

The expected tasks and phases are read straight from the run's events.jsonl,
not through the report's own loader.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.marked import left_after

ROOT = Path(__file__).resolve().parents[2]
MARK = "SWIFTCLOUD_TEST_BROWSER"
TASKS = 30
WORKFLOW = ('app (file o) count (int i) { "seq" i @stdout=o }\n'
            f'foreach i in [1:{TASKS}] {{\n  file f <sprintf("out/f%i.txt", i)> = count(i);\n}}\n')
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--virtual-time-budget=5000"]


class TaskElements(HTMLParser):
    """Collects every element whose class list holds `task`, and the phases of its rectangles."""

    def __init__(self) -> None:
        super().__init__()
        self.tasks: dict[int, dict[str, Any]] = {}
        self.current: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if "task" in classes:
            task = int(attributes["data-task"] or "")
            assert task not in self.tasks, f"task {task} drawn twice"
            self.tasks[task] = {"label": attributes.get("data-label"), "phases": []}
            self.current = task
        elif "seg" in classes and self.current is not None:
            self.tasks[self.current]["phases"].append(attributes.get("data-phase"))


def _swiftcloud(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "swiftcloud", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def _dump_dom(chromium: str, page: Path) -> str:
    """The page's DOM after its scripts ran; the browser is ended by its own PID (and process group)."""
    profile = tempfile.mkdtemp(prefix="swiftcloud-chromium-")
    mark = uuid.uuid4().hex
    browser = subprocess.Popen([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom",
                                page.as_uri()], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env={**os.environ, MARK: mark}, start_new_session=True)
    try:
        dom, _ = browser.communicate(timeout=120)
        assert browser.returncode == 0, f"chromium exited with {browser.returncode}"
        return dom
    finally:
        if browser.poll() is None:
            os.killpg(browser.pid, signal.SIGKILL)
            browser.wait()
        leftover = left_after(MARK, mark, timeout=20)
        for process in leftover:
            process.kill()
        shutil.rmtree(profile, ignore_errors=True)
        assert not leftover, f"chromium processes left behind: {[p.pid for p in leftover]}"


def test_timeline_draws_every_task_of_a_real_run(tmp_path: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed (setup.d/55-browser.sh installs it)")
    (tmp_path / "many.swift").write_text(WORKFLOW)
    run = _swiftcloud("run", "-n", "3", "--transport", "local", "--run-dir", "r", "many.swift", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    report = _swiftcloud("report", "r", cwd=tmp_path)
    assert report.returncode == 0, report.stderr

    records = [json.loads(line) for line in (tmp_path / "r" / "events.jsonl").read_text().splitlines()]
    submitted = {r["task"] for r in records if r["event"] == "submit"}
    ends = {r["task"]: r for r in records if r["event"] == "end"}
    assert len(ends) == TASKS
    expected_phases = {task: (["wait"] if task in submitted else []) + [
        phase for phase in ("stage_in", "run", "stage_out") if phase == "run" or f"{phase}_s" in end]
        for task, end in ends.items()}

    page = tmp_path / "r" / "timeline.html"
    text = page.read_text()
    assert "<link" not in text and " src=" not in text  # self-contained: nothing fetched
    assert text.count("http") == text.count("http://www.w3.org/2000/svg")
    elements = TaskElements()
    elements.feed(_dump_dom(chromium, page))
    assert sorted(elements.tasks) == sorted(ends)
    for task, drawn in elements.tasks.items():
        assert drawn["label"] == ends[task]["label"]
        assert drawn["phases"] == expected_phases[task], task

    trace = json.loads((tmp_path / "r" / "trace.json").read_text())
    phases = sorted((e["args"]["task"], e["cat"]) for e in trace["traceEvents"] if e["ph"] == "X")
    assert phases == sorted((task, phase) for task, names in expected_phases.items() for phase in names)
