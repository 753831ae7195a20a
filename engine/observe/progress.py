"""A progress bar on stderr (rich), shown only on a terminal and only for runs with many tasks."""

from __future__ import annotations

from typing import Optional

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

SHOW_AFTER_TASKS = 20


class TaskProgress:
    """Counts submitted and finished tasks; draws once the run has enough of them.

    The bar (and rich's refresh thread) starts only after the first completion,
    i.e. after the worker processes have been forked.
    """

    def __init__(self) -> None:
        self.submitted = 0
        self.completed = 0
        self._progress: Optional[Progress] = None
        self._task_id: Optional[int] = None

    def total(self, submitted: int) -> None:
        self.submitted = submitted
        if self._progress is not None and self._task_id is not None:
            self._progress.update(self._task_id, total=submitted)

    def advance(self) -> None:
        self.completed += 1
        if self._progress is None and self.submitted >= SHOW_AFTER_TASKS:
            self._progress = Progress(TextColumn("tasks"), BarColumn(), MofNCompleteColumn(),
                                      TimeElapsedColumn(), console=Console(stderr=True), transient=True)
            self._progress.start()
            self._task_id = self._progress.add_task("tasks", total=self.submitted)
        if self._progress is not None and self._task_id is not None:
            self._progress.update(self._task_id, completed=self.completed, total=self.submitted)

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
