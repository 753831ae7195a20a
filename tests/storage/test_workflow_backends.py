"""The same workflow under every storage backend gives byte-identical outputs.

Runs `examples/file_pipeline.swift` through the CLI with `--storage
local|s3|scp|s3fs|chirp|chirp-shared|hdfs|hdfs-shared` against real servers
started on 127.0.0.1 (MinIO, sshd, s3fs-fuse, chirp_server and HDFS with our mounts) in one
state directory — the same code `swiftcloud services start`
uses — then fetches the outputs with `swiftcloud get` and compares their bytes
with a run on plain local paths. Also checks that a bad configuration fails
before any task runs, naming the backend, without leaking a credential.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hostkit.errors import MissingDependencyError, StorageConfigError
from storage_adapters.chirp import service as chirp_service
from storage_adapters.services import service_status, start_service, stop_service

ROOT = Path(__file__).resolve().parents[2]
PIPELINE = ROOT / "examples" / "file_pipeline.swift"
OUTPUTS = ("out/numbers.txt", "out/labelled.txt", "out/labelled.sha256")
BACKENDS = ("local", "s3", "scp", "s3fs", "chirp", "chirp-shared", "hdfs", "hdfs-shared")
SHARED_TABLES = ('[storage.chirp-shared]\nbackend = "chirp"\nmode = "shared"\n'
                 '[storage.hdfs-shared]\nbackend = "hdfs"\nmode = "shared"\n')


def swiftcloud(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "swiftcloud", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """MinIO, sshd, an s3fs mount, a chirp_server and HDFS in one state directory; stopped by the
    PIDs they started. `chirp-shared` and `hdfs-shared` are those services in shared mode (a
    table with just the backend and the mode)."""
    state = tmp_path_factory.mktemp("services")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SWIFTCLOUD_STATE_DIR": str(state)}
    started: list[str] = []
    try:
        for name in ("minio", "sshd", "s3fs", "chirp", "hdfs"):
            try:
                start_service(name, str(state))
            except (MissingDependencyError, StorageConfigError) as error:
                pytest.skip(f"{name} cannot run here: {error}")
            started.append(name)
        yield state, env
    finally:
        for name in reversed(started):
            stop_service(name, str(state))
        assert all(service_status(n, str(state)) is None for n in started)
        if "chirp" in started:
            chirp_service.purge(str(state))


def digests(directory: Path) -> dict[str, str]:
    return {p: hashlib.sha256((directory / p).read_bytes()).hexdigest() for p in OUTPUTS}


def test_pipeline_outputs_identical_on_every_backend(services: tuple[Path, dict[str, str]],
                                                     tmp_path: Path) -> None:
    _, env = services
    reference_dir = tmp_path / "plain"
    reference_dir.mkdir()
    plain = swiftcloud("run", str(PIPELINE), "--lines=5000", cwd=reference_dir, env=env)
    assert plain.returncode == 0, plain.stderr
    expected = digests(reference_dir)
    for backend in BACKENDS:
        work = tmp_path / backend
        work.mkdir()
        (work / "swiftcloud.toml").write_text(SHARED_TABLES)
        run = swiftcloud("run", "--storage", backend, str(PIPELINE), "--lines=5000", cwd=work, env=env)
        assert run.returncode == 0, f"{backend}: {run.stderr}"
        assert run.stdout == plain.stdout, backend
        fetched = work / "fetched"
        for path in OUTPUTS:
            got = swiftcloud("get", "--storage", backend, path, str(fetched / path), cwd=work, env=env)
            assert got.returncode == 0, f"{backend} get {path}: {got.stderr}"
        assert digests(fetched) == expected, backend
        assert not (work / "out").exists() or backend == "local", f"{backend} wrote outside its store"


GLOB_SCRIPT = """\
import files;
import io;
import string;
app (file o) cat (file i[]) { "cat" i @stdout=o }
file found[] = glob("data/{*.txt,sub/?.txt}");
string names[];
foreach f, i in found {
  names[i] = filename(f);
}
printf("%s", string_join(names, " "));
file all <"out/all.txt"> = cat(found);
"""
GLOB_DATA = {"data/a.txt": "A\n", "data/b.txt": "B\n", "data/c.dat": "C\n",
             "data/.hidden.txt": "H\n", "data/sub/d.txt": "D\n"}


def test_glob_lists_the_store_and_apps_read_what_it_found(services: tuple[Path, dict[str, str]],
                                                           tmp_path: Path) -> None:
    _, env = services
    local = tmp_path / "plain"
    for path, text in GLOB_DATA.items():
        (local / path).parent.mkdir(parents=True, exist_ok=True)
        (local / path).write_text(text)
    (local / "glob.swift").write_text(GLOB_SCRIPT)
    plain = swiftcloud("run", "glob.swift", cwd=local, env=env)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout == "data/a.txt data/b.txt data/sub/d.txt\n"
    assert (local / "out/all.txt").read_text() == "A\nB\nD\n"
    for backend in BACKENDS:
        work = tmp_path / backend
        work.mkdir()
        (work / "swiftcloud.toml").write_text(SHARED_TABLES)
        (work / "glob.swift").write_text(GLOB_SCRIPT)
        for path in GLOB_DATA:  # into the store only: glob must not look at local disk
            put = swiftcloud("put", "--storage", backend, str(local / path), path, cwd=work, env=env)
            assert put.returncode == 0, f"{backend} put {path}: {put.stderr}"
        run = swiftcloud("run", "--storage", backend, "glob.swift", cwd=work, env=env)
        assert run.returncode == 0, f"{backend}: {run.stderr}"
        assert run.stdout == plain.stdout, backend
        got = swiftcloud("get", "--storage", backend, "out/all.txt", str(work / "all.txt"),
                         cwd=work, env=env)
        assert got.returncode == 0, f"{backend} get: {got.stderr}"
        assert (work / "all.txt").read_text() == "A\nB\nD\n", backend


def test_bad_storage_configuration_fails_before_any_task(services: tuple[Path, dict[str, str]],
                                                         tmp_path: Path) -> None:
    _, env = services
    secret = "s3cr3t-never-printed-0123456789"
    (tmp_path / "swiftcloud.toml").write_text(
        '[storage.broken]\nbackend = "s3"\nendpoint_url = "http://127.0.0.1:9"\nbucket = "nope"\n')
    bad_env = {**env, "AWS_ACCESS_KEY_ID": "AKIAEXAMPLEKEY", "AWS_SECRET_ACCESS_KEY": secret}
    run = swiftcloud("run", "--storage", "broken", str(PIPELINE), cwd=tmp_path, env=bad_env)
    assert run.returncode != 0
    assert "broken" in run.stderr and "s3" in run.stderr
    assert secret not in run.stderr + run.stdout
    assert not (tmp_path / "runs").exists(), "a run started despite the bad configuration"
    assert "Traceback" not in run.stderr
