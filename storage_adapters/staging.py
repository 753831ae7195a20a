"""Stage a task's files in and out of a worker's scratch directory, written once for every backend.

As in Parsl's data providers, staging strategies are small objects with a
"can I handle this store?" check, and the lookup loop is written once:

- `SharedPathStaging` (mode "shared"): the store is mounted on every node, so
  stage-in only checks that inputs exist and hands back their mount paths;
  stage-out copies an output into the mount only if the task wrote it
  elsewhere (atomically, through `put_file`).
- `TransferStaging` (mode "staging"): inputs are downloaded into
  `scratch_dir/<logical path>` (each appears only when complete, and if one
  fails the others are removed, so a task never starts with a partial set),
  those asked for digested as they land; outputs are checked to all exist before any is uploaded, each upload being
  atomic on the store side.

A failed task (`succeeded=False`) pushes nothing. Transfers of one task run
concurrently on a few threads; each is retried while the store's server cannot be
reached, for a bounded time (`retries`). With `staging = "stream"` on a store that reads
as a stream (s3, scp), `stream_in` replaces the download by FIFOs fed while the
task runs (`storage_adapters.streaming`); other stores copy.
"""

from __future__ import annotations

import dataclasses
import errno
import os
from collections.abc import Callable, Collection, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, TypeVar

from hostkit.errors import StorageConfigError, StorageError
from storage_adapters.base import StorageAdapter, remove_quietly
from storage_adapters.errors import StorageUnavailableError
from storage_adapters.retries import retrying, transient
from storage_adapters.streaming import InputStreams, open_streams

TRANSFER_THREADS = 4
T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class StagedInputs:
    """A task's inputs made local: logical path -> local path, and the digests of the
    downloaded ones that were asked for (logical path -> digest)."""

    paths: dict[str, str]
    digests: dict[str, str] = dataclasses.field(default_factory=dict)


class StagingStrategy(Protocol):
    """How files of one kind of store reach a task."""

    def can_stage(self, adapter: StorageAdapter) -> bool: ...

    def stage_in(self, adapter: StorageAdapter, logical_paths: list[str], scratch_dir: str,
                 digested: Collection[str]) -> StagedInputs: ...

    def stage_out(self, adapter: StorageAdapter, outputs: dict[str, str]) -> int: ...


class SharedPathStaging:
    """Shared stores: tasks use the mount paths; nothing is copied unless written elsewhere."""

    def can_stage(self, adapter: StorageAdapter) -> bool:
        return adapter.mode == "shared" and adapter.mount_path is not None

    def stage_in(self, adapter: StorageAdapter, logical_paths: list[str], scratch_dir: str,
                 digested: Collection[str]) -> StagedInputs:
        for logical in logical_paths:
            if not adapter.isfile(logical):
                raise FileNotFoundError(f"input file '{logical}' is not in {adapter.describe()}")
        return StagedInputs({logical: adapter.local_path(logical) for logical in logical_paths})

    def stage_out(self, adapter: StorageAdapter, outputs: dict[str, str]) -> int:
        total = 0
        for local, logical in outputs.items():
            if os.path.realpath(local) == os.path.realpath(adapter.local_path(logical)):
                total += os.path.getsize(local)
            else:
                total += adapter.put_file(local, logical)
        return total


class TransferStaging:
    """Staging stores: download inputs into scratch before the task, upload outputs after it."""

    def can_stage(self, adapter: StorageAdapter) -> bool:
        return adapter.mode == "staging"

    def stage_in(self, adapter: StorageAdapter, logical_paths: list[str], scratch_dir: str,
                 digested: Collection[str]) -> StagedInputs:
        targets = {logical: os.path.join(scratch_dir, *logical.split("/")) for logical in logical_paths}
        digests: dict[str, str] = {}

        def fetch(logical: str, target: str) -> int:
            if logical not in digested:
                return adapter.get_file(logical, target)
            size, digests[logical] = adapter.get_file_digested(logical, target)
            return size

        try:
            _concurrently([lambda l=logical, t=target: _transfer(adapter, l, lambda: fetch(l, t), "read")
                           for logical, target in targets.items()])
        except BaseException:
            for target in targets.values():
                remove_quietly(target)
            raise
        return StagedInputs(targets, digests)

    def stage_out(self, adapter: StorageAdapter, outputs: dict[str, str]) -> int:
        return sum(_concurrently([lambda s=local, d=logical: _transfer(adapter, d, lambda: adapter.put_file(s, d),
                                                                       "written")
                                  for local, logical in outputs.items()]))


