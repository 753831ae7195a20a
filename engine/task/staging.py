"""Explicit staging around one app task, on the worker (staging-mode stores: s3, scp).

Before the task, the worker fetches its input files from the store into a
private scratch directory; the command line and redirections are rewritten to
those local copies; after a successful run the outputs are pushed to the
store (each appears whole, or not at all); a failed task pushes nothing. The
caller opens the store adapter (once per worker process: `TaskRunner`).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from typing import Any, Callable

from engine.task.contract import AppSpec, LeafError, StagingPlan


def run_staged(spec: AppSpec, plan: StagingPlan, adapter: Any, run: Callable[[AppSpec], None]) -> None:
    """Stage in from `adapter`'s store, run `run(local_spec)`, stage out; LeafError on any failure."""
    from storage_adapters import StorageError
    from storage_adapters.staging import stage_in, stage_out

    scratch = tempfile.mkdtemp(prefix="swiftcloud-task-")
    try:
        try:
            local = stage_in(adapter, plan.inputs, os.path.join(scratch, "in"))
        except (StorageError, FileNotFoundError) as e:
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
        local_spec = dataclasses.replace(spec, argv=tuple(argv), outputs=tuple(outputs.values()),
                                         staging=None, **redirects)
        run(local_spec)
        try:
            stage_out(adapter, {path: logical for logical, path in outputs.items()}, succeeded=True)
        except (StorageError, FileNotFoundError) as e:
            raise LeafError(f"staging out failed: {e}", retriable=True) from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
