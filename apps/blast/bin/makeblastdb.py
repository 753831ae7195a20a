#!/usr/bin/env python3
"""Build the BLAST protein database of one fragment, packed in one zip archive.

    makeblastdb.py ARCHIVE MEMBER DATABASE

Extracts MEMBER (e.g. frag_0001.fasta) from the split's ARCHIVE into a private
scratch directory, runs `makeblastdb -dbtype prot -in frag_0001.fasta -out
frag_0001` there, and writes DATABASE: a zip of the files makeblastdb made
(frag_0001.pin, .phr, .psq, ...). The database is thus one declared output that
any storage backend moves whole, and blastp.py unpacks it where it searches.
makeblastdb's chatter is shown only if it fails, as one line.
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

from tool_support import ToolError, extract_member, open_archive, private_directory, run_main, run_tool, write_zip


def build(archive_path: str, member: str, database: str) -> None:
    name, extension = os.path.splitext(member)
    if not name or extension not in (".fasta", ".fa", ".faa"):
        raise ToolError(f"'{member}' is not a FASTA member name (NAME.fasta)", 2)
    with private_directory("blast-makeblastdb-") as scratch:
        with open_archive(archive_path) as archive:
            fasta = extract_member(archive, member, scratch)
        run_tool(["makeblastdb", "-dbtype", "prot", "-in", os.path.basename(fasta), "-out", name,
                  "-title", name], cwd=scratch)
        os.unlink(fasta)  # the database files alone go into the archive
        made = sorted(os.listdir(scratch))
        if not any(f.endswith((".pin", ".pal")) for f in made):
            raise ToolError(f"makeblastdb wrote no database index for {member}")
        write_zip(database, [(f, os.path.join(scratch, f)) for f in made])


def main(argv: Sequence[str]) -> int:
    return run_main(argv, "makeblastdb.py ARCHIVE MEMBER DATABASE", build)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
