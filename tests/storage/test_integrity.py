"""End-to-end integrity against a real MinIO and chirp_server: files altered between producer and consumer.

A workflow's producer writes `data/numbers.txt`; before its consumer runs, an app
the engine knows nothing of rewrites the object in the bucket with one bit flipped
(same size, so nothing but the content differs). The consumer's staged input must
then fail its check against the producer's digest, copied or streamed: a clear
error naming the file and both digests, exit 1, the consumer's output never
published, and no retry (`--retries 2`: one attempt). An alteration between a run
and its `--resume` is caught too (the producer is reused, its digest read back from
the restart log): of the S3 object through the API, and of a Chirp file at rest, in
the chirp_server's data directory; `swiftcloud verify` reports the altered file.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hostkit.records import ServiceRecord
from storage_adapters import open_storage
from storage_adapters.chirp import service as chirp_service

from .conftest import unique_name
from .mosastore.stores import skip_unless_fuse

REPO = Path(__file__).resolve().parents[2]
DATA = "data/numbers.txt"
DIGEST = re.compile(r"blake3:[0-9a-f]{64}")
TAMPER = """\
import os, sys
config, storage, logical, credentials = sys.argv[1:5]
os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"] = open(credentials).read().split()
from storage_adapters import open_storage
with open_storage(storage, config) as store:
    data = bytearray(store.cat(logical))
    data[0] ^= 1
    store.pipe(logical, bytes(data))
print("altered", logical)
"""
FAIL_IF = """\
import os, sys
if os.path.exists(sys.argv[1]):
    sys.exit("failing on purpose: " + sys.argv[1] + " exists")
sys.stdout.write(open(sys.argv[2]).read())
"""


@pytest.fixture(scope="module")
def bucket(minio_server: ServiceRecord, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A config with a copying (`copy`) and a streaming (`stream`) table on a fresh key prefix,
    the helper scripts, and a credentials file for the app that alters objects."""
    directory = tmp_path_factory.mktemp("integrity")
    table = (f'backend = "s3"\nbucket = "{minio_server.info["bucket"]}"\n'
             f'endpoint_url = "{minio_server.info["endpoint_url"]}"\nprefix = "{unique_name("integrity")}"\n')
    (directory / "swiftcloud.toml").write_text(f'[storage.copy]\n{table}staging = "copy"\n'
                                               f'[storage.stream]\n{table}staging = "stream"\n')
    (directory / "tamper.py").write_text(TAMPER)
    (directory / "fail_if.py").write_text(FAIL_IF)
    credentials = directory / "credentials"
    credentials.write_text(f'{minio_server.secrets["access_key"]} {minio_server.secrets["secret_key"]}\n')
    credentials.chmod(0o600)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWS_ACCESS_KEY_ID", minio_server.secrets["access_key"])
        patch.setenv("AWS_SECRET_ACCESS_KEY", minio_server.secrets["secret_key"])
        yield directory


def swiftcloud(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "swiftcloud", *args], cwd=cwd,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)


def events(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]


def assert_mismatch_reported(stderr: str) -> None:
    """The error names the file, says what happened, and gives the two different digests."""
    assert "Traceback" not in stderr
    assert f"'{DATA}'" in stderr and "is not what its producer wrote" in stderr, stderr
    recorded, found = DIGEST.findall(stderr)[:2]
    assert recorded != found


@pytest.mark.parametrize("storage", ["copy", "stream"])
def test_an_object_altered_between_producer_and_consumer_fails_the_consumer(
        bucket: Path, storage: str, tmp_path: Path) -> None:
    (tmp_path / "w.swift").write_text(f"""\
app (file o) produce () {{ "seq" "1" "20000" @stdout=o; }}
app (file o) tamper (file i) {{ "{sys.executable}" "{bucket / 'tamper.py'}" "{bucket / 'swiftcloud.toml'}"
                              "{storage}" "{DATA}" "{bucket / 'credentials'}" @stdout=o; }}
app (file o) consume (file i, file t) {{ "cat" i t @stdout=o; }}
file d <"{DATA}"> = produce();
file token <"data/token.txt"> = tamper(d);
file out <"data/consumed.txt"> = consume(d, token);
""")
    result = swiftcloud(tmp_path, "run", "-n", "3", "--transport", "local", "--retries", "2",
                        "--config", str(bucket / "swiftcloud.toml"), "--storage", storage, "--run-dir", "run",
                        "w.swift")
    assert result.returncode == 1, result.stderr
    assert_mismatch_reported(result.stderr)
    ends = {record["label"]: record for record in events(tmp_path / "run") if record["event"] == "end"}
    assert ends["consume"]["status"] == "failed" and ends["consume"]["attempts"] == 1
    assert DIGEST.fullmatch(ends["produce"]["digests"][DATA])
    with open_storage(storage, str(bucket / "swiftcloud.toml")) as store:
        assert store.isfile("data/token.txt")  # the alteration happened...
        assert not store.isfile("data/consumed.txt")  # ...and nothing was published from it
        store.rm(DATA)
        store.rm("data/token.txt")


