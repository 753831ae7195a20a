"""Benchmark: stream staging against copy staging on a real MinIO.

A workflow of `--tasks` apps (default 8), each `sha256sum` over its own input
object of `--size-mb` MB (default 50), runs with `swiftcloud run --storage`
on two tables of one bucket: `staging = "copy"` (download, then hash) and
`staging = "stream"` (hash while the object downloads, through a FIFO). Each
is run `--repeat` times (default 3), copy and stream interleaved so both see
the same machine load. The makespan is the task phase from the run log (first
task start to last task end); the CLI's wall time is beside it. Every run's
digests are checked against hashing the inputs locally. One JSON line per
repeat and one summary line with the medians and the ratio stream/copy
(below 1: stream is faster); `--out DIR` also writes `staging_stream.json`.
MinIO runs on 127.0.0.1 in a temporary state directory, stopped at the end.

    .venv/bin/python bench/staging_stream.py --tasks 8 --size-mb 50 --out /tmp/stream
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hostkit.program import swiftcloud_command  # noqa: E402
from storage_adapters import open_storage  # noqa: E402
from storage_adapters.services import minio, start_service, stop_service  # noqa: E402

MB = 1024 * 1024
STYLES = ("copy", "stream")
SCRIPT = """\
import files;
import string;
app (file o) digest (file i) { "sha256sum" i @stdout=o }
int n = toint(argv("tasks", "8"));
foreach k in [0:n - 1] {
  file data = input_file(sprintf("in/%i.bin", k));
  file hashed <sprintf("out/%i.sha256", k)> = digest(data);
}
"""


def write_config(path: Path, record: Any) -> None:
    """Two tables on the service's bucket, one per staging style."""
    table = (f'backend = "s3"\nbucket = "{record.info["bucket"]}"\n'
             f'endpoint_url = "{record.info["endpoint_url"]}"\nprefix = "bench-stream"\n')
    path.write_text("".join(f'[storage.{style}]\n{table}staging = "{style}"\n' for style in STYLES))


def upload_inputs(config: Path, tasks: int, size: int, scratch: Path) -> list[str]:
    """Put `tasks` random objects of `size` bytes in the store; their sha256 digests."""
    digests = []
    with open_storage("copy", str(config)) as adapter:
        for k in range(tasks):
            local = scratch / f"{k}.bin"
            digest = hashlib.sha256()
            with open(local, "wb") as handle:
                for offset in range(0, size, 4 * MB):
                    block = os.urandom(min(4 * MB, size - offset))
                    digest.update(block)
                    handle.write(block)
            adapter.put_file(str(local), f"in/{k}.bin")
            local.unlink()
            digests.append(digest.hexdigest())
    return digests


def run_once(style: str, config: Path, work: Path, tasks: int, workers: int, env: dict[str, str]) -> dict[str, Any]:
    """One workflow run; its makespan (task phase) and wall time."""
    work.mkdir()
    (work / "w.swift").write_text(SCRIPT)
    began = time.perf_counter()
    result = subprocess.run(swiftcloud_command("run", "-n", str(workers + 1),
                                               "--transport", "local", "--config", str(config), "--storage", style,
                                               "--run-dir", "run", "w.swift", f"--tasks={tasks}"),
                            cwd=work, env=env, capture_output=True, text=True, timeout=3600,
                            stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - began
    if result.returncode != 0:
        raise RuntimeError(f"the {style} run failed:\n{result.stderr}")
    records = [json.loads(line) for line in (work / "run" / "events.jsonl").read_text().splitlines()]
    starts = [r["time"] for r in records if r["event"] == "start"]
    ends = [r for r in records if r["event"] == "end"]
    return {"style": style, "makespan_s": round(max(r["time"] for r in ends) - min(starts), 3),
            "wall_s": round(wall, 3),
            "stage_in_s": round(sum(r["stage_in_s"] for r in ends), 3),
            "run_s": round(sum(r["run_s"] for r in ends), 3),
            "bytes_in": sum(r["bytes_in"] for r in ends)}


def check_outputs(config: Path, style: str, digests: list[str]) -> None:
    """Every task's digest matches hashing its input locally; the outputs are then removed."""
    with open_storage(style, str(config)) as adapter:
        for k, expected in enumerate(digests):
            got = adapter.cat(f"out/{k}.sha256").split()[0].decode()
            if got != expected:
                raise RuntimeError(f"{style}: task {k} hashed {got}, expected {expected}")
            adapter.rm(f"out/{k}.sha256")


@contextmanager
def credentials(env: dict[str, str]) -> Iterator[None]:
    """The service's keys in our environment while we use the store (a driver importing
    `main` gets its environment back)."""
    keys = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")
    saved = {key: os.environ.get(key) for key in keys}
    os.environ.update({key: env[key] for key in keys})
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the benchmark; print JSON lines and return the summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--size-mb", type=float, default=50.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", metavar="DIR", help="also write DIR/staging_stream.json")
    options = parser.parse_args(argv)
    size = int(options.size_mb * MB)
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="swiftcloud-bench-stream-") as temp:
        base = Path(temp)
        state = str(base / "state")
        start_service("minio", state)
        try:
            record = minio.status(state)
            assert record is not None
            config = base / "swiftcloud.toml"
            write_config(config, record)
            env = {**os.environ, "PYTHONPATH": str(ROOT), "AWS_ACCESS_KEY_ID": record.secrets["access_key"],
                   "AWS_SECRET_ACCESS_KEY": record.secrets["secret_key"]}
            with credentials(env):
                digests = upload_inputs(config, options.tasks, size, base)
                for repeat in range(options.repeat):
                    for style in STYLES:
                        run = run_once(style, config, base / f"{style}-{repeat}", options.tasks,
                                       options.workers, env)
                        check_outputs(config, style, digests)
                        run["repeat"] = repeat
                        print(json.dumps({"benchmark": "staging_stream", **run}), flush=True)
                        runs.append(run)
        finally:
            stop_service("minio", state)
    median = {style: statistics.median(r["makespan_s"] for r in runs if r["style"] == style) for style in STYLES}
    summary = {"benchmark": "staging_stream", "tasks": options.tasks, "size_mb": options.size_mb,
               "workers": options.workers, "repeat": options.repeat,
               "copy_makespan_s": median["copy"], "stream_makespan_s": median["stream"],
               "ratio_stream_over_copy": round(median["stream"] / median["copy"], 3), "runs": runs}
    print(json.dumps({k: v for k, v in summary.items() if k != "runs"}), flush=True)
    if options.out:
        os.makedirs(options.out, exist_ok=True)
        with open(os.path.join(options.out, "staging_stream.json"), "w", encoding="utf-8") as handle:
            json.dump(summary, handle, indent=2)
    return summary


if __name__ == "__main__":
    main()
