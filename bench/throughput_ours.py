"""Our side of the throughput benchmarks: the workflows as scripts, and how a run is timed.

Each workflow is a real script run with `swiftcloud run -n N` in a fresh
directory, as a user runs it. Three times come out of a run, the last two
read from the run's event log (`runs/.../events.jsonl`): the whole wall time
(interpreter start, compile, MPI start-up and shutdown included); the task
phase, from the first task's start on a worker to the last task's end, which
is what a warm reference (a process pool, xargs) is compared with; and the
same from the first task's submission, which also counts the workers'
warm-up (importing the task runner). Start-up on its own is the hello-world row.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hostkit.program import swiftcloud_command  # noqa: E402

PYTHON_NOOP = """\
import python;
int n = toint(argv("n"));
foreach i in [1:n] {
  string r = python("", "''");
}
"""

APP_TRUE = """\
app (void o) t (int i) { "/bin/true" i }
int n = toint(argv("n"));
foreach i in [1:n] {
  t(i);
}
"""

# Fan-out: n no-op leaves, each releasing one dependent leaf, then one reduce
# that needs every dependent's value.
FAN_OUT_IN = """\
import python;
import string;
int n = toint(argv("n"));
string first[];
string second[];
foreach i in [1:n] {
  first[i] = python("", "'%i'" % i);
  second[i] = python("", "'%s'" % first[i]);
}
string total = python("", "str(len('%s'.split()))" % string_join(second, " "));
"""

# 1 MB writers -> sha256 readers -> one merge, all apps; unmapped files live in $SWIFT_TMP.
FILE_PIPELINE = """\
app (file o) writer (file t) { "cp" @t @o }
app (file o) digest (file i) { "sha256sum" @i @stdout=o }
app (file o) merge (file d[]) { "cat" d @stdout=o }
int n = toint(argv("n"));
file template = input("template.dat");
file sums[];
foreach i in [1:n] {
  file data = writer(template);
  sums[i] = digest(data);
}
file merged <"merged.txt"> = merge(sums);
"""

HELLO = 'import io;\nprintf("hello world");\n'

# 32 tasks of 0.4 s: on 8 workers the ideal is 4 waves, 1.6 s.
SLEEP32 = """\
app (void o) nap (int i) { "sleep" "0.4" }
foreach i in [1:32] {
  nap(i);
}
"""


@dataclass(frozen=True)
class Timing:
    """One run of ours: whole wall time, task phase (from the first start, and from the
    first submission), and tasks counted in the event log."""

    wall_s: float
    phase_s: float
    from_submit_s: float
    tasks: int


def run_script(text: str, workdir: Path, processes: int, transport: str,
               args: tuple[str, ...] = (), timeout: float = 1800.0, cluster_state: str | None = None,
               cold: bool = False) -> Timing:
    """Run `text` with `swiftcloud run -n processes` in `workdir`; time it. With
    `cluster_state`, on the emulated cluster that is up there (`run --cluster`, MPI); with
    `cold`, compiled afresh (an empty compiled-script cache), as after an edit."""
    workdir.mkdir(parents=True, exist_ok=True)
    script = workdir / "bench.swift"
    script.write_text(text)
    run_dir = workdir / f"run-{time.monotonic_ns()}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SWIFT_TMP": str(workdir)}
    if cold:
        env["XDG_CACHE_HOME"] = tempfile.mkdtemp(dir=workdir, prefix="cache-")
    where = ("--transport", transport)
    if cluster_state is not None:
        env["SWIFTCLOUD_STATE_DIR"] = cluster_state
        where = ("--cluster",)
    command = swiftcloud_command("run", "-n", str(processes), *where, "--run-dir", str(run_dir), script.name, *args)
    started = time.perf_counter()
    result = subprocess.run(command, cwd=workdir, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, timeout=timeout,
                            stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"swiftcloud run failed ({result.returncode}): {result.stderr[-2000:]}")
    return phase_of(run_dir, wall)


def phase_of(run_dir: Path, wall: float) -> Timing:
    """The task phase of a run from its event log: first start (and first submission)
    to last end."""
    first_submit = first_start = float("inf")
    last_end = 0.0
    tasks = 0
    with open(run_dir / "events.jsonl", encoding="utf-8") as log:
        for line in log:
            event = json.loads(line)
            if event["event"] == "submit":
                first_submit = min(first_submit, event["time"])
            elif event["event"] == "start":
                first_start = min(first_start, event["time"])
            elif event["event"] == "end":
                last_end = max(last_end, event["time"])
                tasks += 1
                if event["status"] != "ok":
                    raise RuntimeError(f"a benchmark task failed: {event}")
    if not tasks:
        return Timing(wall, 0.0, 0.0, 0)
    return Timing(wall, max(last_end - first_start, 1e-9), last_end - first_submit, tasks)
