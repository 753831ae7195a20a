"""Output digests in the run log and the restart log, and `swiftcloud verify`, from real runs.

A small workflow (two apps, one `write()`, one unmapped temporary) runs through the
CLI with local workers, on local paths and on the `local` store (shared mode). Every
app output and the engine's own file must be recorded with the BLAKE3 of its bytes
on disk, computed here with the `blake3` package itself, by the name the script gives
it (the logical path on a store). `verify` must find them unchanged, then report a
changed file with both digests and a removed one as missing (exit 1), count the
removed temporary apart, and refuse a directory without a run log. A resumed run's
reused task carries its earlier digests into the new logs. `file_digest` itself is
checked against the `blake3` package on files below, at and above its block size.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from blake3 import blake3

from hostkit.digests import file_digest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = """\
app (file o) upper (file i) { "tr" "a-z" "A-Z" @stdin=i @stdout=o }
app (file o) join (file x, file y) { "cat" x y @stdout=o }
file note <"in/note.txt"> = write("hello digests\\n");
file shout <"out/shout.txt"> = upper(note);
file twice = upper(shout);
file both <"out/both.txt"> = join(shout, twice);
"""
MAPPED = ("in/note.txt", "out/shout.txt", "out/both.txt")


def swiftcloud(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "swiftcloud", *args], cwd=cwd,
                          env={**os.environ, "PYTHONPATH": str(REPO), "SWIFT_TMP": str(cwd)},
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def run(cwd: Path, run_dir: str, *options: str, script: str = SCRIPT) -> None:
    (cwd / "w.swift").write_text(script)
    result = swiftcloud(cwd, "run", "-n", "3", "--transport", "local", "--run-dir", run_dir, *options, "w.swift")
    assert result.returncode == 0, result.stderr


def recorded(run_dir: Path) -> dict[str, str]:
    """name -> digest from the run log's end, reused and published records."""
    digests: dict[str, str] = {}
    for record in map(json.loads, (run_dir / "events.jsonl").read_text().splitlines()):
        if record["event"] in ("end", "reused"):
            digests.update(record.get("digests", {}))
        elif record["event"] == "published":
            digests[record["path"]] = record["digest"]
    return digests


def blake3_of(path: Path) -> str:
    return "blake3:" + blake3(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("where", ["local paths", "local store"])
def test_every_output_is_recorded_with_its_digest_and_verifies(tmp_path: Path, where: str) -> None:
    options = ("--storage", "local") if where == "local store" else ()
    root = tmp_path / ".swiftcloud" / "store" if options else tmp_path
    run(tmp_path, "run", *options)
    digests = recorded(tmp_path / "run")
    for name in MAPPED:
        assert digests[name] == blake3_of(root / name), name
    temporaries = [name for name in digests if name not in MAPPED]
    assert len(temporaries) == 1 and not (root / temporaries[0]).exists()  # removed at the end of the run
    verified = swiftcloud(tmp_path, "verify", "run")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.splitlines()[-1] == ("swiftcloud verify: 3 unchanged; 1 temporary file(s) the run "
                                                "removed were not checked")


def test_verify_reports_a_changed_and_a_missing_file(tmp_path: Path) -> None:
    run(tmp_path, "run")
    digests = recorded(tmp_path / "run")
    (tmp_path / "out" / "shout.txt").write_text("HELLO DIGESTs\n")
    (tmp_path / "out" / "both.txt").unlink()
    verified = swiftcloud(tmp_path, "verify", "run")
    assert verified.returncode == 1
    lines = verified.stdout.splitlines()
    assert lines[:2] == [
        f"missing     out/both.txt",
        f"changed     out/shout.txt: recorded {digests['out/shout.txt']}, now "
        f"{blake3_of(tmp_path / 'out' / 'shout.txt')}",
    ]
    assert lines[-1].startswith("swiftcloud verify: 1 unchanged, 1 changed, 1 missing")
    as_json = [json.loads(line) for line in swiftcloud(tmp_path, "verify", "--json", "run").stdout.splitlines()]
    assert {finding["name"]: finding["status"] for finding in as_json} == {
        "in/note.txt": "unchanged", "out/shout.txt": "changed", "out/both.txt": "missing",
        next(name for name in digests if name not in MAPPED): "removed"}


def test_verify_needs_a_run_log(tmp_path: Path) -> None:
    result = swiftcloud(tmp_path, "verify", "nowhere")
    assert result.returncode == 2 and "no run log there" in result.stderr and "Traceback" not in result.stderr


def test_a_resumed_run_carries_the_digests_of_the_tasks_it_reuses(tmp_path: Path) -> None:
    # The input is a file of the user's: a write() would give it a new version at every run.
    script = SCRIPT.replace('write("hello digests\\n")', 'input_file("in/note.txt")')
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "note.txt").write_text("hello digests\n")
    run(tmp_path, "first", script=script)
    first = recorded(tmp_path / "first")
    restart = [json.loads(line) for line in (tmp_path / "first" / "restart.jsonl").read_text().splitlines()]
    assert {name: digest for record in restart for name, digest in record["digests"].items()} == first
    assert "out/both.txt" in first
    run(tmp_path, "second", "--resume-from", "first", script=script)
    reused = [r for r in map(json.loads, (tmp_path / "second" / "events.jsonl").read_text().splitlines())
              if r["event"] == "reused"]
    # The first `upper` is reused; the temporary's producer runs again (the run removed its
    # output), and so does `join`, which reads that new temporary.
    assert [(r["label"], r["digests"]) for r in reused] == [("upper", {"out/shout.txt": first["out/shout.txt"]})]
    assert recorded(tmp_path / "second")["out/both.txt"] == first["out/both.txt"]  # the same bytes again
    assert swiftcloud(tmp_path, "verify", "second").returncode == 0


@pytest.mark.parametrize("size", [0, 70, 1024 * 1024, 1024 * 1024 + 1, 5 * 1024 * 1024 + 12345])
def test_file_digest_is_blake3_of_the_bytes(tmp_path: Path, size: int) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(os.urandom(size))
    assert file_digest(str(path)) == blake3_of(path)
