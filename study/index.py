"""The results directory's front pages: index.html (every figure, the claims table, the run's
parameters) and claims.md (the claims table and each claim's cases, ready for docs/study.md)."""

from __future__ import annotations

import html
import json
import os
from typing import Any

from study.claims import case_verdict

PART_TITLES = {
    "links": "Bandwidth and round trip between regions, measured / configured (Figs 1, 2)",
    "io": "Concurrent read / write / read-after-write, one file per node (Figs 3, 4, 6)",
    "workflows": "Workflows on the stores (Figs 8, 9, 11, 12), staged vs shared, stream vs copy",
    "lmp": "Power-grid (LMP) makespan vs node count (Fig 13)",
}


def claims_markdown(claims: list[dict[str, Any]]) -> str:
    """The claims table (claim, verdict, counts), then each claim's cases with their intervals."""
    lines = ["| the study's claim | verdict | what we measured |", "|---|---|---|"]
    lines += [f"| {claim['claim']} | **{claim['verdict']}** | {claim['summary']} |" for claim in claims]
    for claim in claims:
        lines += ["", f"### {claim['claim']}", "", f"**{claim['verdict']}**: {claim['summary']}"]
        if claim["cases"]:
            lines += ["", "| case | measured (95% CI) | verdict |", "|---|---|---|"]
            lines += [f"| {case['name']} | {case['measured']} | {case_verdict(case)} |" for case in claim["cases"]]
    return "\n".join(lines) + "\n"


def _claims_html(claims: list[dict[str, Any]]) -> str:
    """The same as claims_markdown, as HTML tables."""
    def verdict(text: str, css: str) -> str:
        return f"<td class='{html.escape(css.replace(' ', '-'))}'>{html.escape(text)}</td>"

    rows = "".join(f"<tr><td>{html.escape(c['claim'])}</td>{verdict(c['verdict'], c['verdict'])}"
                   f"<td>{html.escape(c['summary'])}</td></tr>" for c in claims)
    page = (f"<h2>Claims</h2><table><tr><th>the study's claim</th><th>verdict</th><th>what we measured</th></tr>"
            f"{rows}</table>")
    for claim in claims:
        page += f"<h3>{html.escape(claim['claim'])}</h3><p>{html.escape(claim['summary'])}</p>"
        if claim["cases"]:
            cases = "".join(f"<tr><td>{html.escape(case['name'])}</td><td>{html.escape(case['measured'])}</td>"
                            f"{verdict(case_verdict(case), case['verdict'])}</tr>" for case in claim["cases"])
            page += f"<table><tr><th>case</th><th>measured (95% CI)</th><th>verdict</th></tr>{cases}</table>"
    return page


def write(out_dir: str, results: dict[str, Any]) -> str:
    """Write index.html and claims.md into `out_dir`; returns the index's path."""
    with open(os.path.join(out_dir, "claims.md"), "w", encoding="utf-8") as handle:
        handle.write(claims_markdown(results.get("claims", [])))
    sections = []
    for part, outcome in results.get("parts", {}).items():
        images = "".join(
            f"<figure><img src='{html.escape(part)}/{html.escape(figure)}' alt='{html.escape(figure)}'>"
            f"<figcaption>{html.escape(figure)}</figcaption></figure>" for figure in outcome.get("figures", []))
        timelines = "".join(f"<li><a href='{html.escape(part)}/{html.escape(path)}'>{html.escape(path)}</a></li>"
                            for path in outcome.get("timelines", []))
        if timelines:
            images += f"<h3>Interactive timelines (every task; zoom with the wheel)</h3><ul>{timelines}</ul>"
        mode = f" <small>({html.escape(str(outcome['mode']))} mode)</small>" if "mode" in outcome else ""
        sections.append(f"<h2>{html.escape(PART_TITLES.get(part, part))}{mode}</h2>"
                        f"<p>{outcome.get('seconds', 0):.0f} s</p>{images}")
    for part, error in results.get("errors", {}).items():
        sections.append(f"<h2>{html.escape(PART_TITLES.get(part, part))}</h2><p class='error'>failed: "
                        f"{html.escape(error)}</p>")
    parameters = {key: value for key, value in results.items() if key not in ("parts", "claims")}
    page = (
        "<!doctype html><meta charset='utf-8'><title>swiftcloud storage study</title>"
        "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}img{max-width:100%}"
        "figure{display:inline-block;max-width:49%;margin:0 0 1em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:4px;vertical-align:top}.holds{color:green}.differs{color:#b00}"
        ".inconclusive{color:#a60}.not-testable{color:#666}.error{color:#b00}</style>"
        f"<h1>Storage study ({html.escape(results.get('mode', ''))} mode)</h1>"
        f"{_claims_html(results.get('claims', []))}{''.join(sections)}"
        f"<h2>Parameters</h2><pre>{html.escape(json.dumps(parameters, indent=2))}</pre>\n")
    path = os.path.join(out_dir, "index.html")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(page)
    return path
