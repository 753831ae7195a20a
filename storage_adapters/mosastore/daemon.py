"""What the manager, benefactor and client processes share: logging and a clean stop on signals."""

from __future__ import annotations

import logging
import signal
import sys
from collections.abc import Callable
from types import FrameType


def setup_logging(role: str, verbose: bool = False) -> None:
    """One line per event on stderr (the service log), tagged with the process's role."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format=f"%(asctime)s {role} %(levelname)s %(message)s",
        stream=sys.stderr,
    )


def run_until_signal(serve: Callable[[], None]) -> None:
    """Run `serve` in the main thread; SIGTERM or SIGINT makes it return (via SystemExit)."""

    def stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        serve()
    except SystemExit:
        pass
