"""End-to-end integrity against a real MinIO: S3 objects altered between producer and consumer.

A workflow's producer writes `data/numbers.txt`; before its consumer runs, an app
the engine knows nothing of rewrites the object in the bucket with one bit flipped
(same size, so nothing but the content differs). The consumer's staged input must
then fail its check against the producer's digest, copied or streamed: a clear
error naming the file and both digests, exit 1, the consumer's output never
published, and no retry (`--retries 2`: one attempt). The same alteration between
a run and its `--resume` is caught too (the producer is reused, its digest read back
from the restart log), and `swiftcloud verify` reports the altered object.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hostkit.records import ServiceRecord
from storage_adapters import open_storage

from .conftest import unique_name

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


def test_an_object_altered_before_resume_fails_the_consumer_and_verify_reports_it(
        bucket: Path, tmp_path: Path) -> None:
    marker = tmp_path / "fail-now"
    marker.write_text("")
    (tmp_path / "w.swift").write_text(f"""\
app (file o) produce () {{ "seq" "1" "20000" @stdout=o; }}
app (file o) consume (file i) {{ "{sys.executable}" "{bucket / 'fail_if.py'}" "{marker}" i @stdout=o; }}
file d <"{DATA}"> = produce();
file out <"data/resumed.txt"> = consume(d);
""")
    config = str(bucket / "swiftcloud.toml")
    first = swiftcloud(tmp_path, "run", "-n", "3", "--transport", "local", "--config", config,
                       "--storage", "copy", "--run-dir", "first", "w.swift")
    assert first.returncode == 1 and "failing on purpose" in first.stderr, first.stderr
    verified = swiftcloud(tmp_path, "verify", "first")
    assert verified.returncode == 0 and "1 unchanged" in verified.stdout, verified.stdout + verified.stderr

    with open_storage("copy", config) as store:
        data = bytearray(store.cat(DATA))
        data[0] ^= 1
        store.pipe(DATA, bytes(data))
    marker.unlink()
    second = swiftcloud(tmp_path, "run", "-n", "3", "--transport", "local", "--config", config,
                        "--storage", "copy", "--run-dir", "second", "--resume-from", "first", "w.swift")
    assert second.returncode == 1, second.stderr
    assert "1 app task(s) reused" in second.stderr
    assert_mismatch_reported(second.stderr)

    verified = swiftcloud(tmp_path, "verify", "first")
    assert verified.returncode == 1
    changed = [line for line in verified.stdout.splitlines() if line.startswith("changed")]
    assert len(changed) == 1 and DATA in changed[0] and len(DIGEST.findall(changed[0])) == 2, verified.stdout
    with open_storage("copy", config) as store:
        assert not store.isfile("data/resumed.txt")
        store.rm(DATA)
