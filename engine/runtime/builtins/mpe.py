"""The `mpe` module: MPE logging calls of Swift/T, accepted as no-ops (§12).

Turbine can log to MPE for Jumpshot; this engine keeps its own run log
(`runs/NNN/events.jsonl`), so scripts that annotate their logs still run.
"""

from __future__ import annotations

from engine.runtime.builtins.context import BuiltinContext
from engine.runtime.builtins.spec import Table

MPE = Table("mpe")
TABLES = (MPE,)


@MPE.define("metadata", "(string) -> void")
def metadata(ctx: BuiltinContext, text: str) -> None:
    """An MPE metadata event: nothing to do."""
