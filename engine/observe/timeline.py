"""Interactive views of one run: `timeline.html` (self-contained) and `trace.json` (Chrome trace).

`timeline.html` embeds the run's tasks as JSON and a small inline script that
draws one row per worker and one group of rectangles per task (wait, stage-in,
run, stage-out), with hover details and zoom/pan on the time axis; it loads
nothing from the network. `trace.json` is the Chrome trace-event format that
Perfetto and chrome://tracing open: one "X" event per phase per task, pid = node,
tid = worker. Waits overlap the worker's earlier tasks, and trace viewers drop
slices that overlap without nesting, so waits go on per-worker wait lanes.
"""

from __future__ import annotations

import html
import json
from typing import Any

from engine.observe.plots import PHASE_COLORS, PHASE_NAMES
from engine.observe.spans import WAIT, RunData
from engine.observe.timeline_script import SCRIPT


def timeline_data(run: RunData) -> dict[str, Any]:
    """What the page draws: rows (one per worker) and tasks with phases, in seconds since the run start."""
    rows = sorted({(s.node, s.worker) for s in run.spans}, key=lambda r: (r[1], r[0]))
    row_of = {row: i for i, row in enumerate(rows)}
    tasks = []
    for s in sorted(run.spans, key=lambda s: s.start):
        tasks.append({
            "id": s.task, "label": s.label, "kind": s.kind,
            "command": s.command if isinstance(s.command, str) else " ".join(s.command),
            "row": row_of[(s.node, s.worker)], "ok": s.ok,
            "submit": None if s.submit is None else round(s.submit - run.t0, 6),
            "start": round(s.start - run.t0, 6), "end": round(s.end - run.t0, 6),
            "phases": [[phase, round(b - run.t0, 6), round(e - run.t0, 6)] for phase, b, e in s.phases()],
            "bytes_in": s.bytes_in, "bytes_out": s.bytes_out})
    return {"run": run.run_dir, "phase_names": dict(PHASE_NAMES), "t1": round(run.t1 - run.t0, 6),
            "rows": [f"{node or '?'} / worker {worker}" for node, worker in rows], "tasks": tasks}


def chrome_trace(run: RunData) -> dict[str, Any]:
    """The run as Chrome trace events (microseconds since the run start)."""
    nodes = sorted({s.node for s in run.spans})
    pid_of = {node: i + 1 for i, node in enumerate(nodes)}
    events: list[dict[str, Any]] = []
    for node, pid in pid_of.items():
        events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": node or "?"}})
    named: set[tuple[int, int]] = set()  # (pid, tid) of the threads given a name
    lanes: dict[tuple[str, int], list[float]] = {}  # per worker: end time of the last wait on each lane
    wait_tid_base = 1 + max((s.worker for s in run.spans), default=0)
    for s in sorted(run.spans, key=lambda s: s.start - s.wait):
        pid = pid_of[s.node]
        details = {"task": s.task, "label": s.label, "kind": s.kind, "command": s.command, "ok": s.ok,
                   "bytes_in": s.bytes_in, "bytes_out": s.bytes_out}
        for phase, begin, end in s.phases():
            if phase == WAIT:
                ends = lanes.setdefault((s.node, s.worker), [])
                lane = next((i for i, last in enumerate(ends) if last <= begin), len(ends))
                ends[lane:lane + 1] = [end]
                tid = wait_tid_base * (lane + 1) + s.worker
                name = f"worker {s.worker} wait lane {lane}"
            else:
                tid, name = s.worker, f"worker {s.worker}"
            if (pid, tid) not in named:
                named.add((pid, tid))
                events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}})
                events.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid,
                               "args": {"sort_index": tid}})
            events.append({"ph": "X", "name": f"{phase} {s.label or s.task}", "cat": phase,
                           "ts": round((begin - run.t0) * 1e6, 3), "dur": round((end - begin) * 1e6, 3),
                           "pid": pid, "tid": tid, "args": details})
    return {"traceEvents": events, "displayTimeUnit": "ms", "otherData": {"run": run.run_dir}}


def write_chrome_trace(run: RunData, path: str) -> str:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(chrome_trace(run), f, separators=(",", ":"))
    return path


def write_timeline(run: RunData, path: str) -> str:
    """Write the self-contained interactive page."""
    # "<" escaped so no label can close the <script> element that holds the data.
    data = json.dumps(timeline_data(run), separators=(",", ":")).replace("<", "\\u003c")
    title = html.escape(f"swiftcloud run {run.run_dir}: timeline")
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"<!doctype html>\n<html><head><meta charset='utf-8'><title>{title}</title>\n"
                f"<style>{STYLE}{_phase_style()}</style></head>\n<body><h1>{title}</h1>\n"
                "<div id='controls'><button id='zoom-in'>zoom in</button> "
                "<button id='zoom-out'>zoom out</button> <button id='zoom-reset'>whole run</button> "
                "<span class='hint'>wheel: zoom the time axis at the pointer; drag: pan</span></div>\n"
                "<div id='legend'></div><div id='timeline'></div><div id='tip'></div>\n"
                f"<script type='application/json' id='run-data'>{data}</script>\n<script>{SCRIPT}</script>\n"
                "</body></html>\n")
    return path


STYLE = """
body { font: 13px sans-serif; margin: 12px; }
h1 { font-size: 16px; }
#timeline { border: 1px solid #ccc; overflow: hidden; cursor: grab; user-select: none; }
#legend span { display: inline-block; margin-right: 14px; }
#legend i { display: inline-block; width: 12px; height: 12px; margin-right: 4px; vertical-align: middle; }
.hint { color: #666; }
.seg.wait, .swatch.wait { opacity: 0.7; }
.task.failed .seg:not(.wait) { stroke: #d62728; stroke-width: 1.5; }
.task:hover .seg { opacity: 0.75; }
#tip { position: fixed; display: none; background: #fffbe6; border: 1px solid #999; padding: 6px;
       white-space: pre; font: 12px monospace; pointer-events: none; max-width: 70ch; overflow: hidden; }
"""


def _phase_style() -> str:
    """The phase colours of the PNG trace, for the page's rectangles and legend."""
    return "".join(f".seg.{phase} {{ fill: {color}; }} .swatch.{phase} {{ background: {color}; }}\n"
                   for phase, color in PHASE_COLORS.items())
