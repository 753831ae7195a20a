"""The parallel BLAST workflow (apps/blast) end to end, through the CLI, at small size.

The reference is independent of the workflow: one real `blastp` against the unsplit
database, built and searched here, with `-dbsize` and `-max_target_seqs` counted here
from the FASTA file. The merged table must equal it line for line, all 12 columns, and
every planted homolog (from the generator's truth table) must be its query's top hit.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / "apps" / "blast" / "blast.swift"
BIN = REPO / "apps" / "blast" / "bin"
FRAGMENTS = 7
PROTEINS = 600
QUERIES = 12

pytestmark = pytest.mark.skipif(
    not (shutil.which("blastp") and shutil.which("makeblastdb")),
    reason="NCBI BLAST+ (blastp, makeblastdb) is not installed: run setup.d/50-blast.sh",
)


def run_workflow(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    command = [sys.executable, "-m", "engine.cli", "run", "--run-dir", "run", str(WORKFLOW),
               f"--bin={BIN}", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def read_fasta(path: Path) -> dict[str, str]:
    records: dict[str, str] = {}
    name = ""
    for line in path.read_text().splitlines():
        if line.startswith(">"):
            name = line[1:].split()[0]
            records[name] = ""
        else:
            records[name] += line.strip()
    return records


def hit_order(line: str) -> tuple:
    """The documented order: query, e-value up, bit score down, subject, other columns."""
    f = line.split("\t")
    return (f[0], float(f[10]), -float(f[11]), f[1], *(float(x) for x in f[2:10]))


def reference_hits(workdir: Path, db: Path, queries: Path) -> list[str]:
    """One blastp against the whole database, with the same search options."""
    records = read_fasta(db)
    prefix = workdir / "whole"
    subprocess.run(["makeblastdb", "-dbtype", "prot", "-in", str(db), "-out", str(prefix)],
                   check=True, capture_output=True)
    result = subprocess.run(
        ["blastp", "-db", str(prefix), "-query", str(queries), "-outfmt", "6",
         "-dbsize", str(sum(len(s) for s in records.values())),
         "-max_target_seqs", str(len(records)), "-evalue", "10"],
        check=True, capture_output=True, text=True)
    return sorted(result.stdout.splitlines(), key=hit_order)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run that generates its own data: the working directory it ran in."""
    cwd = tmp_path_factory.mktemp("blast")
    result = run_workflow(cwd, f"--fragments={FRAGMENTS}", f"--proteins={PROTEINS}",
                          f"--query-count={QUERIES}", "--seed=5", "--out=out")
    assert result.returncode == 0, result.stderr
    assert f"blast: {FRAGMENTS} fragments, {PROTEINS} sequences" in result.stdout
    return cwd


def test_merged_hits_equal_one_search_of_the_unsplit_database(generated: Path) -> None:
    out = generated / "out"
    merged = (out / "hits.tsv").read_text().splitlines()
    reference = reference_hits(generated, out / "data" / "db.fasta", out / "data" / "queries.fasta")
    assert len(reference) > 2 * QUERIES  # chance hits too, not only the planted ones
    assert merged == reference
    assert merged == sorted(merged, key=hit_order)
    hits_per_fragment = [len((out / "hits" / f"frag_{k:04d}.tsv").read_text().splitlines())
                         for k in range(1, FRAGMENTS + 1)]
    assert sum(hits_per_fragment) == len(merged) and min(hits_per_fragment) > 0


def test_every_planted_homolog_is_its_querys_top_hit(generated: Path) -> None:
    out = generated / "out"
    truth = dict(line.split("\t")[:2] for line in (out / "data" / "truth.tsv").read_text().splitlines()[1:])
    assert len(truth) == QUERIES
    first_hit: dict[str, str] = {}
    for line in (out / "hits.tsv").read_text().splitlines():
        query, subject = line.split("\t")[:2]
        first_hit.setdefault(query, subject)
    assert first_hit == truth
    top = [line.split("\t")[:2] for line in (out / "top_hits.tsv").read_text().splitlines()]
    assert dict(top) == truth and len(top) == QUERIES


