"""What a mount's client reports of its recent failures (`hostkit.mount_report`): the last
few, each text once at its latest time, none older than five minutes; and what a path
outside our mounts answers (nothing)."""

from __future__ import annotations

from pathlib import Path

from hostkit.mount_report import RECENT_S, SHOWN, FailureLog, read_failures


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_the_report_keeps_the_latest_of_each_failure_newest_last() -> None:
    clock = Clock()
    log = FailureLog(clock)
    log.note("read", OSError(5, "chunk c1 unavailable (node3: cannot reach 10.0.0.3:7100)"))
    clock.now += 1
    log.note("flush", OSError(104, "HDFS connection lost"))
    clock.now += 1
    log.note("read", OSError(5, "chunk c1 unavailable (node3: cannot reach 10.0.0.3:7100)"))
    lines = log.report().decode().splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == [
        "flush: [Errno 104] HDFS connection lost",
        "read: [Errno 5] chunk c1 unavailable (node3: cannot reach 10.0.0.3:7100)"]


def test_old_failures_are_not_reported_and_at_most_a_few_are() -> None:
    clock = Clock()
    log = FailureLog(clock)
    log.note("read", OSError(5, "long ago"))
    clock.now += RECENT_S + 1
    assert log.report() == b""
    for number in range(SHOWN + 3):
        log.note("write", OSError(5, f"failure {number}"))
    lines = log.report().decode().splitlines()
    assert len(lines) == SHOWN and lines[-1].endswith(f"failure {SHOWN + 2}")


def test_a_path_outside_our_mounts_reports_nothing(tmp_path: Path) -> None:
    assert read_failures(str(tmp_path)) == ""
    assert read_failures(str(tmp_path / "missing")) == ""
