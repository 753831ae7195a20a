"""Expression evaluation: an expression becomes a future (or container).

Operators are strict: they fire when their operands close. When the operands
are already closed the result is computed on the spot (no queueing), which
keeps arithmetic on closed values as cheap as plain Python. Operator
semantics follow LANGUAGE.md §7 (Turbine's truncating `%/` and `%%`, IEEE
floats, 64-bit wrapping ints, text forms for string `+`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Callable

from engine.errors import SwiftRuntimeError
from engine.lang import ir
from engine.lang.types import FILE, INT, base_of
from engine.runtime.builtins.core import float_div, float_pow, int_div, int_mod, int_wrap
from engine.runtime.builtins.sprintf import sprintf
from engine.runtime.builtins.textform import text_form
from engine.runtime.env import Env
from engine.runtime.futures import ArrayFuture, Container, Dataflow, FileFuture, Future, StructFuture
from engine.runtime.values import ValueOps, is_container_type


def _fmul(a: float, b: float) -> float:
    try:
        return a * b
    except OverflowError:
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


# The function of each binary operation the IR names (see engine.lang.lower.operation).
OPERATIONS: Mapping[str, Callable[[Any, Any], Any]] = MappingProxyType({
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "&&": lambda a, b: a and b, "||": lambda a, b: a or b,
    "str+": lambda a, b: text_form(a) + text_form(b),
    "path/": lambda a, b: a + "/" + b,
    "**": lambda a, b: float_pow(float(a), float(b)),
    "int+": lambda a, b: int_wrap(a + b), "int-": lambda a, b: int_wrap(a - b),
    "int*": lambda a, b: int_wrap(a * b), "int%/": int_div, "int%%": int_mod,
    "float+": lambda a, b: a + b, "float-": lambda a, b: a - b, "float*": _fmul, "float/": float_div,
})


def operator_function(e: ir.BinOp) -> Callable[[Any, Any], Any]:
    """The Python function computing `e`'s operation."""
    fn = OPERATIONS.get(e.operation)
    if fn is None:
        raise SwiftRuntimeError(f"internal error: no operator {e.op} for {e.left.type}, {e.right.type}"
                                " (please report)")
    return fn


def _apply(fn: Callable[[Any, Any], Any], left: Future, right: Future, e: ir.BinOp) -> Any:
    """`fn` on two closed operands; its run-time error (divide by zero) says where."""
    try:
        return fn(left.value, right.value)
    except SwiftRuntimeError as error:
        raise SwiftRuntimeError(f"{e.file}:{e.line}: {error}") from None


