"""Finding the processes a test started, by a marker every one of them inherits.

A test puts a fresh value in an environment variable of the command it runs;
ranks, workers and apps inherit it, so after the test no live process may
carry it. Tests use this only to assert and to clean up what they started.
"""

from __future__ import annotations

import psutil

from engine.scheduler.lifetime import processes_with_env


def marked(variable: str, mark: str) -> list[psutil.Process]:
    """Live (non-zombie) processes whose environment has `variable` = `mark`."""
    return processes_with_env(variable, mark)
