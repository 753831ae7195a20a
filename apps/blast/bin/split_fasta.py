#!/usr/bin/env python3
"""Split a FASTA database into N fragments of (nearly) equal sequence counts.

    split_fasta.py DB N ARCHIVE MANIFEST STATS

Writes three files and nothing else, so a staging store that moves only a task's
declared outputs moves everything: ARCHIVE, a zip holding frag_0001.fasta ...
(records copied verbatim, contiguous, in database order); MANIFEST, the member
names one per line; and STATS, one line "RESIDUES SEQUENCES" for the whole
database: the `-dbsize` and `-max_target_seqs` every fragment search needs so
that its e-values match a search of the unsplit database.
"""

from __future__ import annotations

import sys
from typing import Iterator, Sequence

from tool_support import ToolError, replace_atomically, write_zip


def read_records(path: str) -> Iterator[tuple[list[str], int]]:
    """Yield (record lines verbatim, residue count) per FASTA record."""
    lines: list[str] = []
    residues = 0
    with open(path, encoding="latin-1") as fasta:
        for line in fasta:
            if line.startswith(">"):
                if lines:
                    yield lines, residues
                lines, residues = [line], 0
            elif lines:
                lines.append(line)
                residues += len("".join(line.split()))
            elif line.strip():
                raise ValueError(f"{path}: sequence data before the first '>' header")
    if lines:
        yield lines, residues


def split(db: str, fragments: int) -> tuple[list[tuple[str, bytes]], int, int]:
    """The fragments as (member name, FASTA bytes), total residues, total sequences."""
    records = list(read_records(db))
    if not records:
        raise ValueError(f"{db}: no FASTA records")
    if not 1 <= fragments <= len(records):
        raise ValueError(f"cannot split {len(records)} sequences into {fragments} fragments"
                         f" (need 1 <= N <= {len(records)})")
    width = max(4, len(str(fragments)))
    members = []
    for k in range(fragments):
        first, last = k * len(records) // fragments, (k + 1) * len(records) // fragments
        text = "".join(line for lines, _ in records[first:last] for line in lines)
        members.append((f"frag_{k + 1:0{width}d}.fasta", text.encode("latin-1")))
    return members, sum(residues for _, residues in records), len(records)


def write_text(path: str, text: str) -> None:
    def write(temp: str) -> None:
        with open(temp, "w", encoding="utf-8") as out:
            out.write(text)
    replace_atomically(path, write)


def main(argv: Sequence[str]) -> int:
    if len(argv) != 5:
        print("usage: split_fasta.py DB N ARCHIVE MANIFEST STATS", file=sys.stderr)
        return 2
    db, count, archive, manifest, stats = argv
    try:
        members, residues, sequences = split(db, int(count))
        write_zip(archive, members)
        write_text(manifest, "".join(f"{name}\n" for name, _ in members))
        write_text(stats, f"{residues} {sequences}\n")
    except (ValueError, OSError, ToolError) as e:
        print(f"split_fasta: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
