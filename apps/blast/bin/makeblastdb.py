#!/usr/bin/env python3
"""Build a BLAST protein database and write its prefix file as the task's output.

    makeblastdb.py FASTA PREFIX

Runs `makeblastdb -dbtype prot -in FASTA -out PREFIX`, which writes PREFIX.pin,
PREFIX.phr, PREFIX.psq and friends but nothing at PREFIX itself. This wrapper then
writes PREFIX as a small manifest (one "file<TAB>bytes" line per database file),
so the workflow has one file that stands for the database: dataflow waits on it,
and `blastp -db PREFIX` finds the real files beside it. makeblastdb's chatter is
shown only if it fails.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from typing import Sequence


def main(argv: Sequence[str]) -> int:
    if len(argv) != 2:
        print("usage: makeblastdb.py FASTA PREFIX", file=sys.stderr)
        return 2
    fasta, prefix = argv
    os.makedirs(os.path.dirname(os.path.abspath(prefix)), exist_ok=True)
    command = ["makeblastdb", "-dbtype", "prot", "-in", fasta, "-out", prefix,
               "-title", os.path.basename(prefix)]
    try:
        result = subprocess.run(command, capture_output=True, text=True)
    except OSError as e:
        print(f"makeblastdb.py: cannot run makeblastdb ({e.strerror}); install NCBI BLAST+"
              " (Debian package ncbi-blast+, see setup.d/50-blast.sh)", file=sys.stderr)
        return 127
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        return result.returncode
    parts = sorted(p for p in glob.glob(glob.escape(prefix) + ".*") if not p.endswith(".part"))
    temp = f"{prefix}.part"
    with open(temp, "w", encoding="utf-8") as marker:
        marker.writelines(f"{os.path.basename(p)}\t{os.path.getsize(p)}\n" for p in parts)
    os.replace(temp, prefix)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
