#!/usr/bin/env python3
"""Merge per-fragment `blastp -outfmt 6` hit tables into one sorted table.

    merge_hits.py MERGED TOP PART...

Order: query id, then e-value ascending, bit score descending, subject id, then
the remaining columns, so the result is one total order that does not depend on
how the database was split. TOP gets each query's first (best) hit.
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

COLUMNS = 12  # qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore


def sort_key(fields: list[str]) -> tuple:
    """Query, best e-value first, best bit score first, subject, then the other columns."""
    qseqid, sseqid = fields[0], fields[1]
    numbers = [float(value) for value in fields[2:]]
    evalue, bitscore = numbers[8], numbers[9]
    return (qseqid, evalue, -bitscore, sseqid, *numbers[:8])


def read_hits(paths: Sequence[str]) -> list[list[str]]:
    hits = []
    for path in paths:
        with open(path, encoding="utf-8") as table:
            for number, line in enumerate(table, start=1):
                if not line.strip() or line.startswith("#"):
                    continue
                fields = line.rstrip("\n").split("\t")
                if len(fields) != COLUMNS:
                    raise ValueError(f"{path}:{number}: expected {COLUMNS} tab-separated columns,"
                                     f" found {len(fields)}")
                hits.append(fields)
    return hits


def write_atomically(path: str, rows: Sequence[list[str]]) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    temp = f"{path}.part"
    with open(temp, "w", encoding="utf-8") as out:
        out.writelines("\t".join(fields) + "\n" for fields in rows)
    os.replace(temp, path)


def main(argv: Sequence[str]) -> int:
    if len(argv) < 2:
        print("usage: merge_hits.py MERGED TOP PART...", file=sys.stderr)
        return 2
    merged, top, parts = argv[0], argv[1], argv[2:]
    try:
        hits = sorted(read_hits(parts), key=sort_key)
    except (ValueError, OSError) as e:
        print(f"merge_hits: {e}", file=sys.stderr)
        return 1
    best: dict[str, list[str]] = {}
    for fields in hits:
        best.setdefault(fields[0], fields)
    write_atomically(merged, hits)
    write_atomically(top, list(best.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
