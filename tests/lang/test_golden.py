"""Golden language tests: run every `cases/NNN-name.swift` through the CLI.

Each case is a real script plus optional companions (`.exp` expected stdout,
`.d/` input files). Header comments in its first lines say what to expect;
`README.md` beside this file describes the format. Every case runs in a fresh
temporary directory, exactly as a user would run it:
`python -m swiftcloud run NNN-name.swift ARGS...`.

Transports: every case runs under the local transport (`test_golden`). Under MPI
(`test_golden_mpi`) run a fixed sample: the cases that give workers work, that is
that call an app, a Python leaf, `sleep` or `system`, or use files, and every tenth
of the others (by number) for the engine's start, exit status and output under
mpiexec. The others evaluate on the engine alone, where the transport changes
nothing but start-up (0.25 s a case): each run takes one fifth of them, a slice
that changes every day (tests/tiers.py), so every program runs under MPI within five
days; `SWIFTCLOUD_GOLDEN_MPI_SLICE=all` runs them all now. A sample of both is in
the quick tier (`./test.sh --quick`): every fifth case locally, every fifth of the
fixed MPI sample under MPI.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests import tiers

CASES_DIR = Path(__file__).parent / "cases"
REPO_ROOT = Path(__file__).resolve().parents[2]
HEADER_LINES = 10
TIMEOUT_SECONDS = 60
CASE_NAME = re.compile(r"^\d{3,4}-[a-z0-9]+(?:-[a-z0-9]+)*$")
MARKER = re.compile(r"^\s*//\s*([A-Z][A-Z-]*[A-Z])\s*(?::\s?(.*))?$")
POSITION = re.compile(r"^(\d+)(?::(\d+))?$")
# Environment that would change how a case behaves if inherited from the caller.
SCRUBBED_ENV = ("TURBINE_APP_RETRIES_LOCAL", "SWIFT_TMP_AUTODELETE", "SWIFT_TMP", "TMP")

# What makes a case's run reach the workers (see the module's docstring).
WORKER_WORK = re.compile(r"\bapp\b|\bfile\b|\bpython\w*\s*\(|\bsleep\w*\s*\(|\bsystem1?\s*\(")
MPI_EVERY, QUICK_EVERY = 10, 5

# Exit statuses of spec §0 (the same values as engine/errors.py).
EXIT_OK, EXIT_RUNTIME, EXIT_COMPILE = 0, 1, 2


@dataclass
class Case:
    """One golden program and what its header says to expect."""

    script: Path
    should_not_compile: bool = False
    should_not_run: bool = False
    ordered: bool = False
    allow_traceback: bool = False
    error_at: list[tuple[int, int | None]] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    stderr: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.script.stem

    @property
    def number(self) -> int:
        return int(self.name.split("-")[0])

    @property
    def expected_file(self) -> Path:
        return self.script.with_suffix(".exp")

    @property
    def companion_dir(self) -> Path:
        return self.script.with_suffix(".d")

    @property
    def expected_exit(self) -> int:
        if self.should_not_compile:
            return EXIT_COMPILE
        return EXIT_RUNTIME if self.should_not_run else EXIT_OK


def parse_error_at(text: str) -> list[tuple[int, int | None]]:
    """`4:9`, `4:9 or 5:1` (the spec allows either token), or `4` (line only)."""
    positions = []
    for alternative in text.split(" or "):
        match = POSITION.match(alternative.strip())
        if not match:
            raise ValueError(f"bad ERROR-AT position: {text!r}")
        col = int(match.group(2)) if match.group(2) else None
        positions.append((int(match.group(1)), col))
    return positions


def parse_case(script: Path) -> Case:
    """Read the header markers of one case."""
    case = Case(script=script)
    lines = script.read_text(encoding="utf-8").split("\n")[:HEADER_LINES]
    for line in lines:
        match = MARKER.match(line)
        if not match:
            continue
        key, value = match.group(1), (match.group(2) or "").rstrip("\r")
        if key == "THIS-TEST-SHOULD-NOT-COMPILE":
            case.should_not_compile = True
        elif key == "THIS-TEST-SHOULD-NOT-RUN":
            case.should_not_run = True
        elif key == "ORDERED":
            case.ordered = True
        elif key == "ALLOW-TRACEBACK":
            case.allow_traceback = True
        elif key == "ERROR-AT":
            case.error_at.extend(parse_error_at(value))
        elif key == "ARGS":
            case.args.extend(shlex.split(value))
        elif key == "ENV":
            env_name, _, env_value = value.partition("=")
            case.env[env_name.strip()] = env_value
        elif key == "STDERR":
            case.stderr.append(value)
        else:
            raise ValueError(f"{script.name}: unknown header marker {key!r}")
    return case


def all_cases() -> list[Case]:
    """Every case in number order."""
    return [parse_case(p) for p in sorted(CASES_DIR.glob("*.swift"))]


def in_mpi_sample(case: Case) -> bool:
    """Is the case in the fixed MPI sample (the module's docstring says which are)?"""
    return bool(WORKER_WORK.search(case.script.read_text(encoding="utf-8"))) or case.number % MPI_EVERY == 0


def runs_under_mpi(case: Case, day_slice: int | None) -> bool:
    """Does the case run under MPI in this run: in the sample, or in the day's slice
    (`None`: every slice)?"""
    if case.should_not_compile:
        return False
    return in_mpi_sample(case) or day_slice is None or case.number % tiers.MPI_SLICES == day_slice


def params(cases: list[Case], sampled: list[Case] | None = None) -> list[object]:
    """The cases as test parameters, every QUICK_EVERY-th of `sampled` (default: all)
    in the quick tier, so the quick tier does not change with the day's slice."""
    quick = {case.name for case in (cases if sampled is None else sampled)[::QUICK_EVERY]}
    return [pytest.param(case, id=case.name, marks=[pytest.mark.quick] if case.name in quick else [])
            for case in cases]


def mpi_params() -> list[object]:
    """This run's cases under MPI: the fixed sample and the day's slice of the others."""
    day_slice = tiers.golden_mpi_slice()
    cases = all_cases()
    return params([case for case in cases if runs_under_mpi(case, day_slice)],
                  sampled=[case for case in cases if not case.should_not_compile and in_mpi_sample(case)])


def module_dirs() -> list[Path]:
    """Subdirectories holding modules and included files (not `.d` companions)."""
    return [p for p in sorted(CASES_DIR.iterdir()) if p.is_dir() and p.suffix != ".d"]


def stdout_lines(text: str) -> list[str]:
    """Split output into lines; a final newline ends the last line, it adds none."""
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n") if text else []


def prepare_workdir(case: Case, workdir: Path) -> None:
    """Copy the script, the module directories and the `.d` companion files."""
    shutil.copy(case.script, workdir / case.script.name)
    for directory in module_dirs():
        shutil.copytree(directory, workdir / directory.name)
    if case.companion_dir.is_dir():
        shutil.copytree(case.companion_dir, workdir, dirs_exist_ok=True)


def run_case(case: Case, workdir: Path, transport: str) -> subprocess.CompletedProcess[str]:
    """Run the script through the CLI in `workdir`, as a user would, on `transport`
    (what `--transport auto` means: local or mpi)."""
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED_ENV}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p
    )
    env["SWIFT_TMP"] = str(workdir)
    env["SWIFTCLOUD_TRANSPORT"] = transport
    env.update(case.env)
    command = [sys.executable, "-m", "swiftcloud", "run", case.script.name, *case.args]
    return subprocess.run(
        command,
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=TIMEOUT_SECONDS,
    )


