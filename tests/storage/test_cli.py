"""The storage commands of the CLI: put/get, services, clear errors and no leaked credentials."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from hostkit.records import ServiceRecord
from swiftcloud.cli import main

from .conftest import unique_name


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "SWIFTCLOUD_STORE", "SWIFTCLOUD_STATE_DIR"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.chdir(tmp_path)


def test_put_and_get_round_trip_a_tree_on_the_default_local_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "inputs"
    (source / "sub").mkdir(parents=True)
    (source / "a.txt").write_text("alpha")
    (source / "sub" / "b.txt").write_text("beta")
    assert main(["put", str(source), "data/"]) == 0
    assert "(9 bytes)" in capsys.readouterr().out
    assert (tmp_path / ".swiftcloud" / "store" / "data" / "inputs" / "sub" / "b.txt").read_text() == "beta"
    assert main(["get", "data/inputs", str(tmp_path / "back")]) == 0
    assert (tmp_path / "back" / "sub" / "b.txt").read_text() == "beta"
    (tmp_path / "into").mkdir()
    assert main(["get", "data/inputs/a.txt", str(tmp_path / "into")]) == 0
    assert (tmp_path / "into" / "a.txt").read_text() == "alpha"


@pytest.mark.parametrize(("argv", "message"), [
    (["get", "missing.txt", "out"], "swiftcloud: error: no such file in storage 'local' (local): missing.txt"),
    (["put", "no-such-local", "x"], "swiftcloud: error: no such local file or directory: no-such-local"),
    (["get", "../../etc/passwd", "out"], "swiftcloud: error: path '../../etc/passwd' escapes the store root"),
    (["put", "--storage", "nowhere", "swiftcloud.toml", "x"], "swiftcloud: error: unknown storage 'nowhere'"),
    (["get", "--config", "absent.toml", "x", "y"], "swiftcloud: error: configuration file 'absent.toml' not found"),
])
def test_user_errors_are_one_line_without_traceback(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "swiftcloud.toml").write_text("")
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith(message)
    assert "Traceback" not in captured.err
    assert len(captured.err.strip().splitlines()) == 1


def test_services_start_status_stop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state = str(tmp_path / "state")
    try:
        assert main(["services", "start", "sshd", "--state-dir", state]) == 0
        assert "sshd running (host 127.0.0.1, port " in capsys.readouterr().out
        assert main(["services", "status", "sshd", "--state-dir", state]) == 0
        # Try-it mode: with no swiftcloud.toml, --storage scp uses the running sshd.
        monkeypatch.setenv("SWIFTCLOUD_STATE_DIR", state)
        (tmp_path / "f.txt").write_text("over ssh")
        assert main(["put", "f.txt", "remote/f.txt", "--storage", "scp"]) == 0
        assert (tmp_path / "state" / "sshd" / "root" / "remote" / "f.txt").read_text() == "over ssh"
    finally:
        assert main(["services", "stop", "sshd", "--state-dir", state]) == 0
    assert main(["services", "status", "sshd", "--state-dir", state]) == 1
    assert "sshd is not running" in capsys.readouterr().out
    assert main(["put", "f.txt", "remote/g.txt", "--storage", "scp"]) == 1
    assert "no sshd running" in capsys.readouterr().err


def test_stop_and_status_find_a_service_wherever_it_was_started(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    first, second = str(tmp_path / "one" / "state"), str(tmp_path / "two" / "state")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    try:
        assert main(["services", "start", "sshd", "--state-dir", first]) == 0
        monkeypatch.chdir(elsewhere)  # another directory: its default state directory has no sshd
        capsys.readouterr()
        assert main(["services", "status", "sshd"]) == 0
        assert f"; state in {first}" in capsys.readouterr().out
        assert main(["services", "status"]) == 0
        listed = capsys.readouterr().out.splitlines()
        assert len(listed) == 1 and listed[0].startswith("sshd running (") and listed[0].endswith(first)
        assert main(["services", "start", "sshd", "--state-dir", second]) == 0
        capsys.readouterr()
        assert main(["services", "stop", "sshd"]) == 1  # two candidates: name one
        refused = capsys.readouterr().err
        assert "sshd runs in 2 state directories" in refused and first in refused and second in refused
        assert main(["services", "status", "sshd", "--state-dir", second]) == 0
        assert main(["services", "stop", "sshd", "--state-dir", second]) == 0
        capsys.readouterr()
        assert main(["services", "stop", "sshd"]) == 0
        assert capsys.readouterr().out.strip() == f"sshd stopped (state in {first})"
    finally:
        for state in (first, second):
            main(["services", "stop", "sshd", "--state-dir", state])
    capsys.readouterr()
    assert main(["services", "status"]) == 1
    assert capsys.readouterr().out.strip() == "no service of yours is running"
    assert main(["services", "stop"]) == 1
    assert "services stop needs a service" in capsys.readouterr().err


def test_no_credential_is_ever_printed_or_logged(
    minio_server: ServiceRecord, s3fs_mounted: ServiceRecord, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    access_key, secret_key = minio_server.secrets["access_key"], minio_server.secrets["secret_key"]
    state_dir = os.path.dirname(os.path.dirname(minio_server.info["data_dir"]))
    (tmp_path / "in.txt").write_text("payload")
    outputs = []
    # Try-it mode through the services' state: success paths.
    monkeypatch.setenv("SWIFTCLOUD_STATE_DIR", state_dir)
    name = unique_name("cli")
    assert main(["put", "in.txt", f"{name}/in.txt", "--storage", "s3"]) == 0
    assert main(["get", f"{name}/in.txt", "back.txt", "--storage", "s3"]) == 0
    assert main(["services", "status", "minio", "--state-dir", state_dir]) == 0
    outputs.append(capsys.readouterr())
    # Error paths: a wrong secret, and the real access key with a wrong bucket.
    toml = tmp_path / "swiftcloud.toml"
    toml.write_text(f'[storage.s3]\nbucket = "absent"\nendpoint_url = "{minio_server.info["endpoint_url"]}"\n')
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", access_key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "bad-" + secret_key)
    assert main(["put", "in.txt", "x.txt", "--storage", "s3"]) == 1
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret_key)
    assert main(["get", "x.txt", "y.txt", "--storage", "s3"]) == 1
    outputs.append(capsys.readouterr())
    printed = "".join(out.out + out.err for out in outputs)
    assert "refused the credentials" in printed and "bucket 'absent' does not exist" in printed
    logs = [Path(minio_server.info["log"]), Path(s3fs_mounted.info["log"])]
    for text in [printed, *(log.read_text() for log in logs)]:
        assert access_key not in text and secret_key not in text
    state_file = Path(state_dir) / "minio" / "state.json"
    assert stat.S_IMODE(state_file.stat().st_mode) == 0o600