@dataclass(frozen=True)
class AlteredStore:
    """A staging store, the settings that name it, and how a test alters a file in it behind
    swiftcloud's back."""

    config: Path
    storage: str
    alter: Callable[[str], None]


@pytest.fixture(scope="module")
def chirp_state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A chirp_server (and its mount, which this module does not use) in a state directory of its own."""
    chirp_service.find_binary()  # not installed: an error, never a skip (setup installs it)
    skip_unless_fuse()
    state = tmp_path_factory.mktemp("chirp-integrity")
    chirp_service.start(str(state))
    try:
        yield state
    finally:
        chirp_service.stop(str(state))
        chirp_service.purge(str(state))


@pytest.fixture(params=["s3", "chirp"])
def altered_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[AlteredStore]:
    """S3 altered through its API (one bit of the object, rewritten whole); Chirp altered at rest,
    one bit of the file in the server's own data directory."""
    if request.param == "s3":
        config = request.getfixturevalue("bucket") / "swiftcloud.toml"

        def alter_object(name: str) -> None:
            with open_storage("copy", str(config)) as store:
                data = bytearray(store.cat(name))
                data[0] ^= 1
                store.pipe(name, bytes(data))
        yield AlteredStore(config, "copy", alter_object)
        return
    state = request.getfixturevalue("chirp_state")
    config, subdir = tmp_path / "chirp.toml", unique_name("integrity")
    config.write_text(f'[storage.chirp]\nmode = "staging"\nsubdir = "{subdir}"\n')
    root = Path(chirp_service.data_directory(str(state), "node0"), "root", subdir)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SWIFTCLOUD_STATE_DIR", str(state))

        def alter_at_rest(name: str) -> None:
            with open(root / name, "r+b") as stored:
                first = stored.read(1)
                stored.seek(0)
                stored.write(bytes([first[0] ^ 1]))
        yield AlteredStore(config, "chirp", alter_at_rest)


def test_a_file_altered_before_resume_fails_the_consumer_and_verify_reports_it(
        altered_store: AlteredStore, bucket: Path, tmp_path: Path) -> None:
    marker = tmp_path / "fail-now"
    marker.write_text("")
    (tmp_path / "w.swift").write_text(f"""\
app (file o) produce () {{ "seq" "1" "20000" @stdout=o; }}
app (file o) consume (file i) {{ "{sys.executable}" "{bucket / 'fail_if.py'}" "{marker}" i @stdout=o; }}
file d <"{DATA}"> = produce();
file out <"data/resumed.txt"> = consume(d);
""")
    config, storage = str(altered_store.config), altered_store.storage
    first = swiftcloud(tmp_path, "run", "-n", "3", "--transport", "local", "--config", config,
                       "--storage", storage, "--run-dir", "first", "w.swift")
    assert first.returncode == 1 and "failing on purpose" in first.stderr, first.stderr
    verified = swiftcloud(tmp_path, "verify", "first")
    assert verified.returncode == 0 and "1 unchanged" in verified.stdout, verified.stdout + verified.stderr

    altered_store.alter(DATA)
    marker.unlink()
    second = swiftcloud(tmp_path, "run", "-n", "3", "--transport", "local", "--config", config,
                        "--storage", storage, "--run-dir", "second", "--resume-from", "first", "w.swift")
    assert second.returncode == 1, second.stderr
    assert "1 app task(s) reused" in second.stderr
    assert_mismatch_reported(second.stderr)

    verified = swiftcloud(tmp_path, "verify", "first")
    assert verified.returncode == 1
    changed = [line for line in verified.stdout.splitlines() if line.startswith("changed")]
    assert len(changed) == 1 and DATA in changed[0] and len(DIGEST.findall(changed[0])) == 2, verified.stdout
    with open_storage(storage, config) as store:
        assert not store.isfile("data/resumed.txt")
        store.rm(DATA)
