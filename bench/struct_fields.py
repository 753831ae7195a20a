#!/usr/bin/env python3
"""Benchmark: what structs cost now that each field is a future of its own (§13).

Two scripts, each run against a reference measured in the same run — the same
script over an empty range, so that start-up and compiling cancel out:
`wide` builds structs of 1,000 fields field by field, copies each whole and
into an array element and reads two fields back (cost per field); `many` fills
an array of 100,000 small structs, each built by fields and copied into its
element, and reads every one back (cost per element). With `--baseline DIR`
(another checkout, e.g. `git worktree add /tmp/main main`) the same scripts run
on it too, interleaved with ours, and the ratio ours/baseline is printed.
Prints one JSON line per script and checkout: medians, and the spread (min–max)
of the repeats.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from hostkit.bytecode import byte_compile  # noqa: E402

WIDE_FIELDS = 1000


def wide_script(structs: int) -> str:
    """`structs` structs of WIDE_FIELDS int fields: built, copied twice, read back
    (none: the reference, the same script over an empty range)."""
    fields = " ".join(f"int f{k};" for k in range(WIDE_FIELDS))
    writes = "\n".join(f"  w.f{k} = i + {k};" for k in range(WIDE_FIELDS))
    last = WIDE_FIELDS - 1
    return (f"import stats;\ntype W {{ {fields} }}\nint out[];\n"
            f"foreach i in [0:{structs - 1}] {{\n  W w;\n{writes}\n  W c = w;\n  W E[];\n  E[0] = c;\n"
            f"  out[i] = E[0].f0 + E[0].f{last};\n}}\ntrace(size(out), sum_integer(out));\n")


def many_script(elements: int) -> str:
    """An array of `elements` small structs, each built by fields and copied in, read back
    (none: the reference)."""
    return (f"import stats;\nimport string;\ntype P {{ int a; float b; string s; }}\nP A[];\n"
            f"foreach i in [0:{elements - 1}] {{\n  P p;\n  p.a = i;\n  p.b = itof(i);\n  p.s = \"x\";\n"
            f"  A[i] = p;\n}}\nint back[];\n"
            f"foreach i in [0:{elements - 1}] {{\n  back[i] = A[i].a + float2int(A[i].b) + strlen(A[i].s);\n}}\n"
            f"trace(size(back), sum_integer(back));\n")


def run(checkout: str, text: str, workdir: str) -> tuple[float, float]:
    """Run a script with the engine of `checkout`; (wall seconds, peak RSS in MB) of that run."""
    path = os.path.join(workdir, "bench.swift")
    with open(path, "w") as f:
        f.write(text)
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "engine.cli", "run", "--run-dir", os.path.join(workdir, "run"),
                              path], cwd=workdir, env={**os.environ, "PYTHONPATH": checkout},
                             stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own peak memory, not the largest so far
    elapsed = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{checkout}: the benchmark script failed (exit {child.returncode})")
    return elapsed, usage.ru_maxrss / 1024.0


def summary(times: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(times), 3), "min": round(min(times), 3), "max": round(max(times), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--wide-structs", type=int, default=300, help="structs of 1,000 fields to build")
    parser.add_argument("--elements", type=int, default=100_000, help="structs in the array")
    parser.add_argument("--baseline", help="another checkout to compare with, run interleaved with this one")
    args = parser.parse_args()
    checkouts = {"ours": ROOT}
    if args.baseline:
        checkouts = {"baseline": os.path.abspath(args.baseline), **checkouts}
    scripts = {
        "wide": (wide_script(args.wide_structs), wide_script(0), args.wide_structs * WIDE_FIELDS, "field"),
        "many": (many_script(args.elements), many_script(0), args.elements, "element"),
    }
    net: dict[tuple[str, str], list[float]] = {}
    rss: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as workdir:
        for checkout in checkouts.values():
            byte_compile(checkout)  # where PYTHONDONTWRITEBYTECODE is set, no run writes it
            run(checkout, many_script(0), workdir)  # warm up: the parser cache written once
        for _ in range(args.repeat):
            for name, (text, reference, _units, _unit) in scripts.items():
                for who, checkout in checkouts.items():
                    ref_time, _ = run(checkout, reference, workdir)
                    elapsed, peak = run(checkout, text, workdir)
                    net.setdefault((name, who), []).append(elapsed - ref_time)
                    rss.setdefault((name, who), []).append(peak)
    for name, (_text, _reference, units, unit) in scripts.items():
        base: Optional[float] = None
        for who in checkouts:
            times = net[(name, who)]
            record = {"benchmark": f"struct_fields_{name}", "checkout": who, f"{unit}s": units,
                      "net_s": summary(times),
                      f"us_per_{unit}": round(statistics.median(times) / units * 1e6, 3),
                      "peak_rss_mb": round(statistics.median(rss[(name, who)]), 1), "repeats": args.repeat}
            if who == "baseline":
                base = statistics.median(times)
            elif base is not None:
                record["ratio_to_baseline"] = round(statistics.median(times) / base, 3)
                # our fastest and slowest run against the baseline's median
                record["ratio_spread"] = [round(min(times) / base, 3), round(max(times) / base, 3)]
            print(json.dumps(record))


if __name__ == "__main__":
    main()
