"""Skeleton leaf program: a task's real file I/O with its compute replaced by a measured sleep.

    PY -S -E skeleton_chunk.py solve --durations D.json --first H --count N --out CHUNK INPUT...
    PY -S -E skeleton_chunk.py prepare --durations D.json --out model.json
    PY -S -E skeleton_chunk.py merge --model model.json --summary summary.json CHUNK...

`solve` and `prepare` first read every INPUT to the end (hashing it), as the
real task does before it computes; then sleep the computation time recorded for
the task in D.json (written by `apps.lmps.durations` from a real run), so that
reading through a slow store costs what it costs the real task instead of
hiding inside the sleep; then write their output under the real name, padded
to the recorded size. The computation time counts from this process's own start
less the time spent reading (the real task's count includes its start-up too).
The output starts with a one-line JSON header naming the mode, the hours, the
inputs' sizes and SHA-256 hashes, and the seconds spent reading and sleeping,
so a reader can tell a skeleton file from a real one and check that the inputs
were read. `merge` reads and checks every chunk and writes a summary (no sleep:
a merge's time depends on the hours merged, which the recording run need not
share).

Standard library only and no site packages (`-S -E`): 8,760 of these start on
two cores, so the process start must be cheap.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time

TYPE_CHECKING = False  # importing typing would add a third to the start-up time
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

LOADED = time.monotonic()
HEADER_FORMAT = "swiftcloud-lmps-skeleton"
MERGE_READERS = 16
DURATIONS_FORMAT = "swiftcloud-lmps-durations"
READ_BLOCK = 1 << 20


def process_elapsed() -> float:
    """Seconds since this process started, never more than the truth: the kernel's start time
    (in clock ticks since boot, rounded down) is taken one tick later. Without /proc, the
    time since this module was loaded."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        started = (int(fields[19]) + 1) / ticks  # field 22 of stat; fields[0] is field 3
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - started)
    except (OSError, ValueError, IndexError, AttributeError):
        return time.monotonic() - LOADED


def read_input(path: str) -> dict[str, Any]:
    """Read a file to the end as the real task would; its size and SHA-256."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as src:
        while block := src.read(READ_BLOCK):
            digest.update(block)
            size += len(block)
    return {"name": os.path.basename(path), "bytes": size, "sha256": digest.hexdigest()}


def load_durations(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as src:
            doc = json.load(src)
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot read the durations file {path}: {error}") from error
    if not isinstance(doc, dict) or doc.get("format") != DURATIONS_FORMAT or not doc.get("tasks"):
        raise ValueError(f"{path} is not a durations file (write one with 'python -m apps.lmps.durations RUN_DIR')")
    return doc


def recorded_solve(durations: dict[str, Any], first: int) -> dict[str, Any]:
    """The recorded solve task for a chunk starting at hour `first`: the one that started
    there, else (hours beyond the recording) the recorded tasks reused in a cycle."""
    tasks = durations["tasks"]
    for task in tasks:
        if task["first"] == first:
            return task
    step = max(1, tasks[0]["count"])
    return tasks[((first - tasks[0]["first"]) // step) % len(tasks)]


def write_padded(path: str, header: dict[str, Any], size: int) -> int:
    """Write the header line, then spaces up to `size` bytes (more if the header is longer)."""
    line = (json.dumps(header, separators=(",", ":")) + "\n").encode()
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "wb") as out:
        out.write(line)
        if size > len(line):
            out.write(b" " * (size - len(line)))
    return max(size, len(line))


def sleep_until(seconds: float) -> None:
    """Sleep until this process has lived `seconds` (its stand-in for the compute)."""
    left = seconds - process_elapsed()
    while left > 0:
        time.sleep(left)
        left = seconds - process_elapsed()


def compute_seconds(recorded: dict[str, Any]) -> float:
    """The recorded task's computation time; a durations file older than the split of
    computation from I/O gives only the whole run time, which then stands for it."""
    return recorded["compute_s"] if recorded.get("compute_s") is not None else recorded["seconds"]


def run_task(kind: str, recorded: dict[str, Any], inputs: Sequence[str], out: str,
             hours: list[int] | None = None) -> None:
    """Read the inputs, then sleep the computation, then write the output: in that order, as
    the real task, so the store's read time adds to the task's time."""
    began = time.monotonic()
    read = [read_input(path) for path in inputs]
    read_s = time.monotonic() - began
    compute = compute_seconds(recorded)
    sleep_until(read_s + compute)
    header: dict[str, Any] = {"format": HEADER_FORMAT, "mode": "skeleton", "task": kind, "inputs": read,
                              "read_s": round(read_s, 6), "compute_s": compute,
                              "recorded_seconds": recorded["seconds"], "recorded_bytes": recorded["output_bytes"]}
    if hours is not None:
        header["hours"] = hours
        header["recorded_first"] = recorded.get("first")
    write_padded(out, header, recorded["output_bytes"])


def _read_chunk(path: str) -> tuple[bytes, int]:
    """A chunk's first line and its size, read to the end."""
    with open(path, "rb") as src:
        line = src.readline()
        return line, len(line) + sum(len(block) for block in iter(lambda: src.read(READ_BLOCK), b""))


