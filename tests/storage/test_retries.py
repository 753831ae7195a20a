"""Transfers retried while a store's server cannot be reached, for a bounded time (`storage_adapters.retries`).

A clock and a sleep of the test's own stand in for time: the schedule of retries is
checked exactly, with no waiting. The S3 adapter's translation of boto's errors into
the unavailable kind is checked against a real port nobody listens on. A store
client that reports a failed upload as an OSError fails the task as a staging failure
(retriable), not as an internal error. HDFS's transfer failures that a new pipeline or a
restarted server ends are retried; a missing file is not. A worker opens its staging store
without the check a command starts with (one quick attempt), so a server restarting then fails
its task only as staging does.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from engine.task.apps import AppProcesses
from engine.task.atomic import Publisher
from engine.task.contract import AppPhases, AppSpec, LeafError, StagingPlan
from engine.task.run import TaskRunner
from engine.task.staging import run_staged
from hostkit.errors import StorageConfigError
from hostkit.ports import free_port
from storage_adapters.errors import StorageTransferError, StorageUnavailableError
from storage_adapters.hdfs.client import translated
from storage_adapters.local import LocalAdapter
from storage_adapters import open_storage
from storage_adapters.retries import MAX_DELAY_S, UNAVAILABLE_RETRY_S, WINDOW_VARIABLE, retrying, transient
from storage_adapters.s3 import S3Adapter


class FakeTime:
    """A clock that moves only when slept on; records the sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def store(tmp_path: Path) -> LocalAdapter:
    return LocalAdapter(str(tmp_path), name="lab")


def test_a_server_back_within_the_window_is_waited_for(store: LocalAdapter) -> None:
    time = FakeTime()
    failures = iter([ConnectionRefusedError(111, "Connection refused")] * 5)

    def request() -> str:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        return "answered"

    assert retrying(store, request, clock=time.clock, sleep=time.sleep) == "answered"
    assert time.sleeps == [0.25, 0.5, 1.0, 2.0, 4.0]


def test_a_server_that_stays_down_fails_after_the_window_naming_the_store(store: LocalAdapter) -> None:
    time = FakeTime()
    calls = []

    def request() -> None:
        calls.append(time.now)
        raise ConnectionResetError(104, "Connection reset by peer")

    with pytest.raises(StorageUnavailableError) as caught:
        retrying(store, request, clock=time.clock, sleep=time.sleep)
    assert str(caught.value) == (f"{store.describe()}: Connection reset by peer (its server could not be "
                                 f"reached for {UNAVAILABLE_RETRY_S:g} s)")
    assert max(time.sleeps) == MAX_DELAY_S and calls[-1] <= UNAVAILABLE_RETRY_S
    assert calls[-1] + MAX_DELAY_S > UNAVAILABLE_RETRY_S  # it tried as long as the window allowed


@pytest.mark.parametrize("error", [FileNotFoundError(2, "No such file"), PermissionError(13, "Denied"),
                                   StorageTransferError("the disk is full")])
def test_other_failures_are_not_retried(store: LocalAdapter, error: Exception) -> None:
    time = FakeTime()

    def request() -> None:
        raise error

    with pytest.raises(type(error)):
        retrying(store, request, clock=time.clock, sleep=time.sleep)
    assert time.sleeps == []


def test_s3_reports_a_server_it_cannot_reach_as_unavailable(tmp_path: Path) -> None:
    adapter = S3Adapter(bucket="b", access_key="key", secret_key="secret-value",
                        endpoint_url=f"http://127.0.0.1:{free_port()}", name="cloud")
    with pytest.raises(StorageUnavailableError) as caught:
        adapter.get_file("in/a.txt", str(tmp_path / "a.txt"))
    assert "storage 'cloud'" in str(caught.value) and "secret-value" not in str(caught.value)


def test_a_worker_opening_a_store_while_its_server_restarts_fails_only_as_staging(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check a command starts with fails at once when nobody answers; a worker opens the store
    its run's driver checked without it, so its first transfer waits out a restart as any does,
    and a server still gone fails the task as staging (worth a retry), not as an internal error."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "someone")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret-value")
    monkeypatch.setenv(WINDOW_VARIABLE, "0")
    config = tmp_path / "swiftcloud.toml"
    config.write_text(f'[storage.cloud]\nbackend = "s3"\nbucket = "b"\n'
                      f'endpoint_url = "http://127.0.0.1:{free_port()}"\n')
    with pytest.raises(StorageConfigError, match="cannot reach the server"):
        open_storage("cloud", str(config))
    open_storage("cloud", str(config), checked=True).close()
    spec = AppSpec(argv=("cp", "in.txt", "out.txt"),
                   staging=StagingPlan(storage="cloud", config_path=str(config), inputs=("in.txt",),
                                       outputs=("out.txt",), argv_files=(1, 2)))
    with pytest.raises(LeafError) as caught:
        TaskRunner({}, None)(spec)
    assert caught.value.retriable and caught.value.message.startswith(
        "staging in failed: 'in.txt' could not be read: storage 'cloud' (s3")
    assert "secret-value" not in caught.value.message


