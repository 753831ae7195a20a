"""The `swiftcloud` command line: run, check, dag, -I, exit statuses, run logs, temp files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from swiftcloud.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


def swiftcloud(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "swiftcloud", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=120)


def test_help_lists_the_commands(tmp_path: Path) -> None:
    result = swiftcloud("--help", cwd=tmp_path)
    assert result.returncode == 0
    for command in ("run", "check", "dag", "services", "put", "get"):
        assert command in result.stdout
    run_help = swiftcloud("run", "--help", cwd=tmp_path)
    assert "--storage" in run_help.stdout and "-n" in run_help.stdout


def test_only_the_command_named_is_built_and_a_mistyped_one_lists_them_all(tmp_path: Path) -> None:
    only_run = build_parser(["--debug", "run", "x.swift"])
    assert only_run.parse_args(["run", "-n", "3", "x.swift"]).processes == 3
    with pytest.raises(SystemExit):  # no other command was built
        only_run.parse_args(["check", "x.swift"])
    assert build_parser().parse_args(["check", "x.swift"]).command == "check"
    mistyped = swiftcloud("rnu", "x.swift", cwd=tmp_path)
    assert mistyped.returncode == 2
    assert "invalid choice: 'rnu'" in mistyped.stderr
    for command in ("run", "check", "services", "cluster", "study"):
        assert f"'{command}'" in mistyped.stderr
    services_help = swiftcloud("services", "--help", cwd=tmp_path)
    assert services_help.returncode == 0 and "--benefactors" in services_help.stdout


def test_check_reports_every_error_with_positions_and_runs_nothing(tmp_path: Path) -> None:
    script = tmp_path / "bad.swift"
    script.write_text('app (file o) touch () { "touch" @o }\nfile f <"made.txt"> = touch();\n'
                      'int x = "a";\nstring s = 1 + true;\n')
    for command in ("check", "run"):
        result = swiftcloud(command, "bad.swift", cwd=tmp_path)
        assert result.returncode == 2
        assert result.stdout == ""
        assert "bad.swift:3:9:" in result.stderr and "bad.swift:4:12:" in result.stderr
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "made.txt").exists()
    assert not (tmp_path / "runs").exists()


def test_check_accepts_a_good_script(tmp_path: Path) -> None:
    result = swiftcloud("check", str(ROOT / "examples" / "fan_out_fan_in.swift"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "ok" in result.stdout


def test_include_directories_are_searched_for_imports(tmp_path: Path) -> None:
    lib = tmp_path / "lib" / "geometry"
    lib.mkdir(parents=True)
    (lib / "area.swift").write_text("(int a) square_area(int side) { a = side * side; }\n")
    (tmp_path / "main.swift").write_text("import geometry.area;\ntrace(square_area(7));\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    missing = swiftcloud("run", "../main.swift", cwd=elsewhere)
    assert missing.returncode == 2 and "unknown module 'geometry.area'" in missing.stderr
    found = swiftcloud("run", "-I", "../lib", "../main.swift", cwd=elsewhere)
    assert found.returncode == 0, found.stderr
    assert found.stdout == "trace: 49\n"


def test_dag_writes_dot_with_one_node_per_statement_and_dataflow_edges(tmp_path: Path) -> None:
    out = tmp_path / "pipeline.dot"
    result = swiftcloud("dag", str(ROOT / "examples" / "file_pipeline.swift"), "-o", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    dot = out.read_text()
    assert dot.startswith("digraph")
    for app in ("generate", "upper", "checksum"):
        assert app in dot
    assert dot.count("->") >= 3


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed (setup.sh installs it)")
def test_dag_renders_png(tmp_path: Path) -> None:
    out = tmp_path / "pipeline.png"
    result = swiftcloud("dag", str(ROOT / "examples" / "file_pipeline.swift"), "-o", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_run_log_records_every_task_start_and_end(tmp_path: Path) -> None:
    result = swiftcloud("run", "--run-dir", "log", str(ROOT / "examples" / "fan_out_fan_in.swift"), "--n=6",
                        cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in (tmp_path / "log" / "events.jsonl").read_text().splitlines()]
    assert events[0]["event"] == "run_start" and events[-1]["event"] == "run_end"
    assert events[-1]["exit_status"] == 0
    starts = [e for e in events if e["event"] == "start"]
    ends = [e for e in events if e["event"] == "end"]
    assert len(starts) == len(ends) == 7  # 6 squares + 1 gather
    for e in starts:
        assert e["kind"] == "app" and isinstance(e["command"], list) and e["worker"] >= 0 and e["node"]
    assert {e["command"][0] for e in starts} == {"expr", "cat"}
    assert all(e["status"] == "ok" for e in ends)
    by_task = {e["task"]: e for e in starts}
    assert all(by_task[e["task"]]["time"] <= e["time"] for e in ends)


def test_runs_are_numbered(tmp_path: Path) -> None:
    (tmp_path / "h.swift").write_text('trace("hi");\n')
    for _ in range(2):
        assert swiftcloud("run", "h.swift", cwd=tmp_path).returncode == 0
    assert sorted(os.listdir(tmp_path / "runs")) == ["001", "002"]


def test_unmapped_files_are_deleted_at_exit_unless_asked_to_keep(tmp_path: Path) -> None:
    (tmp_path / "t.swift").write_text('import files;\nfile f = write("temporary");\ntrace(read(f));\n')
    for keep, expected in (("1", 0), ("0", 1)):
        temp = tmp_path / f"tmp{keep}"
        temp.mkdir()
        env = {"SWIFT_TMP": str(temp), "SWIFT_TMP_AUTODELETE": "0" if keep == "0" else "1"}
        result = swiftcloud("run", "t.swift", cwd=tmp_path, env=env)
        assert result.returncode == 0, result.stderr
        assert result.stdout == "trace: temporary\n"
        assert len(list(temp.glob("*.turbine"))) == expected


def test_failed_app_names_task_command_and_stderr_and_leaves_no_output(tmp_path: Path) -> None:
    (tmp_path / "f.swift").write_text(
        'app (file o) fail (string why) { "sh" "-c" "echo \\"$0\\" >&2; exit 3" why @stdout=o }\n'
        'file x <"x.txt"> = fail("disk on fire");\ntrace(read(x));\n')
    result = swiftcloud("run", "f.swift", cwd=tmp_path)
    assert result.returncode == 1
    assert "Swift: f.swift:2: app function 'fail'" in result.stderr
    assert "<Child exited with code: 3>" in result.stderr
    assert "command: sh -c" in result.stderr and "'disk on fire'" in result.stderr
    assert "disk on fire" in result.stderr.split("stderr (last lines):")[-1]
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "x.txt").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".x.txt")]


def test_retries_rerun_a_flaky_app(tmp_path: Path) -> None:
    (tmp_path / "r.swift").write_text(
        'app (file o) flaky () { "sh" "-c" "if [ -e tried ]; then echo ok; else touch tried; exit 1; fi" @stdout=o }\n'
        'trace(trim(read(flaky())));\n')
    failed = swiftcloud("run", "r.swift", cwd=tmp_path)
    assert failed.returncode == 1
    (tmp_path / "tried").unlink()
    retried = swiftcloud("run", "--retries", "1", "r.swift", cwd=tmp_path)
    assert retried.returncode == 0, retried.stderr
    assert retried.stdout == "trace: ok\n"


def test_report_gives_figures_and_plots(tmp_path: Path) -> None:
    run = swiftcloud("run", "--run-dir", "r", str(ROOT / "examples" / "fan_out_fan_in.swift"), "--n=8",
                     cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    result = swiftcloud("report", "r", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["tasks"] == 9 and figures["failed"] == 0 and figures["workers"] >= 1
    assert 0 < figures["task_seconds"] and figures["makespan_over_ideal"] >= 0.99
    for name in ("trace.png", "completion.png"):
        assert (tmp_path / "r" / name).read_bytes()[:4] == b"\x89PNG"
    assert "completion.png" in (tmp_path / "r" / "report.html").read_text()
    missing = swiftcloud("report", "nowhere", cwd=tmp_path)
    assert missing.returncode == 2 and "no event log" in missing.stderr


def test_bad_run_dir_and_retries_are_usage_errors(tmp_path: Path) -> None:
    """Unusable --run-dir values and negative --retries fail clearly with exit 2, before anything
    runs (issue 16 item 5)."""
    (tmp_path / "hello.swift").write_text('trace("hi");\n')
    (tmp_path / "a-file").write_text("")
    for run_dir, reason in (("a-file", "File exists"), ("a-file/sub", "Not a directory")):
        result = swiftcloud("run", "-n", "2", "--run-dir", run_dir, "hello.swift", cwd=tmp_path)
        assert result.returncode == 2 and result.stdout == ""
        assert f"cannot write the run log in '{run_dir}': {reason}" in result.stderr
        assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    result = swiftcloud("run", "--retries", "-1", "hello.swift", cwd=tmp_path)
    assert result.returncode == 2 and "--retries: must be 0 or more, not -1" in result.stderr


def test_internal_errors_are_one_line_unless_debugging(tmp_path: Path) -> None:
    """An internal error prints one line naming the bug and where to report it; the traceback
    only with --debug (issue 14 item 1)."""
    (tmp_path / "hello.swift").write_text('trace("hi");\n')
    # A run log that divides by zero stands in for a bug (local transport: the patch stays in this process).
    boom = tmp_path / "boom.py"
    boom.write_text("import sys\nfrom swiftcloud import cli\n"
                    "from engine.observe import runlog\n"
                    "runlog.RunLog.run_started = lambda *a, **k: 1 / 0\n"
                    "sys.exit(cli.main(sys.argv[1:]))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for debug, traceback_shown in (([], False), (["--debug"], True)):
        result = subprocess.run([sys.executable, str(boom), *debug, "run", "-n", "2", "--transport", "local", "hello.swift"], cwd=tmp_path,
                                env=env, capture_output=True, text=True, timeout=120)
        assert result.returncode == 1
        last = result.stderr.strip().splitlines()[-1]
        assert last.startswith("swiftcloud: internal error: ZeroDivisionError: division by zero at boom.py:4.")
        assert "please report it" in last
        assert ("Traceback" in result.stderr) is traceback_shown
