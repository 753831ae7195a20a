"""Python leaf tasks (spec §5.5): namespaces, results, exceptions, output."""

from __future__ import annotations

import pytest

from engine.runtime.builtins import BUILTINS, SimpleContext
from engine.task.contract import BuiltinCall, LeafError, PythonSpec
from engine.task.run import TaskRunner


run_leaf = TaskRunner({name: builtin.impl for name, builtin in BUILTINS.items()}, SimpleContext)


def run(code: str, expr: str = '""', persist: bool = False, exceptions_are_errors: bool = True) -> str:
    return run_leaf(PythonSpec(code, expr, persist, exceptions_are_errors))


def leaf_error(*args: object) -> LeafError:
    with pytest.raises(LeafError) as caught:
        run(*args)  # type: ignore[arg-type]
    return caught.value


def test_code_then_expression() -> None:
    assert run("x = 6 * 7", "str(x)") == "42"
    assert run("import math\nr = math.sqrt(2)", "f'{r:.3f}'") == "1.414"
    assert run("pass") == ""
    assert run("pass", "") == ""  # an empty expression means ""


def test_fresh_namespace_per_call() -> None:
    run("fresh_value = 1")
    error = leaf_error("", "str(fresh_value)")
    assert error.message == "python: exception in Python code: NameError: name 'fresh_value' is not defined"


def test_persistent_namespace_is_shared() -> None:
    run("counter = 0", persist=True)
    run("counter += 1", persist=True)
    assert run("counter += 1", "str(counter)", persist=True) == "2"
    with pytest.raises(LeafError):
        run("", "str(counter)")  # the fresh namespace does not see it


def test_functions_defined_in_code_work() -> None:
    code = "def square(v):\n    return v * v\nvalues = [square(i) for i in range(4)]"
    assert run(code, "','.join(map(str, values))") == "0,1,4,9"


def test_result_must_be_a_string() -> None:
    error = leaf_error("x = 3", "x")
    assert error.message == "python: expression did not return a string (got int)"
    assert error.retriable is False
    assert leaf_error("", "None").message == "python: expression did not return a string (got NoneType)"


def test_exception_prints_traceback_and_fails(capfd: pytest.CaptureFixture[str]) -> None:
    error = leaf_error("a = 1\nb = a / 0")
    assert error.message == "python: exception in Python code: ZeroDivisionError: division by zero"
    assert error.retriable is False
    err = capfd.readouterr().err
    assert err.startswith("Traceback (most recent call last):\n")
    assert "b = a / 0" in err and err.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "pyleaf.py" not in err  # only the user's frames


def test_exception_as_value(capfd: pytest.CaptureFixture[str]) -> None:
    assert run("raise ValueError('bad')", "'unreached'", exceptions_are_errors=False) == "__EXCEPTION__"
    assert run("", "1 / 0", exceptions_are_errors=False) == "__EXCEPTION__"
    assert "ValueError: bad" in capfd.readouterr().err


def test_syntax_errors_and_exit_are_caught() -> None:
    assert leaf_error("def (:").message.startswith("python: exception in Python code: SyntaxError")
    assert leaf_error("", "1 +").message.startswith("python: exception in Python code: SyntaxError")
    assert leaf_error("import sys\nsys.exit(3)").message == "python: exception in Python code: SystemExit: 3"


def test_print_reaches_stdout(capfd: pytest.CaptureFixture[str]) -> None:
    run("print('from python')\nprint('second', end='')")
    assert capfd.readouterr().out == "from python\nsecond"


def test_python_builtins_through_the_registry() -> None:
    assert BUILTINS["python"].impl(SimpleContext(), "y = 'a' * 3", "y") == "aaa"
    assert run_leaf(BuiltinCall("python", ("z = 5", "str(z + 1)"))) == "6"
    assert run_leaf(BuiltinCall("python_persist", ("kept = 'yes'",))) == ""
    assert run_leaf(BuiltinCall("python_persist", ("", "kept"))) == "yes"
    assert run_leaf(BuiltinCall("python", ("raise KeyError(1)", '""', False))) == "__EXCEPTION__"
