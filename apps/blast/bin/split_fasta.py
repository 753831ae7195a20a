#!/usr/bin/env python3
"""Split a FASTA database into N fragments of (nearly) equal sequence counts.

    split_fasta.py DB N DIR MANIFEST STATS

Writes DIR/frag_0001.fasta ... (records copied verbatim, contiguous, in database
order), MANIFEST with one fragment path per line (DIR joined with the file name,
so relative paths stay relative), and STATS with one line "RESIDUES SEQUENCES"
for the whole database: the `-dbsize` and `-max_target_seqs` every fragment
search needs so that its e-values match a search of the unsplit database.
"""

from __future__ import annotations

import os
import sys
from typing import Iterator, Sequence


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


def write_atomically(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    temp = f"{path}.part"
    with open(temp, "w", encoding="latin-1") as out:
        out.write(text)
    os.replace(temp, path)


def split(db: str, fragments: int, directory: str) -> tuple[list[str], int, int]:
    """Write the fragments; return (fragment paths, total residues, total sequences)."""
    records = list(read_records(db))
    if not records:
        raise ValueError(f"{db}: no FASTA records")
    if not 1 <= fragments <= len(records):
        raise ValueError(f"cannot split {len(records)} sequences into {fragments} fragments"
                         f" (need 1 <= N <= {len(records)})")
    width = max(4, len(str(fragments)))
    paths = []
    for k in range(fragments):
        first, last = k * len(records) // fragments, (k + 1) * len(records) // fragments
        path = os.path.join(directory, f"frag_{k + 1:0{width}d}.fasta")
        write_atomically(path, "".join(line for lines, _ in records[first:last] for line in lines))
        paths.append(path)
    return paths, sum(residues for _, residues in records), len(records)


def main(argv: Sequence[str]) -> int:
    if len(argv) != 5:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    db, count, directory, manifest, stats = argv
    try:
        paths, residues, sequences = split(db, int(count), directory)
    except (ValueError, OSError) as e:
        print(f"split_fasta: {e}", file=sys.stderr)
        return 1
    write_atomically(manifest, "".join(f"{path}\n" for path in paths))
    write_atomically(stats, f"{residues} {sequences}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
