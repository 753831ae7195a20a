"""How the suite is cut: the quick tier, and the groups the xdist workers take whole.

The quick tier is what catches most breakage in about two minutes (`./test.sh --quick`).

The compiler and the runtime's units, the scheduler's state machine and its local
transport, the storage conformance suite of the store that needs no server, the
architecture rules, and a sample of the golden programs under the local and the MPI
transport (tests/lang/test_golden.py marks those `quick`). Everything else (real
servers, FUSE mounts, the emulated cluster, Slurm, the science workflows) runs in the
full suite only.
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
QUICK_MODULES = frozenset({
    "test_architecture.py",
    "test_byte_compile.py",
    "test_leftovers.py",
    "lang/test_parser.py",
    "lang/test_cli.py",
    "runtime/test_atomic.py",
    "runtime/test_builtins.py",
    "runtime/test_sprintf.py",
    "runtime/test_textform.py",
    "runtime/test_pyleaf.py",
    "runtime/test_apps.py",
    "runtime/test_phases.py",
    "runtime/test_integrity.py",
    "observe/test_jsonlines.py",
    "scheduler/test_state.py",
    "scheduler/test_exits.py",
    "scheduler/test_policy.py",
    "scheduler/test_local.py",
    "scheduler/test_worker.py",
    "scheduler/test_process_start.py",
    "scheduler/test_process_end.py",
    "scheduler/test_namespaces.py",
    "scheduler/test_zygote_commands.py",
    "storage/test_local.py",
    "storage/test_paths.py",
    "storage/test_file_copy.py",
    "storage/test_config.py",
    "storage/test_retries.py",
    "storage/test_mount_report.py",
    "storage/test_fuse_iomodes.py",
    "storage/test_mosastore_directories.py",
    "storage/test_mosastore_plans.py",
    "storage/test_chirp_volume.py",
})


# Tests that bring up the emulated cluster, the trial Slurm or the study's cluster: one
# xdist worker runs them all, one after another (they are the heaviest on the machine).
SYSTEM_DIRECTORIES = ("cluster", "batch", "study")


# Modules without servers or other fixtures shared between tests, long enough to be worth
# sharing out: each of their test functions is a group of its own.
SPLIT_BY_FUNCTION = frozenset({"lang/test_golden.py"})


def worker_group(nodeid: str) -> str:
    """The group a test (`tests/DIR/test_x.py::test_y[...]`) goes to an xdist worker with:
    `system` for the directories above, else its module (whose servers then start once), or
    its test function for the modules just above."""
    path, _, name = nodeid.partition("::")
    relative = Path(path).relative_to(TESTS.name)
    if relative.parts[0] in SYSTEM_DIRECTORIES:
        return "system"
    module = relative.as_posix()
    return f"{module}::{name.partition('[')[0]}" if module in SPLIT_BY_FUNCTION else module


def is_quick(item: pytest.Item) -> bool:
    """Is this collected test in the quick tier?"""
    if item.get_closest_marker("quick") is not None:
        return True
    return item.path.relative_to(TESTS).as_posix() in QUICK_MODULES


# Golden programs under MPI (tests/lang/test_golden.py): besides a fixed sample, each run
# takes one slice of the others, by case number modulo MPI_SLICES, so every program runs
# under MPI within any MPI_SLICES consecutive days. The controller fixes the slice once
# for the run (its xdist workers inherit it); the environment variable picks one, or `all`.
MPI_SLICE_VARIABLE = "SWIFTCLOUD_GOLDEN_MPI_SLICE"
MPI_SLICES = 5


def golden_mpi_slice() -> int | None:
    """This run's slice of the golden programs outside the MPI sample (None: all of them)."""
    chosen = os.environ.get(MPI_SLICE_VARIABLE, "")
    if chosen == "all":
        return None
    if chosen.isdigit() and int(chosen) < MPI_SLICES:
        return int(chosen)
    if chosen:
        raise pytest.UsageError(f"{MPI_SLICE_VARIABLE}={chosen!r}: give 0 to {MPI_SLICES - 1}, or 'all'")
    return datetime.datetime.now(datetime.timezone.utc).toordinal() % MPI_SLICES


def fix_golden_mpi_slice() -> str:
    """Set this run's slice in the environment, once, before workers start; describe it."""
    chosen = golden_mpi_slice()
    os.environ[MPI_SLICE_VARIABLE] = "all" if chosen is None else str(chosen)
    if chosen is None:
        return "golden programs under MPI: all of them"
    return (f"golden programs under MPI: the sample and slice {chosen} of {MPI_SLICES} of the others "
            f"(today's; {MPI_SLICE_VARIABLE}=all runs every one)")