class ExprEvaluator:
    """Mixin of the interpreter: `ev(expr, env)` returns the expression's value handle
    (`Interpreter` gives it `flow`, `values`, `literals` and `call`)."""

    flow: Dataflow
    values: ValueOps
    literals: dict[ir.Literal, Future]  # one closed future per literal of the program, made at first use
    call: Callable[..., list[Any]]

    def ev(self, e: ir.Expr, env: Env) -> Any:
        return EVALUATORS[type(e)](self, e, env)

    def ev_Literal(self, e: ir.Literal, env: Env) -> Future:
        handle = self.literals.get(e)
        if handle is None:
            handle = self.literals[e] = Future.of(e.value)  # closed: never changes, so shared
        return handle

    def ev_Var(self, e: ir.Var, env: Env) -> Any:
        return env.lookup(e.sym)

    def ev_UnaryOp(self, e: ir.UnaryOp, env: Env) -> Future:
        operand = self.ev(e.operand, env)
        fn: Callable[[Any], Any]
        if e.op == "!":
            fn = lambda v: not v  # noqa: E731
        elif base_of(e.type) == INT:
            fn = lambda v: int_wrap(-v)  # noqa: E731
        else:
            fn = lambda v: -v  # noqa: E731
        if operand.closed:
            return Future.of(fn(operand.value))
        out = Future()
        self.flow.when_closed((operand,), lambda: out.set(fn(operand.value)), e)
        return out

    def ev_BinOp(self, e: ir.BinOp, env: Env) -> Future:
        left, right = self.ev(e.left, env), self.ev(e.right, env)
        fn = operator_function(e)
        if left.closed and right.closed:
            return Future.of(_apply(fn, left, right, e))
        out = Future()
        self.flow.when_closed((left, right), lambda: out.set(_apply(fn, left, right, e)), e)
        return out

    def ev_Format(self, e: ir.Format, env: Env) -> Future:
        handles = [self.ev(e.format, env)] + [self.ev(i, env) for i in e.items]
        out = Future()
        self.flow.when_closed(handles, lambda: out.set(sprintf(handles[0].value, [h.value for h in handles[1:]])), e)
        return out

    # ------------------------------------------------------------ containers

    def ev_Index(self, e: ir.Index, env: Env) -> Any:
        base = self.ev(e.base, env)
        key = self.ev(e.key, env)
        if isinstance(base, ArrayFuture) and key.closed:
            elem = base.elems.get(key.value)
            if elem is not None:
                return elem
        out = self._placeholder(e)

        def with_array(array: ArrayFuture) -> None:
            def with_key() -> None:
                array.lookup(key.value, lambda elem: self._forward(elem, out, e), f"{e.file}:{e.line}: ")
            self.flow.when_closed((key,), with_key, e)
        self.values.resolve(base, e.base.type, with_array, e)
        return out

    def ev_Field(self, e: ir.Field, env: Env) -> Any:
        base = self.ev(e.base, env)
        if isinstance(base, StructFuture):
            return base.fields[e.name]
        out = self._placeholder(e)
        self.values.resolve(base, e.base.type, lambda struct: self._forward(struct.fields[e.name], out, e), e)
        return out

    def _placeholder(self, e: ir.Expr) -> Future:
        """The handle of a value not reachable yet: a reference future for
        containers, a file future for files, else a plain future."""
        if base_of(e.type) == FILE:
            return FileFuture()
        return Future()

    def _forward(self, elem: Any, out: Future, e: ir.Expr) -> None:
        """Make `out` (a placeholder) follow `elem` once it exists."""
        if is_container_type(e.type):
            if isinstance(elem, Container):
                out.set(elem)
            else:
                self.flow.when_closed((elem,), lambda: out.set(elem.value), e)
            return
        if elem.closed:
            if isinstance(out, FileFuture):
                out.close_at(elem.value)
            else:
                out.set(elem.value)
            return

        def follow() -> None:
            if isinstance(out, FileFuture):
                out.close_at(elem.value)
            else:
                out.set(elem.value)
        self.flow.when_closed((elem,), follow, e)

    def ev_ArrayLit(self, e: ir.ArrayLit, env: Env) -> ArrayFuture:
        array = ArrayFuture()
        for i, item in enumerate(e.items):
            array.elems[i] = self.ev(item, env)
        array.close()
        return array

    def ev_DictLit(self, e: ir.DictLit, env: Env) -> ArrayFuture:
        array = ArrayFuture(writers=1)
        pairs = [(self.ev(k, env), self.ev(v, env)) for k, v in e.items]

        def fill() -> None:
            for k, v in pairs:
                array.insert(k.value, v)
            array.decr()
        keys = [k for k, _ in pairs]
        if all(k.closed for k in keys):
            fill()
        else:
            self.flow.when_closed(keys, fill, e)
        return array

    def ev_RangeLit(self, e: ir.RangeLit, env: Env) -> ArrayFuture:
        bounds = [self.ev(p, env) for p in (e.start, e.end, e.step) if p is not None]
        array = ArrayFuture(writers=1)

        def fill() -> None:
            for i, v in enumerate(range_values(*(b.value for b in bounds))):
                array.elems[i] = Future.of(v)
            array.decr()
        self.flow.when_closed(bounds, fill, e)
        return array

    def ev_Call(self, e: ir.Call, env: Env) -> Any:
        return self.call(e, env)[0]

    def ev_FilenameOf(self, e: ir.FilenameOf, env: Env) -> Future:
        f = self.ev(e.operand, env)
        out = Future()
        self.flow.when_closed((f,), lambda: out.set(f.value), e)
        return out


def range_values(start: Any, end: Any, step: Any = 1):  # type: ignore[no-untyped-def]
    """The values of `[start:end:step]`: start, start+step, ... ≤ end."""
    if step <= 0:
        raise SwiftRuntimeError(f"range step must be positive, got {text_form(step)}")
    if isinstance(start, int) and isinstance(end, int) and isinstance(step, int):
        return range(start, end + 1, step)
    return _float_range(float(start), float(end), float(step))


def _float_range(start: float, end: float, step: float):  # type: ignore[no-untyped-def]
    i = 0
    while True:
        v = start + i * step
        if v > end:
            return
        yield v
        i += 1


# Each IR expression class -> its `ExprEvaluator.ev_<class>`, looked up once here rather than
# by name at every evaluation (several per task).
EVALUATORS: Mapping[type, Callable[..., Any]] = MappingProxyType({
    getattr(ir, name.removeprefix("ev_")): method for name, method in vars(ExprEvaluator).items()
    if name.startswith("ev_")})