def describe(case: Case, result: subprocess.CompletedProcess[str]) -> str:
    """The whole outcome of a run, for failure messages."""
    return (
        f"--- {case.script.name}: exit status {result.returncode}"
        f" (expected {case.expected_exit})\n--- stdout:\n{result.stdout}"
        f"\n--- stderr:\n{result.stderr}"
    )


def check_error_position(case: Case, stderr: str) -> bool:
    """Does stderr report `FILE:LINE:COL:` at one of the allowed positions?"""
    for line, col in case.error_at:
        where = f"{line}:{col}:" if col is not None else f"{line}:\\d+:"
        if re.search(re.escape(case.script.name) + ":" + where, stderr):
            return True
    return False


def stdout_problem(case: Case, stdout: str) -> str | None:
    """Compare stdout with the `.exp` lines (sorted unless ORDERED); describe any difference."""
    expected_text = case.expected_file.read_text(encoding="utf-8") if (
        case.expected_file.exists()
    ) else ""
    expected, actual = stdout_lines(expected_text), stdout_lines(stdout)
    if not case.ordered:
        expected, actual = sorted(expected), sorted(actual)
    if actual == expected:
        return None
    diff = difflib.unified_diff(expected, actual, "expected", "actual", lineterm="")
    order = "" if case.ordered else " (lines sorted)"
    return f"wrong stdout{order}:\n" + "\n".join(diff)


