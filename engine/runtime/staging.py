"""Explicit staging around one app task, on the worker (staging-mode stores: s3, scp).

Before the task, the worker fetches its input files from the store into a
private scratch directory; the command line and redirections are rewritten to
those local copies; after a successful run the outputs are pushed to the
store (each appears whole, or not at all); a failed task pushes nothing. The
store adapter is opened once per worker process.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, Optional

from engine.scheduler.task import LeafError

_adapters: dict[tuple[str, Optional[str]], Any] = {}


@dataclass(frozen=True)
class StagingPlan:
    """What to move for one app task: logical paths in the store.

    `argv_files` are the indexes of command-line words that name store files;
    `redirects` maps "stdin"/"stdout"/"stderr" to a logical path.
    """

    storage: str
    config_path: Optional[str]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    argv_files: tuple[int, ...] = ()
    redirects: tuple[tuple[str, str], ...] = ()


def adapter_for(plan: StagingPlan) -> Any:
    key = (plan.storage, plan.config_path)
    adapter = _adapters.get(key)
    if adapter is None:
        from storage_adapters import open_storage
        adapter = _adapters[key] = open_storage(plan.storage, plan.config_path)
    return adapter


def run_staged(spec: Any, plan: StagingPlan, run: Callable[[Any], None]) -> None:
    """Stage in, run `run(local_spec)`, stage out; LeafError on any failure."""
    from storage_adapters import StorageError

    adapter = adapter_for(plan)
    scratch = tempfile.mkdtemp(prefix="swiftcloud-task-")
    try:
        try:
            local = adapter.stage_in(plan.inputs, os.path.join(scratch, "in"))
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
            adapter.stage_out({path: logical for logical, path in outputs.items()}, succeeded=True)
        except (StorageError, FileNotFoundError) as e:
            raise LeafError(f"staging out failed: {e}", retriable=True) from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
