"""What each package contributes to the product: the stores and services it registers, its
commands, and its way of running elsewhere (`run --cluster`).

Registration comes first: `services` lists the registered services among its choices.
Each package's commands import only what building their parsers needs; a command's
handler imports the rest, so `swiftcloud run` pays for no other command.
"""

from __future__ import annotations

import argparse

import batch.cli
import batch.plugin
import cluster.cli
import engine.cli
import mosastore.plugin
import storage_adapters.cli
import study.cli


def register() -> None:
    """Register the stores and services that packages above the storage layer provide."""
    mosastore.plugin.register()
    batch.plugin.register()


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Every package's commands, in the order `swiftcloud --help` lists them."""
    run = engine.cli.add_commands(sub)
    cluster.cli.add_run_option(run)
    storage_adapters.cli.add_commands(sub)
    cluster.cli.add_commands(sub)
    batch.cli.add_commands(sub)
    study.cli.add_commands(sub)
