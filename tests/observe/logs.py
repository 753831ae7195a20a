"""Hand-written event logs (the records engine/observe/runlog.py writes) for the report's tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_log(run_dir: Path, records: list[dict[str, Any]]) -> Path:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "events.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return run_dir


def task_records(task: int, submit: float | None, start: float, end: float, worker: int = 0, node: str = "n1",
                 label: str = "app", **end_fields: Any) -> list[dict[str, Any]]:
    """The submit (unless None), start and end records of one app task."""
    common = {"task": task, "kind": "app", "label": label, "worker": worker, "node": node}
    records = [] if submit is None else [{"event": "submit", "task": task, "kind": "app", "label": label,
                                          "time": submit}]
    return records + [{"event": "start", **common, "command": [label, str(task)], "time": start},
                      {"event": "end", **common, "time": end, "status": "ok", "attempts": 1, **end_fields}]