class FailingUploads(LocalAdapter):
    """A staging store whose uploads fail as some clients report it (hdfs-native: EIO)."""

    mode = "staging"

    def _put_file(self, local_path: str, path: str) -> None:
        raise OSError(errno.EIO, 'OperationFailed("Failed to complete file in time")', path)


def test_an_upload_failing_with_an_os_error_fails_the_task_as_staging_not_internally(tmp_path: Path) -> None:
    store = FailingUploads(str(tmp_path / "store"), name="flaky")
    spec = AppSpec(argv=("cp", "/etc/hostname", "out.txt"),
                   staging=StagingPlan(storage="flaky", config_path=None, inputs=(), outputs=("out.txt",),
                                       argv_files=(2,)))
    with pytest.raises(LeafError) as caught:
        run_staged(spec, spec.staging, store, lambda local: AppProcesses().run(local, Publisher()), AppPhases())
    assert caught.value.retriable and caught.value.message.startswith(
        "staging out failed: [Errno 5] 'out.txt' could not be written, in storage 'flaky' (local): OperationFailed")
    assert not (tmp_path / "store" / "out.txt").exists()


def test_the_window_can_be_set_in_the_environment(store: LocalAdapter, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SWIFTCLOUD_RETRY_WINDOW_S", "3")
    time = FakeTime()

    def request() -> None:
        raise ConnectionResetError(104, "Connection reset by peer")

    with pytest.raises(StorageUnavailableError, match=r"could not be reached for 3 s\)"):
        retrying(store, request, clock=time.clock, sleep=time.sleep)
    assert time.sleeps == [0.25, 0.5, 1.0]  # a fourth try would have ended past 3 s


@pytest.mark.parametrize("given", ["soon", "-1", "nan"])
def test_a_window_that_is_no_number_of_seconds_is_a_clear_error(store: LocalAdapter, given: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SWIFTCLOUD_RETRY_WINDOW_S", given)
    with pytest.raises(StorageConfigError, match="SWIFTCLOUD_RETRY_WINDOW_S must be a number of seconds"):
        retrying(store, lambda: None)


@pytest.mark.parametrize("text", ['DataTransferError("Datanode connection closed while waiting for ack")',
                                  'DataTransferError("No new datanode found in updated block locations")',
                                  'DataTransferError("Block writer is closed")',
                                  'OperationFailed("Failed to complete file in time")',
                                  "Connection reset by peer (os error 104)", "Broken pipe (os error 32)",
                                  "RPC listener disconnected"])
def test_hdfs_transfers_that_lost_a_server_are_worth_trying_again(text: str) -> None:
    """hdfs-native's errors for a write whose pipeline lost a DataNode, and for the NameNode
    gone mid-request: retried, as a new pipeline or a restart ends them."""
    def request() -> None:
        raise OSError(text)

    with pytest.raises(OSError) as caught:
        translated(request, "/data/1.dat")
    assert transient(caught.value) and "/data/1.dat" in str(caught.value)


@pytest.mark.parametrize("text, kind", [("java.io.FileNotFoundException: File does not exist: /x", FileNotFoundError),
                                        ('DataTransferError("All DataNodes failed: [...]")', OSError)])
def test_a_missing_hdfs_file_or_an_unreadable_block_is_not_tried_again(text: str, kind: type) -> None:
    """A block no DataNode could serve is also a block that failed its checksums: reading it
    again for 30 s would not help."""
    def request() -> None:
        raise RuntimeError(text)

    with pytest.raises(kind) as caught:
        translated(request, "/x")
    assert not transient(caught.value)


def test_a_block_no_datanode_served_is_explained_in_words() -> None:
    dump = ('DataTransferError("All DataNodes failed: [DatanodeInfoProto { id: DatanodeIdProto { ip_addr: '
            '\\"10.231.1.13\\", host_name: \\"node3\\", datanode_uuid: \\"4905\\", xfer_port: 9866, info_port: 9864 }, '
            'capacity: Some(25185042432) }]")')

    def request() -> None:
        raise RuntimeError(dump)

    with pytest.raises(OSError) as caught:
        translated(request, "/data/3.dat")
    assert caught.value.errno == errno.EIO and caught.value.filename == "/data/3.dat"
    assert caught.value.strerror == ("no DataNode holding the block sent it whole (unreachable, or its data failed "
                                     "its checksums); tried node3 at 10.231.1.13:9866")
