"""A process of ours collects no garbage while it starts.

Starting is importing: modules, classes and the compiled program, all of which live as
long as the process. Python's collector runs all the same, every 700 new objects, and
goes over the heap of modules again and again as it grows: 5% of a worker rank's start
and of the engine's, and `swiftcloud run -n 9` starts ten such processes on the host at
once. So each entry point pauses the collector first, and the process resumes it, with
everything made so far frozen (never scanned again), where its work begins:

- the `swiftcloud` command before a command's handler, except `run`'s, whose work begins
  further on: where the engine's run starts (`engine.runtime.collection`), where a worker
  rank's first session starts, or where the job it starts on other processes starts.
"""

from __future__ import annotations

import gc


def pause_collection() -> None:
    """Start-up begins: no collection until `resume_collection`."""
    gc.disable()


def resume_collection() -> None:
    """Start-up is over: what exists now is kept out of every collection, which resumes (if
    it was paused: a command run in a process of someone else's, as tests do, is left alone)."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()
