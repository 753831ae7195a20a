"""Staging with a real MinIO: phase records of staged tasks, and `staging = "stream"`.

One 20 MB object of random bytes is put in a bucket; a workflow hashes it
(`sha256sum` on its command line) and counts it (`wc -c` on its stdin) under a
copying store and a streaming one, and both must agree with hashing the local
source. The staged tasks' `end` records must show the download (copy:
`stage_in_s` > 0) and bytes equal to the object sizes in the store. At the task
level: a missing object fails a streamed task with a clear, retriable message
and publishes nothing; apps that stop reading early, or never open their
input, do not hang the worker; no FIFO or scratch directory is left behind.
scp (a real sshd) streams too, and a bad `staging` value is a configuration error.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.runtime.builtins import SimpleContext
from engine.task.contract import AppPhases, AppSpec, LeafError, StagingPlan
from engine.task.run import TaskRunner
from hostkit.records import ServiceRecord
from storage_adapters import StorageConfigError, open_storage
from storage_adapters.config import load_settings
from storage_adapters.staging import streams_inputs

from .conftest import unique_name

REPO = Path(__file__).resolve().parents[2]
SIZE = 20 * 1024 * 1024
SCRIPT = """\
import files;
app (file o) digest (file i) { "sha256sum" i @stdout=o }
app (file o) count (file i) { "wc" "-c" @stdin=i @stdout=o }
file data = input_file("in/data.bin");
file hashed <"out/data.sha256"> = digest(data);
file counted <"out/data.count"> = count(data);
"""


@pytest.fixture(scope="module")
def store(minio_server: ServiceRecord, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A config with a copying (`copy`) and a streaming (`stream`) table on one key prefix
    holding `in/data.bin`; yields (config path, the object's sha256)."""
    directory = tmp_path_factory.mktemp("stream-config")
    config = directory / "swiftcloud.toml"
    prefix = unique_name("stream")
    table = (f'backend = "s3"\nbucket = "{minio_server.info["bucket"]}"\n'
             f'endpoint_url = "{minio_server.info["endpoint_url"]}"\nprefix = "{prefix}"\n')
    config.write_text(f'[storage.copy]\n{table}staging = "copy"\n[storage.stream]\n{table}staging = "stream"\n')
    source = directory / "data.bin"
    source.write_bytes(os.urandom(SIZE))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWS_ACCESS_KEY_ID", minio_server.secrets["access_key"])
        patch.setenv("AWS_SECRET_ACCESS_KEY", minio_server.secrets["secret_key"])
        with open_storage("copy", str(config)) as adapter:
            adapter.put_file(str(source), "in/data.bin")
        yield config, hashlib.sha256(source.read_bytes()).hexdigest()


