"""The study's parts, in the order they run: the names `swiftcloud study --parts` offers,
kept apart from the driver so that building the command line imports none of it."""

from __future__ import annotations

PARTS = ("links", "io", "workflows", "lmp")
