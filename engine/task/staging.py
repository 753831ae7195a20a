"""Explicit staging around one app task, on the worker (staging-mode stores: s3, scp).

Before the task, the worker fetches its input files from the store into a
private scratch directory; the command line and redirections are rewritten to
those local copies; after a successful run the outputs are pushed to the
store (each appears whole, or not at all); a failed task pushes nothing. With
`staging = "stream"` on a store that can, the inputs are FIFOs fed while the
app runs instead, and the feeders are joined once it has exited: a failed
download fails the task before anything is pushed. The caller opens the store
adapter (once per worker process: `TaskRunner`). Each step's time and bytes
go into the task's `AppPhases`, with the digests of its outputs (taken by `apps`
before they leave scratch). An input whose producer's digest the plan carries must
match it: a copied input is digested as its download lands in scratch, a streamed
one as it passes through its feeder; a mismatch fails the task,
not retried, before anything is pushed.
"""

from __future__ import annotations

import os
import shutil
import time
from typing import Any, Callable

from engine.task import scratch as scratch_dirs
from engine.task.contract import AppPhases, AppSpec, LeafError, StagingPlan
from hostkit.digests import mismatch_message


def run_staged(spec: AppSpec, plan: StagingPlan, adapter: Any, run: Callable[[AppSpec], dict[str, str]],
               phases: AppPhases) -> None:
    """Stage in from `adapter`'s store, run `run(local_spec)`, stage out; LeafError on any failure."""
    from storage_adapters import StorageError
    from storage_adapters.staging import stage_in, stage_out, stream_in, streams_inputs

    scratch = scratch_dirs.make("task")
    began = time.perf_counter()
    streams = None
    try:
        try:
            if streams_inputs(adapter):
                streams = stream_in(adapter, plan.inputs, os.path.join(scratch, "in"),
                                    {logical for logical, _ in plan.digests})
                local = streams.paths
            else:
                staged = stage_in(adapter, plan.inputs, os.path.join(scratch, "in"),
                                  {logical for logical, _ in plan.digests})
                local = staged.paths
                phases.bytes_in = sum(os.path.getsize(path) for path in local.values())
                _check_inputs(plan, staged.digests, adapter)
        except (StorageError, OSError) as e:
            raise LeafError(f"staging in failed: {e}", retriable=True) from None
        out_dir = os.path.join(scratch, "out")
        outputs = {logical: os.path.join(out_dir, *logical.split("/")) for logical in plan.outputs}
        for path in outputs.values():
            os.makedirs(os.path.dirname(path), exist_ok=True)
        where = {**local, **outputs}
        argv = list(spec.argv)
        for i in plan.argv_files:
            argv[i] = where.get(argv[i], argv[i])
        redirects = {name: where[logical] for name, logical in plan.redirects}
        local_spec = spec._replace(argv=tuple(argv), outputs=tuple(outputs.values()), staging=None, **redirects)
        started = time.perf_counter()
        phases.stage_in_s = started - began
        try:
            digests = run(local_spec)
        finally:
            try:
                if streams is not None:
                    _finish_streams(streams, phases)
            finally:
                phases.run_s = time.perf_counter() - started
        ran = started + phases.run_s
        if streams is not None:
            _check_inputs(plan, streams.digests(), adapter)
        phases.digests = {logical: digests[path] for logical, path in outputs.items() if path in digests}
        try:
            phases.bytes_out = stage_out(adapter, {path: logical for logical, path in outputs.items()},
                                         succeeded=True)
        except (StorageError, OSError) as e:  # a store's client may report its failure as an OSError
            raise LeafError(f"staging out failed: {e}", retriable=True) from None
        phases.stage_out_s = time.perf_counter() - ran
    finally:
        if streams is not None:
            streams.close()  # no feeder outlives the task, even if it failed before its app ran
        shutil.rmtree(scratch, ignore_errors=True)


def _check_inputs(plan: StagingPlan, found: dict[str, str], adapter: Any) -> None:
    """Every input the plan has a producer's digest for, and that was read whole (`found`),
    must match it; else the task fails, not retried: the store holds other bytes than were
    written, and running again would read them again."""
    for logical, recorded in plan.digests:
        digest = found.get(logical)
        if digest is not None and digest != recorded:
            raise LeafError(f"staging in failed: {mismatch_message(logical, adapter.describe(), recorded, digest)}",
                            retriable=False)


def _finish_streams(streams: Any, phases: AppPhases) -> None:
    """Join the input feeders; a failed download fails the task (even one whose app
    succeeded: it may have read a truncated input)."""
    from storage_adapters import StorageError

    try:
        phases.bytes_in = streams.finish()
    except StorageError as e:
        raise LeafError(f"staging in failed: {e}", retriable=True) from None
