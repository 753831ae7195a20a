"""Finding the processes a test started, by a marker every one of them inherits.

A test puts a fresh value in an environment variable of the command it runs;
ranks, workers and apps inherit it, so after the test no live process may
carry it. Tests use this only to assert and to clean up what they started.
"""

from __future__ import annotations

import psutil


def marked(variable: str, mark: str) -> list[psutil.Process]:
    """Live (non-zombie) processes whose environment has `variable` = `mark`."""
    found = []
    for process in psutil.process_iter():
        try:
            if process.environ().get(variable) == mark and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
        except psutil.Error:
            continue
    return found
