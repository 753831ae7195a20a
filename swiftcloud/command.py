"""The `swiftcloud` program's entry point, for its console script and `python -m swiftcloud`.

It pauses the garbage collector before the command line's imports (`hostkit.startup`),
and ends the process without the interpreter's teardown (`hostkit.process_end`);
`cli.main` is the command line itself.
"""

from __future__ import annotations

from hostkit.process_end import end_command
from hostkit.startup import pause_collection


def main() -> int:
    """Run the `swiftcloud` command this process was started with; its exit status."""
    pause_collection()
    from swiftcloud.cli import main as command_line  # deferred: imported with the collector paused

    return end_command(command_line())
