"""Bad configurations fail before any task runs, naming the backend and what is wrong."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hostkit.errors import MissingDependencyError, StorageConfigError
from hostkit.mounts import mounted_fstype
from hostkit.ports import free_port
from hostkit.records import ServiceRecord
from storage_adapters import open_storage, registry
from storage_adapters.config import load_settings
from storage_adapters.services import s3fs_mount

from .conftest import unique_name

WRONG_SECRET = "wrong-secret-7f3a9c"


def config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "swiftcloud.toml"
    path.write_text(text)
    return str(path)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "SWIFTCLOUD_STORE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("SWIFTCLOUD_STATE_DIR", str(tmp_path / "no-services"))


def s3_table(server: ServiceRecord, bucket: str | None = None, endpoint: str | None = None) -> str:
    return (f'[storage.objects]\nbackend = "s3"\nbucket = "{bucket or server.info["bucket"]}"\n'
            f'endpoint_url = "{endpoint or server.info["endpoint_url"]}"\n')


# ----- settings -----

def test_unknown_storage_name(tmp_path: Path) -> None:
    with pytest.raises(StorageConfigError, match="unknown storage 'nope'.*backends: chirp, hdfs, local, mosastore, s3, s3fs, scp"):
        load_settings("nope", config(tmp_path, ""))


def test_unknown_setting_is_reported(tmp_path: Path) -> None:
    path = config(tmp_path, f'[storage.mine]\nbackend = "local"\npath = "{tmp_path}/s"\npaht = "typo"\n')
    with pytest.raises(StorageConfigError, match=r"storage 'mine' \(local\): unknown setting\(s\) paht"):
        open_storage("mine", path)


def test_wrongly_typed_setting(tmp_path: Path) -> None:
    path = config(tmp_path, '[storage.ssh]\nbackend = "scp"\nhost = "h"\nroot = "/r"\nkey_file = "k"\nport = "22"\n')
    with pytest.raises(StorageConfigError, match="'port' must be int, not str"):
        open_storage("ssh", path)


def test_secret_written_in_the_file_is_refused(tmp_path: Path) -> None:
    path = config(tmp_path, f'[storage.s3]\nbucket = "b"\nsecret_key = "{WRONG_SECRET}"\n')
    with pytest.raises(StorageConfigError, match="must not be written in the configuration file") as caught:
        open_storage("s3", path)
    assert WRONG_SECRET not in str(caught.value)


def test_missing_secret_names_the_variable(tmp_path: Path) -> None:
    path = config(tmp_path, '[storage.s3]\nbucket = "b"\naccess_key_env = "MY_S3_KEY"\n')
    with pytest.raises(StorageConfigError, match="missing secret 'access_key': set the environment variable MY_S3_KEY"):
        open_storage("s3", path)


def test_no_table_and_no_service(tmp_path: Path) -> None:
    with pytest.raises(StorageConfigError, match="no MinIO running.*swiftcloud services start minio"):
        open_storage("s3", config(tmp_path, ""))


def test_invalid_toml(tmp_path: Path) -> None:
    with pytest.raises(StorageConfigError, match="invalid TOML"):
        open_storage("local", config(tmp_path, "[storage.local\n"))


def test_local_store_path_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    path = config(tmp_path, f'[storage.local]\npath = "{tmp_path}/file"\n')
    with pytest.raises(StorageConfigError, match=r"storage 'local' \(local\): cannot create the store directory"):
        open_storage("local", path)


def test_missing_dependency_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry._BACKENDS, "hdfs", registry.BackendEntry("no_such_hdfs_module:Adapter", "pip install pyarrow"))
    with pytest.raises(MissingDependencyError, match="backend 'hdfs' needs .*no_such_hdfs_module.*pip install pyarrow"):
        registry.adapter_class("hdfs")


# ----- s3 -----

def test_s3_server_unreachable(tmp_path: Path, minio_server: ServiceRecord, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "someone")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", WRONG_SECRET)
    path = config(tmp_path, s3_table(minio_server, endpoint=f"http://127.0.0.1:{free_port()}"))
    with pytest.raises(StorageConfigError, match=r"storage 'objects' \(s3, .*\): cannot reach the server"):
        open_storage("objects", path)


def test_s3_bad_credentials(tmp_path: Path, minio_server: ServiceRecord, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", minio_server.secrets["access_key"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", WRONG_SECRET)
    with pytest.raises(StorageConfigError, match="refused the credentials") as caught:
        open_storage("objects", config(tmp_path, s3_table(minio_server)))
    assert WRONG_SECRET not in str(caught.value)
    assert minio_server.secrets["access_key"] not in str(caught.value)


def test_s3_bucket_missing(tmp_path: Path, minio_server: ServiceRecord, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", minio_server.secrets["access_key"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", minio_server.secrets["secret_key"])
    with pytest.raises(StorageConfigError, match="the bucket 'no-such-bucket' does not exist"):
        open_storage("objects", config(tmp_path, s3_table(minio_server, bucket="no-such-bucket")))


def test_a_table_setting_no_endpoint_uses_the_running_server(tmp_path: Path, minio_server: ServiceRecord,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # The server's directory is <state>/minio/data: the table below names only a way of using it.
    monkeypatch.setenv("SWIFTCLOUD_STATE_DIR", str(Path(minio_server.info["data_dir"]).parents[1]))
    path = config(tmp_path, '[storage.streamed]\nbackend = "s3"\nstaging = "stream"\n')
    settings = load_settings("streamed", path)
    assert settings.staging == "stream" and settings.options["endpoint_url"] == minio_server.info["endpoint_url"]
    store = open_storage("streamed", path)
    (tmp_path / "x.txt").write_text("through the running server\n")
    store.put_file(str(tmp_path / "x.txt"), "config-test/x.txt")
    store.get_file("config-test/x.txt", str(tmp_path / "back.txt"))
    assert (tmp_path / "back.txt").read_text() == "through the running server\n"
    # A table that names its own bucket and endpoint never takes the server's credentials.
    with pytest.raises(StorageConfigError, match="AWS_ACCESS_KEY_ID"):
        open_storage("objects", config(tmp_path, s3_table(minio_server)))


# ----- scp -----

def scp_table(server: ServiceRecord, **override: object) -> str:
    settings = {key: server.info[key] for key in ("host", "port", "user", "key_file", "known_hosts", "root")}
    settings.update(override)
    lines = [f"{key} = {value!r}" if isinstance(value, str) else f"{key} = {value}" for key, value in settings.items()]
    return "[storage.remote]\nbackend = \"scp\"\n" + "\n".join(lines).replace("'", '"') + "\n"


def test_scp_server_unreachable(tmp_path: Path, sshd_server: ServiceRecord) -> None:
    path = config(tmp_path, scp_table(sshd_server, port=free_port()))
    with pytest.raises(StorageConfigError, match=r"storage 'remote' \(scp, .*\): cannot reach the server"):
        open_storage("remote", path)


def test_scp_unknown_host_key_is_refused(tmp_path: Path, sshd_server: ServiceRecord) -> None:
    (tmp_path / "empty_known_hosts").write_text("")
    path = config(tmp_path, scp_table(sshd_server, known_hosts=str(tmp_path / "empty_known_hosts")))
    with pytest.raises(StorageConfigError, match="host key is not in"):
        open_storage("remote", path)


def test_scp_changed_host_key_is_refused(tmp_path: Path, sshd_server: ServiceRecord) -> None:
    other = tmp_path / "other_host_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    public = " ".join(other.with_suffix(".pub").read_text().split()[:2])
    (tmp_path / "known_hosts").write_text(f"[127.0.0.1]:{sshd_server.info['port']} {public}\n")
    path = config(tmp_path, scp_table(sshd_server, known_hosts=str(tmp_path / "known_hosts")))
    with pytest.raises(StorageConfigError, match="host key does not match"):
        open_storage("remote", path)


def test_scp_refused_user_key(tmp_path: Path, sshd_server: ServiceRecord) -> None:
    stranger = tmp_path / "stranger"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(stranger)], check=True)
    path = config(tmp_path, scp_table(sshd_server, key_file=str(stranger)))
    with pytest.raises(StorageConfigError, match="refused the key"):
        open_storage("remote", path)


def test_scp_missing_key_file(tmp_path: Path, sshd_server: ServiceRecord) -> None:
    path = config(tmp_path, scp_table(sshd_server, key_file=str(tmp_path / "no_key")))
    with pytest.raises(StorageConfigError, match="the key file .*no_key does not exist"):
        open_storage("remote", path)


def test_scp_missing_remote_root(tmp_path: Path, sshd_server: ServiceRecord) -> None:
    path = config(tmp_path, scp_table(sshd_server, root=f"/nonexistent/{unique_name('root')}"))
    with pytest.raises(StorageConfigError, match="the remote directory .* does not exist"):
        open_storage("remote", path)


# ----- s3fs -----

def test_fuse_unavailable_is_reported() -> None:
    with pytest.raises(StorageConfigError, match="FUSE is unavailable: /nonexistent/fuse does not exist"):
        s3fs_mount.check_fuse("/nonexistent/fuse")


def s3fs_table(server: ServiceRecord, mount_path: Path) -> str:
    return (f'[storage.mounted]\nbackend = "s3fs"\nbucket = "{server.info["bucket"]}"\n'
            f'endpoint_url = "{server.info["endpoint_url"]}"\nmount_path = "{mount_path}"\n')


def test_s3fs_bad_credentials_fail_before_mounting(tmp_path: Path, minio_server: ServiceRecord, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", minio_server.secrets["access_key"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", WRONG_SECRET)
    path = config(tmp_path, s3fs_table(minio_server, tmp_path / "mnt"))
    with pytest.raises(StorageConfigError, match=r"storage 'mounted' \(s3fs, .*\): the server refused the credentials"):
        open_storage("mounted", path)
    assert mounted_fstype(str(tmp_path / "mnt")) is None


def test_s3fs_adapter_mounts_and_unmounts_itself(tmp_path: Path, minio_server: ServiceRecord, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        s3fs_mount.check_fuse()
    except StorageConfigError as error:
        pytest.skip(f"s3fs-fuse cannot run here: {error}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", minio_server.secrets["access_key"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", minio_server.secrets["secret_key"])
    mount_path = tmp_path / "mnt"
    with open_storage("mounted", config(tmp_path, s3fs_table(minio_server, mount_path))) as store:
        assert store.mode == "shared"
        assert mounted_fstype(str(mount_path)) == s3fs_mount.S3FS_FSTYPE
        name = unique_name("auto")
        store.pipe(f"{name}.txt", b"through the auto mount")
        assert (mount_path / f"{name}.txt").read_bytes() == b"through the auto mount"
    assert mounted_fstype(str(mount_path)) is None
    assert not os.path.exists(tmp_path / "no-services" / "s3fs" / "passwd-s3fs")
