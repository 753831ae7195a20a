"""What the manager and benefactor processes share: logging and a prompt stop on signals.

SIGTERM and SIGINT are blocked in every thread (`block_stop_signals`, called
before any thread starts) and awaited by the main thread with `sigwait`,
while the server runs in its own thread. Otherwise the kernel may deliver
the signal to a helper thread, and Python would run the handler only when
the main thread next wakes from `accept()`.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Callable

STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}


def setup_logging(role: str, verbose: bool = False) -> None:
    """One line per event on stderr (the service log), tagged with the process's role."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format=f"%(asctime)s {role} %(levelname)s %(message)s",
        stream=sys.stderr,
    )


def block_stop_signals() -> None:
    """Block SIGTERM/SIGINT in this thread and in every thread it starts from now on."""
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)


def run_until_signal(serve: Callable[[], None]) -> None:
    """Run `serve` in a thread; return on SIGTERM or SIGINT (or when `serve` ends, re-raising its error)."""
    block_stop_signals()
    failure: list[BaseException] = []

    def target() -> None:
        try:
            serve()
        except BaseException as error:  # noqa: BLE001 - handed to the main thread
            failure.append(error)
        finally:
            os.kill(os.getpid(), signal.SIGTERM)  # wake the main thread

    threading.Thread(target=target, name="serve", daemon=True).start()
    signal.sigwait(STOP_SIGNALS)
    if failure:
        raise failure[0]
