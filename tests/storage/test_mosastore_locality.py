"""Data-aware placement end to end: tasks run where MosaStore keeps their inputs.

A real store (manager, 2 benefactors named node0 and node1, FUSE mount) runs
on 127.0.0.1; the workflow's first stage writes its files into a directory
whose placement hint is `local` (every chunk on the writer's node), and the
second stage consumes them. Four workers emulate the two nodes (`--nodes`), the
scheduler asks the store where each input lives, and the run log must show more
consuming tasks on a worker of the node holding their input than placement blind
to data reaches with probability 1e-4 (45 of 60 on two nodes; placement is a soft
preference with a locality wait, so a loaded machine moves a few tasks).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.storage.mosastore.locality import chance_bar, count_locality
from tests.storage.mosastore.stores import running_store

from mosastore.adapter import MosaStoreAdapter

ROOT = Path(__file__).resolve().parents[2]
TASKS = 60
WORKFLOW = f"""
app (file o) produce (int i) {{ "sh" "-c" "head -c 262144 /dev/urandom > \\"$0\\"" @o }}
app (file o) digest (file i) {{ "sha256sum" @i @stdout=o }}
foreach i in [1:{TASKS}] {{
  file part <sprintf("stage1/part_%i.dat", i)> = produce(i);
  file sum <sprintf("stage2/part_%i.sha", i)> = digest(part);
}}
"""


def test_consumers_run_on_the_node_holding_their_input(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with running_store(str(state), benefactors=2) as record:
        nodes = record.info["nodes"].split(",")
        mount = Path(record.info["mountpoint"])
        (mount / "stage1").mkdir()
        os.setxattr(mount / "stage1", "user.mosastore.placement", b"local")
        script = tmp_path / "locality.swift"
        script.write_text(WORKFLOW)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "SWIFTCLOUD_STATE_DIR": str(state)}
        run = subprocess.run(
            [sys.executable, "-m", "swiftcloud", "run", "--transport", "local", "-n", "5",
             "--nodes", ",".join(nodes), "--storage", "mosastore", "--run-dir", str(tmp_path / "run"),
             str(script)],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        adapter = MosaStoreAdapter(str(mount), "mosastore")
        produced = [adapter.locations(f"stage1/part_{i}.dat") for i in range(1, TASKS + 1)]
        assert all(len(held) == 1 and held[0] in nodes for held in produced), produced
        assert len({held[0] for held in produced}) == 2, "both nodes should have produced files"
        count = count_locality(str(tmp_path / "run" / "events.jsonl"), adapter)
        assert count.counted == TASKS  # the digest tasks; producers have no inputs
        print(f"locality: {count.local}/{count.counted} consuming tasks ran on the node holding their input")
        bar = chance_bar(TASKS, len(nodes))
        assert count.local >= bar, f"only {count.local}/{count.counted} tasks ran where their input is (bar {bar})"