def _transfer(adapter: StorageAdapter, logical: str, transfer: Callable[[], int], done: str) -> int:
    """One file's transfer, retried while the store is unreachable. If it fails for good (the
    store stays unreachable, or answers an I/O error), the error names the file and the nodes
    that held its data when it first failed (when the store says where data is: a node that
    is lost drops out of that list)."""
    held: list[str] | None = None  # asked at the first failure

    def attempt() -> int:
        nonlocal held
        try:
            return transfer()
        except Exception as error:
            if held is None and (transient(error) or _io_error(error)):
                held = _locations(adapter, logical)
            raise

    try:
        return retrying(adapter, attempt)
    except StorageUnavailableError as error:
        raise StorageUnavailableError(f"{_named(logical, held, done)}: {error}") from error
    except OSError as error:
        if not _io_error(error):
            raise
        raise OSError(errno.EIO, f"{_named(logical, held, done)}, in {adapter.describe()}: "
                                 f"{error.strerror or error}") from error


def _locations(adapter: StorageAdapter, logical: str) -> list[str]:
    try:
        return adapter.locations(logical)
    except (StorageError, OSError):
        return []  # unknown


def _named(logical: str, held: list[str] | None, done: str) -> str:
    where = f" (its data is on {', '.join(held)})" if held else ""
    return f"'{logical}'{where} could not be {done}"


def _io_error(error: BaseException) -> bool:
    return isinstance(error, OSError) and error.errno == errno.EIO


STRATEGIES: list[StagingStrategy] = [SharedPathStaging(), TransferStaging()]


def strategy_for(adapter: StorageAdapter) -> StagingStrategy:
    """The first strategy that can handle `adapter`."""
    for strategy in STRATEGIES:
        if strategy.can_stage(adapter):
            return strategy
    raise StorageConfigError(f"{adapter.describe()}: no staging strategy handles mode '{adapter.mode}'")


def stage_in(adapter: StorageAdapter, logical_paths: Iterable[str], scratch_dir: str,
             digested: Collection[str] = ()) -> StagedInputs:
    """Make a task's inputs readable locally (`.paths`: logical path -> local path); the
    downloaded ones among `digested` are digested as they land (`.digests`)."""
    unique = list(dict.fromkeys(adapter.logical_file(path) for path in logical_paths))
    if not unique:
        return StagedInputs({})
    return strategy_for(adapter).stage_in(adapter, unique, os.path.abspath(scratch_dir),
                                          frozenset(adapter.logical_file(path) for path in digested))


def streams_inputs(adapter: StorageAdapter) -> bool:
    """Should this store's inputs be streamed (its setting says so and it can)?"""
    return adapter.mode == "staging" and getattr(adapter, "staging", "copy") == "stream" \
        and getattr(adapter, "streams_reads", False)


def stream_in(adapter: StorageAdapter, logical_paths: Iterable[str], scratch_dir: str,
              digested: Collection[str] = ()) -> InputStreams:
    """Start feeding a task's inputs into FIFOs under `scratch_dir`; `.paths` maps logical
    path -> FIFO, `.finish()` after the task joins the feeders, and `.digests()` then gives
    the digests of those of `digested` (see `streaming`)."""
    unique = list(dict.fromkeys(adapter.logical_file(path) for path in logical_paths))
    return open_streams(adapter, unique, os.path.abspath(scratch_dir), digested)


def stage_out(adapter: StorageAdapter, local_to_logical: dict[str, str], succeeded: bool = True) -> int:
    """Publish a task's outputs; a failed task, or one missing an output, publishes nothing."""
    if not succeeded or not local_to_logical:
        return 0
    outputs = {os.path.abspath(local): adapter.logical_file(logical) for local, logical in local_to_logical.items()}
    missing = [local for local in outputs if not os.path.isfile(local)]
    if missing:
        raise FileNotFoundError(f"the task did not produce {', '.join(sorted(missing))}; nothing was pushed to {adapter.describe()}")
    return strategy_for(adapter).stage_out(adapter, outputs)


def _concurrently(jobs: list[Callable[[], T]]) -> list[T]:
    """Run jobs on a few threads; re-raise the first failure after all have ended."""
    if len(jobs) == 1:
        return [jobs[0]()]
    with ThreadPoolExecutor(max_workers=min(TRANSFER_THREADS, len(jobs))) as pool:
        futures = [pool.submit(job) for job in jobs]
    return [future.result() for future in futures]
