"""Two runs of the study side by side: each claim's verdict in each run, and one verdict for
both that never hides a flip.

The rule, fixed in advance (docs/study.md, "How claims are judged"): a claim keeps its
verdict when both runs agree; when they disagree it is **inconclusive**, with the two
verdicts as the reason (a claim that holds in one run and differs in the other is the case
the rule exists for, and is named as a flip). The cases of each claim are set side by side
the same way, with what each run measured.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from study.claims import DIFFERS, HOLDS, INCONCLUSIVE, case_verdict

FLIP = frozenset((HOLDS, DIFFERS))


def combined(first: str, second: str) -> tuple[str, str]:
    """One verdict for two runs' verdicts of a claim (or case), and why it is not theirs."""
    base = [verdict.split(" (")[0] for verdict in (first, second)]  # "holds (with a larger gain ...)"
    if base[0] == base[1]:
        return (first if first == second else base[0]), ""
    if set(base) == FLIP:
        return INCONCLUSIVE, f"flipped: {first} in run 1, {second} in run 2"
    return INCONCLUSIVE, f"the runs disagree: {first} in run 1, {second} in run 2"


def load(directory: str) -> dict[str, Any]:
    """A finished study's results (`DIR/study.json`, or the file itself); ValueError if it is not one."""
    path = os.path.join(directory, "study.json") if os.path.isdir(directory) else directory
    try:
        with open(path, encoding="utf-8") as handle:
            results = json.load(handle)
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: not a study's results ({error})") from None
    if not isinstance(results, dict) or not isinstance(results.get("claims"), list):
        raise ValueError(f"{path}: not a study's results (no claims)")
    return results


def _cases(claim: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {case["name"]: case for case in claim.get("cases", [])}


def _verdict(case: dict[str, Any] | None) -> str:
    return "not measured" if case is None else case_verdict(case)


def side_by_side(runs: Sequence[dict[str, Any]]) -> str:
    """Markdown: the runs' sizes and durations, the claims table with both verdicts and the
    combined one, then each claim's cases with what each run measured."""
    first, second = runs
    lines = ["| | run 1 | run 2 |", "|---|---|---|",
             f"| mode | {first.get('mode')} | {second.get('mode')} |",
             f"| duration | {first.get('seconds', 0) / 60:.0f} min | {second.get('seconds', 0) / 60:.0f} min |"]
    if first.get("mode") != second.get("mode"):
        lines += ["", "The runs are of different sizes: their verdicts need not agree."]
    lines += ["", "| the study's claim | run 1 | run 2 | both runs |", "|---|---|---|---|"]
    claims_2 = {claim["key"]: claim for claim in second["claims"]}
    details: list[str] = []
    for claim in first["claims"]:
        other = claims_2.get(claim["key"])
        verdict_2 = other["verdict"] if other else "not measured"
        verdict, reason = combined(claim["verdict"], verdict_2)
        both = f"**{verdict}**" + (f" ({reason})" if reason else "")
        lines.append(f"| {claim['claim']} | {claim['verdict']} ({_counts(claim)}) | "
                     f"{verdict_2}{f' ({_counts(other)})' if other else ''} | {both} |")
        cases_1, cases_2 = _cases(claim), _cases(other or {})
        if not (cases_1 or cases_2):
            continue
        details += ["", f"### {claim['claim']}", "",
                    "| case | run 1 | run 2 | both runs |", "|---|---|---|---|"]
        for name in list(cases_1) + [name for name in cases_2 if name not in cases_1]:
            one, two = cases_1.get(name), cases_2.get(name)
            verdict, reason = combined(_verdict(one), _verdict(two))
            details.append(f"| {name} | {_measured(one)} | {_measured(two)} | {verdict}"
                           f"{f' ({reason})' if reason else ''} |")
    return "\n".join(lines + details) + "\n"


def _counts(claim: dict[str, Any]) -> str:
    counts = {verdict: count for verdict, count in claim.get("counts", {}).items() if count}
    return ", ".join(f"{count} {verdict}" for verdict, count in counts.items()) or "no cases"


def _measured(case: dict[str, Any] | None) -> str:
    return "not measured" if case is None else f"{case['measured']}: {_verdict(case)}"