def test_fragments_partition_the_database_and_each_has_a_blast_database(generated: Path) -> None:
    out = generated / "out"
    paths = (out / "fragments" / "manifest.txt").read_text().split()
    assert paths == [f"out/fragments/frag_{k:04d}.fasta" for k in range(1, FRAGMENTS + 1)]
    joined = b"".join((generated / p).read_bytes() for p in paths)
    assert joined == (out / "data" / "db.fasta").read_bytes()
    records = read_fasta(out / "data" / "db.fasta")
    residues, sequences = (out / "fragments" / "stats.txt").read_text().split()
    assert (int(residues), int(sequences)) == (sum(map(len, records.values())), PROTEINS)
    for k in range(1, FRAGMENTS + 1):
        prefix = out / "db" / f"frag_{k:04d}"
        listed = dict(line.split("\t") for line in prefix.read_text().splitlines())
        assert {f"{prefix.name}.{ext}" for ext in ("pin", "psq", "phr")} <= set(listed)
        assert all((prefix.parent / name).stat().st_size == int(size) for name, size in listed.items())


def test_app_calls_are_one_split_n_builds_n_searches_one_merge(generated: Path) -> None:
    events = [json.loads(line) for line in (generated / "run" / "events.jsonl").read_text().splitlines()]
    ended = Counter(e["label"] for e in events if e["event"] == "end" and e["kind"] == "app")
    assert ended == {"generate": 1, "split_fasta": 1, "makeblastdb": FRAGMENTS, "blastp": FRAGMENTS,
                     "merge_hits": 1}
    assert all(e["status"] == "ok" for e in events if e["event"] == "end")
    assert events[-1]["event"] == "run_end" and events[-1]["exit_status"] == 0

    # The README's figures command reads the same log.
    report = subprocess.run([sys.executable, "-m", "apps.blast.figures", str(generated / "run")],
                            cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert f"({2 * FRAGMENTS + 3} app, 1 python)" in report.splitlines()[0]
    ratio = float(report.split("ratio makespan / ideal: ")[1].split()[0])
    assert ratio >= 0.99  # never more tasks at once than workers


def test_given_files_and_another_split_give_the_same_hits(generated: Path, tmp_path: Path) -> None:
    data = generated / "out" / "data"
    result = run_workflow(tmp_path, "--fragments=3", f"--db={data / 'db.fasta'}",
                          f"--queries={data / 'queries.fasta'}", "--out=elsewhere")
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "elsewhere" / "data").exists()  # nothing generated
    assert (tmp_path / "elsewhere" / "hits.tsv").read_bytes() == (generated / "out" / "hits.tsv").read_bytes()


def test_generator_is_deterministic_and_plants_mutated_copies(tmp_path: Path) -> None:
    def generate(name: str, seed: int) -> tuple[bytes, bytes, str]:
        files = [tmp_path / f"{name}.{ext}" for ext in ("db.fasta", "q.fasta", "truth.tsv")]
        subprocess.run([sys.executable, str(BIN / "make_data.py"), "--proteins", "300", "--queries",
                        "10", "--seed", str(seed), "--db", str(files[0]), "--query-out", str(files[1]),
                        "--truth", str(files[2])], check=True)
        return files[0].read_bytes(), files[1].read_bytes(), files[2].read_text()

    first, again, other = generate("a", 3), generate("b", 3), generate("c", 4)
    assert first == again and first[0] != other[0]
    db, queries = read_fasta(tmp_path / "a.db.fasta"), read_fasta(tmp_path / "a.q.fasta")
    lengths = [len(s) for s in db.values()]
    assert 250 < sum(lengths) / len(lengths) < 350
    composition = Counter("".join(db.values()))
    assert set(composition) == set("ACDEFGHIKLMNPQRSTVWY")
    assert composition["L"] > composition["A"] > composition["W"]  # Swiss-Prot's ordering
    for line in first[2].splitlines()[1:]:
        query, source, identity = line.split("\t")
        assert queries[query] != db[source] and 0.5 <= float(identity) <= 0.9


def test_too_many_fragments_is_a_clear_user_error(tmp_path: Path) -> None:
    result = run_workflow(tmp_path, "--fragments=50", "--proteins=20", "--query-count=2")
    assert result.returncode == 1
    assert "cannot split 20 sequences into 50 fragments" in result.stderr
    assert "Traceback" not in result.stderr
