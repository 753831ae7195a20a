"""Fuzzing the compiler and the engine: no program may crash them (issue 14, issue 16 item 5).

Seeds are the golden programs (`cases/*.swift`). Each test derives thousands
of programs from them by mutation (tokens deleted, duplicated, swapped or
inserted from the language's vocabulary; lines moved; text cut short) and by a
small grammar-based generator of expressions and nested statements, then
checks the one promise that holds for every input: compiling ends in a checked
program or in `CompileError`s with `file:line:col` positions — never another
exception. A sample of the compiled programs also runs through the CLI, where
the exit status must be 0, 1 or 2 with no traceback and no internal error.
Everything is seeded, so a failure names the program that caused it and
reproduces.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import CompileError, CompileErrors
from engine.lang.compile import compile as compile_program
from engine.runtime.builtins import BUILTINS, CONSTANTS

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).resolve().parent / "cases"
SEEDS = sorted(CASES.glob("*.swift"))
TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?(?:[eE]-?\d+)?|=>|%/|%%|\*\*|[<>=!]=|&&|\|\||\S')
VOCABULARY = (
    "int float string boolean file void if else foreach for in wait deep switch case default app type "
    "import main global const true false inf NaN => = ; , ( ) { } [ ] < > + - * / % %/ %% ** == != && || ! "
    "@ . : # #define #ifdef #endif 0 1 -1 2.5 \"s\" \"\" trace size x y A f @stdout @prio=1 "
    "@waiton=x @waitonall @nosplit exists repr url superint "
).split()
POSITION = re.compile(r"^.+:\d+:\d+: ")
RUN_SAMPLE = 40


def _tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


def _mutate(text: str, rng: random.Random) -> str:
    """One random edit of a program's tokens or lines."""
    choice = rng.randrange(7)
    if choice == 0:  # move a line
        lines = text.split("\n")
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines.insert(j, lines.pop(i))
        return "\n".join(lines)
    if choice == 1:  # cut the text short
        return text[: rng.randrange(len(text) + 1)]
    tokens = _tokens(text) or ["trace"]
    i = rng.randrange(len(tokens))
    if choice == 2:
        del tokens[i : i + rng.randint(1, 3)]
    elif choice == 3:
        tokens.insert(i, tokens[rng.randrange(len(tokens))])
    elif choice == 4:
        j = rng.randrange(len(tokens))
        tokens[i], tokens[j] = tokens[j], tokens[i]
    elif choice == 5:
        tokens.insert(i, rng.choice(VOCABULARY))
    else:
        tokens[i] = rng.choice(VOCABULARY)
    # Directives only count at the start of a line: give each line of its own.
    return " ".join(f"\n{t}\n" if t.startswith("#") else t for t in tokens)


def _expression(rng: random.Random, depth: int, kind: str = "") -> str:
    """A random well-typed expression of `kind` (int, float, string or boolean)."""
    kind = kind or rng.choice(["int", "float", "string", "boolean"])
    if depth <= 0 or rng.random() < 0.2:
        return rng.choice({"int": ["1", "2", "0", "x", "size(A)", "A[1]", "-4", "toint(\"12\")", "s.a", "z"],
                           "float": ["3.5", "y", "0.0", "-2.5e3", "itof(x)"],
                           "string": ['"a"', "t", '""', "fromint(x)", "repr(A)", "repr(N)"],
                           "boolean": ["true", "false", "b", "exists(A, 1)"]}[kind])
    sub = lambda k="": _expression(rng, depth - 1, k or kind)  # noqa: E731
    if kind == "int":
        return rng.choice([f"({sub()} {rng.choice(['+', '-', '*', '%/', '%%'])} {sub()})", f"strlen({sub('string')})",
                           f"max({sub()}, {sub()})", f"(-{sub()})", f"toint(fromint({sub()}))",
                           f"superint({sub()})"])
    if kind == "float":
        return rng.choice([f"({sub()} {rng.choice(['+', '-', '*', '/', '**'])} {sub()})", f"sqrt({sub()})",
                           f"itof({sub('int')})", f"floor({sub()})", f"(2 ** {sub('int')})"])
    if kind == "string":
        return rng.choice([f"({sub()} + {sub('int')})", f"strcat({sub()}, {sub('float')})",
                           f"sprintf(\"%i-%s\", {sub('int')}, {sub()})", f"substring({sub()}, 0, {sub('int')})"])
    return rng.choice([f"({sub('int')} < {sub('int')})", f"({sub()} && {sub()})", f"(!{sub()})",
                       f"({sub('string')} == {sub('string')})", f"contains(A, {sub('int')})"])