def find_problem(case: Case, result: subprocess.CompletedProcess[str]) -> str | None:
    """The first way the run differs from what the case's header promises, if any."""
    stderr = result.stderr
    if result.returncode != case.expected_exit:
        return "wrong exit status"
    if "please report" in stderr:
        return "internal error reported"
    if not case.allow_traceback and "Traceback (most recent call last)" in stderr:
        return "a Python traceback reached the user"
    for text in case.stderr:
        if text not in stderr:
            return f"stderr lacks {text!r}"
    if case.should_not_compile:
        if result.stdout:
            return "a program that does not compile printed output"
        if not check_error_position(case, stderr):
            return f"stderr lacks the error position {case.error_at}"
        return None
    if case.should_not_run:
        if "Swift: " not in stderr:
            return "run-time error without 'Swift: '"
        if not case.expected_file.exists():
            return None  # output written before the error is unspecified
    return stdout_problem(case, result.stdout)


def check_case(case: Case, workdir: Path, transport: str) -> None:
    prepare_workdir(case, workdir)
    result = run_case(case, workdir, transport)
    problem = find_problem(case, result)
    if problem:
        pytest.fail(f"{problem} ({transport} transport)\n{describe(case, result)}", pytrace=False)


@pytest.mark.parametrize("case", params(all_cases()))
def test_golden(case: Case, tmp_path: Path) -> None:
    check_case(case, tmp_path, "local")


@pytest.mark.parametrize("case", mpi_params())
def test_golden_mpi(case: Case, tmp_path: Path) -> None:
    check_case(case, tmp_path, "mpi")


def test_suite_shape() -> None:
    """The suite is big enough, tidy, and every compile failure pins a position."""
    cases = all_cases()
    negative = [c for c in cases if c.should_not_compile or c.should_not_run]
    assert len(cases) >= 150, f"only {len(cases)} programs"
    assert len(negative) >= 40, f"only {len(negative)} negative programs"

    numbers = [c.name.split("-")[0] for c in cases]
    assert len(numbers) == len(set(numbers)), "case numbers must be unique"
    for case in cases:
        assert CASE_NAME.match(case.name), f"bad case name {case.name}"
        assert not (case.should_not_compile and case.should_not_run), case.name
        if case.should_not_compile:
            assert case.error_at, f"{case.name}: no ERROR-AT"
            assert not case.expected_file.exists(), f"{case.name}: .exp for a compile failure"
        else:
            assert not case.error_at, f"{case.name}: ERROR-AT without SHOULD-NOT-COMPILE"

    stems = {c.name for c in cases}
    for companion in CASES_DIR.iterdir():
        if companion.suffix in (".exp", ".d"):
            assert companion.stem in stems, f"{companion.name} has no program"


def test_every_runnable_program_runs_under_mpi_in_some_slice() -> None:
    """The days' slices together run every program that compiles under MPI."""
    cases = all_cases()
    covered = {case.name for day_slice in range(tiers.MPI_SLICES) for case in cases if runs_under_mpi(case, day_slice)}
    assert covered == {case.name for case in cases if not case.should_not_compile}
