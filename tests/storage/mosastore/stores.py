"""Running MosaStore instances for tests: the real service on 127.0.0.1, torn down with checks.

`running_store(state_dir, benefactors)` starts a manager, benefactors and the
FUSE mount exactly as `swiftcloud services start mosastore` does, and on exit
stops them by PID and verifies that nothing is left behind: no process of
the store still running, no mount still listed. `module_store` makes of it the
`store` fixture a test module's tests share. Tests that cannot run here
(trio not installed, no /dev/fuse) skip with the reason.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from hostkit.records import ServiceRecord
from mosastore import service

from ..conftest import assert_service_gone


def skip_unless_fuse() -> None:
    """Skip the calling test when the MosaStore client cannot run on this machine."""
    missing = [module for module in ("trio",) if importlib.util.find_spec(module) is None]
    if missing:
        pytest.skip(f"MosaStore client needs {', '.join(missing)} (bash setup.d/30-mosastore.sh)")
    if not os.access("/dev/fuse", os.R_OK | os.W_OK):
        pytest.skip("FUSE is unavailable here (/dev/fuse missing or not accessible)")


def assert_nothing_left(record: ServiceRecord) -> None:
    """Every process of the store has ended, the mount is gone, and no log holds a traceback."""
    assert_service_gone(service.processes(record), record.info["mountpoint"])


@contextmanager
def running_store(state_dir: str, benefactors: int = 4, **options: object) -> Iterator[ServiceRecord]:
    """A started store; stopped (and checked to be gone) on exit."""
    skip_unless_fuse()
    record = service.start(state_dir, benefactors=benefactors, **options)
    try:
        yield record
    finally:
        record = service.load_record(state_dir, service.NAME) or record  # restarts update it
        service.stop(state_dir)
        assert_nothing_left(record)


def module_store(name: str, benefactors: int) -> Callable[[pytest.TempPathFactory], Iterator[ServiceRecord]]:
    """A fixture `store`: one store of `benefactors` that the tests of a module share (its state
    in a temporary directory named after `name`)."""

    @pytest.fixture(scope="module")
    def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceRecord]:
        with running_store(str(tmp_path_factory.mktemp(name)), benefactors=benefactors) as record:
            yield record

    return store  # type: ignore[no-any-return]