@pytest.fixture
def scratch_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where task scratch directories go in this test (to prove they are removed)."""
    root = tmp_path / "scratch"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def run_cli(config: Path, storage: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    (cwd / "w.swift").write_text(SCRIPT)
    return subprocess.run([sys.executable, "-m", "swiftcloud", "run", "-n", "3", "--transport", "local",
                           "--config", str(config), "--storage", storage, "--run-dir", "run", "w.swift"],
                          cwd=cwd, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)


def end_records(run_dir: Path) -> dict[str, dict]:
    records = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    return {r["label"]: r for r in records if r["event"] == "end"}


def test_copy_and_stream_agree_with_the_local_hash(store: tuple[Path, str], tmp_path: Path) -> None:
    config, expected = store
    outputs = {}
    for storage in ("copy", "stream"):
        work = tmp_path / storage
        work.mkdir()
        result = run_cli(config, storage, work)
        assert result.returncode == 0, result.stderr
        with open_storage(storage, str(config)) as adapter:
            outputs[storage] = {name: adapter.cat(f"out/data.{name}") for name in ("sha256", "count")}
            sizes = {name: adapter.size(f"out/data.{name}") for name in ("sha256", "count")}
            # Each run writes the same keys: remove them so the next run must write its own.
            for name in ("sha256", "count"):
                adapter.rm(f"out/data.{name}")
        assert outputs[storage]["sha256"].split()[0].decode() == expected
        assert int(outputs[storage]["count"]) == SIZE
        ends = end_records(work / "run")
        for label, name in (("digest", "sha256"), ("count", "count")):
            record = ends[label]
            assert (record["bytes_in"], record["bytes_out"]) == (SIZE, sizes[name])
            assert record["run_s"] > 0.0 and record["stage_out_s"] > 0.0
            if storage == "copy":
                assert record["stage_in_s"] > 0.0
    assert outputs["copy"]["count"] == outputs["stream"]["count"]


def staged(config: Path, inputs: tuple[str, ...], argv: tuple[str, ...], output: str) -> AppSpec:
    plan = StagingPlan(storage="stream", config_path=str(config), inputs=inputs, outputs=(output,),
                       argv_files=tuple(i for i, word in enumerate(argv) if word in inputs),
                       redirects=(("stdout", output),))
    return AppSpec(argv=argv, staging=plan)


def test_a_missing_object_fails_the_streamed_task_and_publishes_nothing(
        store: tuple[Path, str], scratch_root: Path) -> None:
    config, _ = store
    output = unique_name("out/missing") + ".sha256"
    spec = staged(config, ("in/data.bin", "in/no-such.bin"), ("sha256sum", "in/data.bin", "in/no-such.bin"),
                  output)
    with pytest.raises(LeafError) as caught:
        TaskRunner({}, SimpleContext)(spec)
    assert caught.value.retriable
    assert caught.value.message.startswith("staging in failed: streaming 'in/no-such.bin' from storage 'stream'")
    assert "no such file in the store" in caught.value.message
    assert caught.value.phases is not None and caught.value.phases["bytes_out"] == 0
    with open_storage("stream", str(config)) as adapter:
        assert not adapter.exists(output)
    assert list(scratch_root.iterdir()) == []


@pytest.mark.parametrize("argv", [("head", "-c", "10", "in/data.bin"), ("sh", "-c", "exit 0", "x", "in/data.bin")],
                         ids=["stops-reading-early", "never-opens-its-input"])
def test_an_app_that_leaves_its_input_unread_does_not_hang(store: tuple[Path, str], scratch_root: Path,
                                                           argv: tuple[str, ...]) -> None:
    config, _ = store
    output = unique_name("out/partial") + ".txt"
    phases = TaskRunner({}, SimpleContext)(staged(config, ("in/data.bin",), argv, output))
    assert isinstance(phases, AppPhases)
    assert phases.bytes_in < SIZE  # the feeder stopped when the app went away
    with open_storage("stream", str(config)) as adapter:
        written = adapter.cat(output)
        adapter.rm(output)
        with adapter.open("in/data.bin") as source:
            head = source.read(10)
    assert written == (head if argv[0] == "head" else b"")
    assert list(scratch_root.iterdir()) == []


def test_scp_streams_too(sshd_server: ServiceRecord, tmp_path: Path, scratch_root: Path) -> None:
    keys = ("host", "port", "user", "key_file", "known_hosts", "root")
    table = "".join(f"{key} = {json.dumps(sshd_server.info[key])}\n" for key in keys)
    config = tmp_path / "swiftcloud.toml"
    config.write_text(f'[storage.stream]\nbackend = "scp"\n{table}staging = "stream"\n')
    source = tmp_path / "data.bin"
    source.write_bytes(os.urandom(3 * 1024 * 1024 + 17))
    logical = unique_name("in/scp") + ".bin"
    with open_storage("stream", str(config)) as adapter:
        assert streams_inputs(adapter)
        adapter.put_file(str(source), logical)
    output = unique_name("out/scp") + ".sha256"
    phases = TaskRunner({}, SimpleContext)(staged(config, (logical,), ("sha256sum", logical), output))
    assert isinstance(phases, AppPhases) and phases.bytes_in == source.stat().st_size
    with open_storage("stream", str(config)) as adapter:
        assert adapter.cat(output).split()[0].decode() == hashlib.sha256(source.read_bytes()).hexdigest()
        assert phases.bytes_out == adapter.size(output)
    assert list(scratch_root.iterdir()) == []


def test_an_unknown_staging_style_is_a_configuration_error(tmp_path: Path) -> None:
    config = tmp_path / "swiftcloud.toml"
    config.write_text('[storage.lab]\nbackend = "s3"\nbucket = "b"\nstaging = "fast"\n')
    expected = r"storage 'lab' \(s3\): 'staging' must be one of 'copy', 'stream', not 'fast'"
    with pytest.raises(StorageConfigError, match=expected):
        load_settings("lab", str(config))