def _statement(rng: random.Random, depth: int) -> str:
    kind = rng.randrange(9) if depth > 0 else rng.choice((0, 6))
    if kind == 0:
        return f"trace({_expression(rng, 3)}, {_expression(rng, 2)});"
    if kind == 6:
        # Copies of a struct one field of which is never written (§13), whole and into an element.
        return (f"{{ S c = s; S E[]; E[{_expression(rng, 1, 'int')}] = c; "
                f"foreach e in E {{ trace(e.a, size(e.c), {_expression(rng, 2)}); }} }}")
    body = _statement(rng, depth - 1)
    if kind == 7:  # chaining on a variable (§13)
        name = f"w{rng.randrange(10**6)}"
        return f"void {name} = trace({_expression(rng, 2)}); {name} => {{ {body} }}"
    if kind == 8:  # loop annotations (§13)
        annotations = rng.choice(["@waiton=x @waiton=y", "@waitonall", "@waitonall @nosplit", "@waiton=t"])
        return f"{annotations} foreach v{depth} in [0:{rng.randint(0, 3)}] {{ {body} }}"
    if kind == 1:
        return f"if ({_expression(rng, 2, 'boolean')}) {{ {body} }} else {{ {_statement(rng, depth - 1)} }}"
    if kind == 2:
        return f"foreach v{depth} in [0:{rng.randint(0, 3)}] {{ {body} }}"
    if kind == 3:
        return f"wait ({_expression(rng, 1)}) {{ {body} }}"
    if kind == 4:
        return f"{{ {body} }}"
    return f"switch ({_expression(rng, 1, 'int')}) {{ case 0: {body} default: {_statement(rng, depth - 1)} }}"


def _generated(rng: random.Random) -> str:
    prelude = ('type superint int; int x = 4; float y = 1.5; string t = "t"; boolean b = x > 2; int A[] = [7, 8];'
               ' superint z = superint(3); int N[][] = [[], [1, 2]];\n'
               'type S { int a; int b; int c[]; } S s; s.a = x; s.c[0] = 1;\n')
    return prelude + "\n".join(_statement(rng, rng.randint(0, 5)) for _ in range(rng.randint(1, 4))) + "\n"


def _deep_and_long(rng: random.Random) -> list[str]:
    """The shapes that once crashed the compiler with a RecursionError (issue 16 item 5)."""
    n = rng.randint(300, 3000)
    return [
        "trace(" + " + ".join(["1"] * n) + ");\n",
        "{" * n + "trace(1);" + "}" * n + "\n",
        "int c = 1;\n" + "if (c == 1) {" * n + "trace(1);" + "}" * n + "\n",
        "trace(" + "-" * (2 * n) + "1);\n",
        "trace(" + "(" * n + "1" + ")" * n + ");\n",
        "type P { int a; P next; }\nP p;\np.a = 1;\ntrace(p.a);\n",
    ]


def _compile(path: Path) -> bool:
    """Compile one program; True if it checked. Any exception but a compile error fails the test."""
    try:
        compile_program(str(path), BUILTINS, CONSTANTS)
        return True
    except CompileErrors as errors:
        assert errors.errors and all(POSITION.match(str(e)) for e in errors.errors), path.read_text()
    except CompileError as error:
        assert POSITION.match(str(error)), (str(error), path.read_text())
    return False


def _programs(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    programs: list[str] = []
    while len(programs) < count:
        if rng.random() < 0.4:
            programs.append(_generated(rng))
            continue
        text = rng.choice(SEEDS).read_text(encoding="utf-8")
        for _ in range(rng.randint(1, 3)):
            text = _mutate(text, rng)
        programs.append(text)
    return programs


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_mutated_and_generated_programs_compile_or_fail_cleanly(tmp_path: Path, seed: int) -> None:
    compiled: list[Path] = []
    for i, text in enumerate(_programs(seed, 600) + _deep_and_long(random.Random(seed))):
        path = tmp_path / f"p{i}.swift"
        path.write_text(text, encoding="utf-8")
        if _compile(path):
            compiled.append(path)
    assert compiled, "no program compiled: the generator or the compiler is broken"


def _runnable(path: Path) -> bool:
    """Programs that finish by themselves: no loops that may not end, no sleeps or apps."""
    text = path.read_text(encoding="utf-8")
    return not re.search(r"\bfor\b|sleep|\bapp\b|python|argv|argp|input|system|getenv|glob", text)


def test_a_sample_runs_with_a_clean_exit_status(tmp_path: Path) -> None:
    rng = random.Random(99)
    candidates: list[Path] = []
    for i, text in enumerate(_programs(99, 1500)):
        path = tmp_path / f"r{i}.swift"
        path.write_text(text, encoding="utf-8")
        if _runnable(path) and _compile(path):
            candidates.append(path)
    sample = rng.sample(candidates, min(RUN_SAMPLE, len(candidates)))
    assert len(sample) >= RUN_SAMPLE // 2, "too few runnable programs in the sample"
    env = dict(os.environ, PYTHONPATH=str(ROOT), SWIFT_TMP=str(tmp_path), SWIFTCLOUD_TRANSPORT="local")
    for path in sample:
        done = subprocess.run(
            [sys.executable, "-m", "swiftcloud", "run", "-n", "2", "--run-dir", str(tmp_path / "runs" / path.stem),
             path.name], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode in (0, 1, 2), (path.read_text(), done.stderr)
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr, (path.read_text(), done.stderr)
