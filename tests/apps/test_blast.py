"""The parallel BLAST workflow (apps/blast) end to end, through the CLI, at small size.

The reference is independent of the workflow: one real `blastp` against the unsplit
database, built and searched here, with `-dbsize` and `-max_target_seqs` counted here
from the FASTA file. The merged table must equal it line for line, all 12 columns, and
every planted homolog (from the generator's truth table) must be its query's top hit.
The same run under other stores (`--storage s3` on MinIO, `--storage scp` on sshd,
`--storage chirp` on a chirp_server and `--storage hdfs` on a NameNode and DataNode, each
staged and through our mount, all started here on loopback) must give byte-identical hit tables.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from hostkit.errors import MissingDependencyError, StorageConfigError
from storage_adapters.chirp import service as chirp_service
from storage_adapters.services import service_status, start_service, stop_service

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / "apps" / "blast" / "blast.swift"
BIN = REPO / "apps" / "blast" / "bin"
FRAGMENTS = 7
PROTEINS = 600
QUERIES = 12
EXPECTED_APP_CALLS = {"generate": 1, "split_fasta": 1, "makeblastdb": FRAGMENTS, "blastp": FRAGMENTS,
                      "merge_hits": 1}
STORE_BACKENDS = ("s3", "scp", "chirp", "chirp-shared", "hdfs", "hdfs-shared")
SERVICE_FOR = {"s3": "minio", "scp": "sshd", "chirp": "chirp", "chirp-shared": "chirp", "hdfs": "hdfs",
               "hdfs-shared": "hdfs"}
# `*-shared`: the chirp and hdfs services in shared mode, through our FUSE mounts.
STORE_CONFIG = ('[storage.chirp-shared]\nbackend = "chirp"\nmode = "shared"\n'
                '[storage.hdfs-shared]\nbackend = "hdfs"\nmode = "shared"\n')

pytestmark = pytest.mark.skipif(
    not (shutil.which("blastp") and shutil.which("makeblastdb")),
    reason="NCBI BLAST+ (blastp, makeblastdb) is not installed: run setup.d/50-blast.sh",
)


SMALL_RUN = (f"--fragments={FRAGMENTS}", f"--proteins={PROTEINS}", f"--query-count={QUERIES}",
             "--seed=5", "--out=out")


def run_workflow(cwd: Path, *args: str, storage: str | None = None,
                 env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(env or os.environ, PYTHONPATH=str(REPO))
    where = ["--storage", storage] if storage else []
    command = [sys.executable, "-m", "swiftcloud", "run", "--run-dir", "run", *where, str(WORKFLOW),
               f"--bin={BIN}", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def app_calls(run_dir: Path) -> Counter[str]:
    """App tasks that ended, by label, from a run's event log; every task must have succeeded."""
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    assert all(e["status"] == "ok" for e in events if e["event"] == "end")
    assert events[-1]["event"] == "run_end" and events[-1]["exit_status"] == 0
    return Counter(e["label"] for e in events if e["event"] == "end" and e["kind"] == "app")


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
    result = run_workflow(cwd, *SMALL_RUN)
    assert result.returncode == 0, result.stderr
    assert f"blast: {FRAGMENTS} fragments, {PROTEINS} sequences" in result.stdout
    (cwd / "stdout.txt").write_text(result.stdout)
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
    names = [f"frag_{k:04d}" for k in range(1, FRAGMENTS + 1)]
    assert (out / "fragments" / "manifest.txt").read_text().split() == [f"{n}.fasta" for n in names]
    with zipfile.ZipFile(out / "fragments" / "fragments.zip") as archive:
        assert archive.namelist() == [f"{n}.fasta" for n in names]
        joined = b"".join(archive.read(f"{n}.fasta") for n in names)
    assert joined == (out / "data" / "db.fasta").read_bytes()
    records = read_fasta(out / "data" / "db.fasta")
    residues, sequences = (out / "fragments" / "stats.txt").read_text().split()
    assert (int(residues), int(sequences)) == (sum(map(len, records.values())), PROTEINS)
    for name in names:
        with zipfile.ZipFile(out / "db" / f"{name}.zip") as database:
            assert {f"{name}.{ext}" for ext in ("pin", "psq", "phr")} <= set(database.namelist())
            assert all("/" not in member for member in database.namelist())


def test_every_step_writes_only_the_files_it_declares(generated: Path) -> None:
    """What a staging store needs: no side files beside the declared outputs."""
    out = generated / "out"
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    names = [f"frag_{k:04d}" for k in range(1, FRAGMENTS + 1)]
    assert written == sorted(
        ["data/db.fasta", "data/queries.fasta", "data/truth.tsv", "fragments/fragments.zip",
         "fragments/manifest.txt", "fragments/stats.txt", "hits.tsv", "top_hits.tsv"]
        + [f"db/{n}.zip" for n in names] + [f"hits/{n}.tsv" for n in names])


def test_app_calls_are_one_split_n_builds_n_searches_one_merge(generated: Path) -> None:
    assert app_calls(generated / "run") == EXPECTED_APP_CALLS

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


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """MinIO (for --storage s3), sshd (for --storage scp), a chirp_server and HDFS with our
    mounts (for --storage chirp, hdfs) on loopback, in one state directory; the environment for CLI runs
    that use them. Stopped by the PIDs they started."""
    state = tmp_path_factory.mktemp("stores")
    started: list[str] = []
    try:
        for name in dict.fromkeys(SERVICE_FOR[backend] for backend in STORE_BACKENDS):
            try:
                start_service(name, str(state))
            except (MissingDependencyError, StorageConfigError) as error:
                pytest.skip(f"{name} cannot run here: {error}")
            started.append(name)
        yield {**os.environ, "SWIFTCLOUD_STATE_DIR": str(state)}
    finally:
        for name in reversed(started):
            stop_service(name, str(state))
        assert all(service_status(name, str(state)) is None for name in started)
        chirp_service.purge(str(state))


@pytest.mark.parametrize("backend", STORE_BACKENDS)
def test_a_store_gives_the_same_hits_as_plain_paths(backend: str, stores: dict[str, str],
                                                    generated: Path, tmp_path: Path) -> None:
    (tmp_path / "swiftcloud.toml").write_text(STORE_CONFIG)
    result = run_workflow(tmp_path, *SMALL_RUN, storage=backend, env=stores)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (generated / "stdout.txt").read_text()
    assert app_calls(tmp_path / "run") == EXPECTED_APP_CALLS
    assert not (tmp_path / "out").exists(), f"--storage {backend} wrote outside its store"
    for name in ("hits.tsv", "top_hits.tsv"):
        fetched = tmp_path / "fetched" / name
        got = subprocess.run([sys.executable, "-m", "swiftcloud", "get", "--storage", backend,
                              f"out/{name}", str(fetched)], cwd=tmp_path,
                             env=dict(stores, PYTHONPATH=str(REPO)),
                             capture_output=True, text=True, timeout=120)
        assert got.returncode == 0, got.stderr
        assert fetched.read_bytes() == (generated / "out" / name).read_bytes(), name
