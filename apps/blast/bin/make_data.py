#!/usr/bin/env python3
"""Generate a synthetic protein database and a query set with planted homologs.

Database proteins are random sequences drawn from the amino-acid composition of
UniProtKB/Swiss-Prot, with lengths around 300. Each query is a mutated copy of one
database entry (substitutions drawn from the same composition, plus a few short
insertions and deletions), so its source is the one true homolog in the database.
The truth table (query id, source id, identity used) lets a test check that every
planted homolog comes out as its query's top hit. Output is a pure function of the
arguments: the same seed always gives the same files.

    make_data.py --proteins 2000 --queries 20 --seed 1 \\
        --db db.fasta --query-out queries.fasta --truth truth.tsv
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from typing import Sequence

# Swiss-Prot amino-acid composition in percent (UniProtKB/Swiss-Prot release statistics).
AMINO_ACID_PERCENT = {
    "A": 8.25, "R": 5.53, "N": 4.06, "D": 5.45, "C": 1.37, "Q": 3.93, "E": 6.75,
    "G": 7.07, "H": 2.27, "I": 5.96, "L": 9.66, "K": 5.84, "M": 2.42, "F": 3.86,
    "P": 4.70, "S": 6.56, "T": 5.34, "W": 1.08, "Y": 2.92, "V": 6.87,
}
RESIDUES = tuple(AMINO_ACID_PERCENT)
WEIGHTS = tuple(AMINO_ACID_PERCENT.values())
FASTA_LINE_WIDTH = 60
MIN_LENGTH = 50


def random_protein(rng: random.Random, mean_length: int) -> str:
    """A protein starting with methionine, length ~ N(mean, mean/5), at least MIN_LENGTH."""
    length = max(MIN_LENGTH, round(rng.gauss(mean_length, mean_length / 5)))
    return "M" + "".join(rng.choices(RESIDUES, WEIGHTS, k=length - 1))


def mutate(rng: random.Random, source: str, identity: float, indel_rate: float) -> str:
    """Copy `source`, substituting each residue with probability 1 - identity and
    inserting or deleting a short run (1-3 residues) with probability `indel_rate` per site."""
    out: list[str] = []
    for residue in source:
        roll = rng.random()
        if roll < indel_rate / 2:
            continue  # deletion of this residue (runs form from consecutive rolls)
        if roll < indel_rate:
            out.extend(rng.choices(RESIDUES, WEIGHTS, k=rng.randint(1, 3)))
        if rng.random() < 1 - identity:
            out.append(rng.choice([r for r in RESIDUES if r != residue]))
        else:
            out.append(residue)
    return "".join(out)


def write_fasta(path: str, records: Sequence[tuple[str, str]]) -> None:
    """Write records atomically (temporary name, then rename)."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    temp = f"{path}.part"
    with open(temp, "w", encoding="ascii") as out:
        for name, sequence in records:
            out.write(f">{name}\n")
            for start in range(0, len(sequence), FASTA_LINE_WIDTH):
                out.write(sequence[start:start + FASTA_LINE_WIDTH] + "\n")
    os.replace(temp, path)


def generate(proteins: int, queries: int, seed: int, mean_length: int,
             min_identity: float, max_identity: float, indel_rate: float
             ) -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[tuple[str, str, float]]]:
    """(database records, query records, truth rows) for the given parameters."""
    rng = random.Random(seed)
    width = max(6, len(str(proteins)))
    database = [(f"p{i:0{width}d}", random_protein(rng, mean_length)) for i in range(1, proteins + 1)]
    sources = rng.sample(range(proteins), queries)
    query_records: list[tuple[str, str]] = []
    truth: list[tuple[str, str, float]] = []
    for number, source in enumerate(sources, start=1):
        identity = round(rng.uniform(min_identity, max_identity), 3)
        name = f"q{number:04d}"
        query_records.append((name, mutate(rng, database[source][1], identity, indel_rate)))
        truth.append((name, database[source][0], identity))
    return database, query_records, truth


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--proteins", type=int, default=2000, help="database size in sequences")
    p.add_argument("--queries", type=int, default=20, help="number of queries (planted homologs)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--length", type=int, default=300, help="mean protein length")
    p.add_argument("--min-identity", type=float, default=0.5)
    p.add_argument("--max-identity", type=float, default=0.9)
    p.add_argument("--indel-rate", type=float, default=0.01, help="indel probability per residue")
    p.add_argument("--db", required=True, help="database FASTA to write")
    p.add_argument("--query-out", required=True, help="query FASTA to write")
    p.add_argument("--truth", required=True, help="TSV to write: query, source, identity")
    args = p.parse_args(argv)
    if args.proteins < 1 or not 0 <= args.queries <= args.proteins:
        p.error("need --proteins >= 1 and 0 <= --queries <= --proteins")
    if not 0 < args.min_identity <= args.max_identity <= 1:
        p.error("need 0 < --min-identity <= --max-identity <= 1")
    if args.length < MIN_LENGTH:
        p.error(f"--length must be at least {MIN_LENGTH}")
    return args


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    database, query_records, truth = generate(args.proteins, args.queries, args.seed, args.length,
                                              args.min_identity, args.max_identity, args.indel_rate)
    write_fasta(args.db, database)
    write_fasta(args.query_out, query_records)
    temp = f"{args.truth}.part"
    with open(temp, "w", encoding="ascii") as out:
        out.write("query\tsource\tidentity\n")
        out.writelines(f"{q}\t{s}\t{identity}\n" for q, s, identity in truth)
    os.replace(temp, args.truth)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