def merge(summary: str, model: str, chunks: Sequence[str]) -> str:
    """Read the model and every chunk to the end; check the chunks are skeleton chunks of
    distinct hours; write the summary."""
    # Deferred: only the merge needs threads, and every solve task's start-up would pay the import.
    from concurrent.futures import ThreadPoolExecutor

    total = read_input(model)["bytes"]
    hours: list[int] = []
    # The chunks are read MERGE_READERS at a time: read one by one from a node a region
    # away, each pays a few round trips to the store, and 320 of them took 225 s through
    # a mount; what the merge measures is then where the scheduler put it, not the store.
    with ThreadPoolExecutor(MERGE_READERS) as pool:
        for path, (line, size) in zip(chunks, pool.map(_read_chunk, chunks)):
            total += size
            try:
                header = json.loads(line)
            except ValueError:
                header = None
            if not isinstance(header, dict) or header.get("format") != HEADER_FORMAT:
                raise ValueError(f"{path} is not a skeleton chunk")
            hours.extend(header["hours"])
    if len(set(hours)) != len(hours):
        raise ValueError("chunks overlap: some hours appear twice")
    document = {"mode": "skeleton", "hours": len(hours), "first_hour": min(hours, default=None),
                "last_hour": max(hours, default=None), "chunks": len(chunks), "bytes_read": total}
    write_padded(summary, document, 0)
    return f"lmps skeleton: {len(hours)} hours merged from {len(chunks)} chunks ({total} bytes read)"


USAGE = """usage: skeleton_chunk.py solve --durations FILE --first H --count N --out CHUNK [INPUT...]
       skeleton_chunk.py prepare --durations FILE --out MODEL
       skeleton_chunk.py merge --model MODEL --summary SUMMARY CHUNK..."""
OPTIONS = {"solve": ("--durations", "--first", "--count", "--out"), "prepare": ("--durations", "--out"),
           "merge": ("--model", "--summary")}


def parse(argv: Sequence[str]) -> tuple[str, dict[str, str], list[str]]:
    """Role, options and positional arguments; ValueError on a usage error. (Not argparse:
    its import costs more than the rest of this program's start.)"""
    if not argv or argv[0] not in OPTIONS:
        raise ValueError("give a role: solve, prepare or merge")
    role, options, positional = argv[0], {}, []
    words = list(argv[1:])
    while words:
        word = words.pop(0)
        if word in OPTIONS[role]:
            if not words:
                raise ValueError(f"{word} needs a value")
            options[word] = words.pop(0)
        elif word.startswith("--"):
            raise ValueError(f"{role}: unknown option {word}")
        else:
            positional.append(word)
    missing = [name for name in OPTIONS[role] if name not in options]
    if missing:
        raise ValueError(f"{role}: missing {', '.join(missing)}")
    if role == "prepare" and positional or role == "merge" and not positional:
        raise ValueError(f"{role}: " + ("takes no inputs" if role == "prepare" else "give the chunk files"))
    return role, options, positional


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if words[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    try:
        role, options, positional = parse(words)
        first = int(options.get("--first", "0"))
        count = int(options.get("--count", "1"))
        if first < 0 or count < 1:
            raise ValueError("need --first >= 0 and --count >= 1")
    except ValueError as error:
        print(f"skeleton_chunk: {error}\n{USAGE}", file=sys.stderr)
        return 2
    try:
        if role == "merge":
            print(merge(options["--summary"], options["--model"], positional))
            return 0
        durations = load_durations(options["--durations"])
        if role == "prepare":
            if not durations.get("prepare_model"):
                raise ValueError(f"{options['--durations']} records no prepare_model task")
            run_task("prepare_model", durations["prepare_model"], [], options["--out"])
        else:
            hours = list(range(first, first + count))
            run_task("solve_chunk", recorded_solve(durations, first), positional, options["--out"], hours)
    except (ValueError, OSError, KeyError) as error:
        print(f"skeleton_chunk: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
