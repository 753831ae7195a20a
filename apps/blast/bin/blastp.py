#!/usr/bin/env python3
"""Search queries against one fragment's BLAST database, packed as makeblastdb.py made it.

    blastp.py DATABASE QUERIES DBSIZE MAX_TARGETS EVALUE HITS

Unpacks the DATABASE zip into a private scratch directory and runs, there,

    blastp -db NAME -query QUERIES -outfmt 6 -dbsize DBSIZE -max_target_seqs MAX_TARGETS
           -evalue EVALUE -out HITS.part

then renames HITS.part to HITS. With DBSIZE the residue count of the whole
database and MAX_TARGETS its sequence count, the fragment's hits carry the
e-values of a search of the unsplit database and none is cut off, so the union
over all fragments equals one search of the whole database. blastp runs inside
the scratch directory so that the database name never holds a space (BLAST reads
`-db` as a space-separated list).
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

from tool_support import ToolError, open_archive, private_directory, replace_atomically, run_main, run_tool


def database_name(members: Sequence[str], path: str) -> str:
    """The name blastp's -db wants: the stem of the alias file (.pal) of a
    multi-volume database, else of the one index file (.pin)."""
    for extension in (".pal", ".pin"):
        stems = [m[: -len(extension)] for m in members if m.endswith(extension)]
        if len(stems) == 1:
            return stems[0]
        if stems:
            raise ToolError(f"{path}: holds {len(stems)} {extension} files; expected one database")
    raise ToolError(f"{path}: holds no BLAST protein database (no .pin or .pal member)")


def search(database: str, queries: str, dbsize: str, max_targets: str, evalue: str, hits: str) -> None:
    for label, value in (("DBSIZE", dbsize), ("MAX_TARGETS", max_targets)):
        if not value.isdigit() or int(value) < 1:
            raise ToolError(f"{label} must be a positive integer, not '{value}'", 2)
    if not os.path.isfile(queries):
        raise ToolError(f"{queries}: no such query file")
    with private_directory("blast-blastp-") as scratch:
        with open_archive(database) as archive:
            name = database_name(archive.namelist(), database)
            archive.extractall(scratch)

        def write(temp: str) -> None:
            run_tool(["blastp", "-db", name, "-query", os.path.abspath(queries), "-outfmt", "6",
                      "-dbsize", dbsize, "-max_target_seqs", max_targets, "-evalue", evalue,
                      "-out", os.path.abspath(temp)], cwd=scratch)
        replace_atomically(hits, write)


def main(argv: Sequence[str]) -> int:
    return run_main(argv, "blastp.py DATABASE QUERIES DBSIZE MAX_TARGETS EVALUE HITS", search)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
