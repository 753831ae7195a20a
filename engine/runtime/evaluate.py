"""Expression evaluation: an expression becomes a future (or container).

Operators are strict: they fire when their operands close. When the operands
are already closed the result is computed on the spot (no queueing), which
keeps arithmetic on closed values as cheap as plain Python. Operator
semantics follow LANGUAGE.md §7 (Turbine's truncating `%/` and `%%`, IEEE
floats, 64-bit wrapping ints, text forms for string `+`).
"""

from __future__ import annotations

import math
from typing import Any, Callable

from engine.errors import SwiftRuntimeError
from engine.lang import ast
from engine.lang.types import FILE, FLOAT, INT, STRING, base_of
from engine.runtime.builtins.core import float_div, float_pow, int_div, int_mod, int_wrap
from engine.runtime.builtins.sprintf import sprintf
from engine.runtime.builtins.textform import text_form
from engine.runtime.env import Env
from engine.runtime.futures import ArrayFuture, Container, FileFuture, Future, StructFuture, when_closed
from engine.runtime.values import is_container_type, resolve


def _int_op(op: str) -> Callable[[int, int], int]:
    return {
        "+": lambda a, b: int_wrap(a + b),
        "-": lambda a, b: int_wrap(a - b),
        "*": lambda a, b: int_wrap(a * b),
        "%/": int_div,
        "%%": int_mod,
    }[op]


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}


def _float_op(op: str) -> Callable[[float, float], float]:
    return {
        "+": lambda a, b: a + b,
        "-": lambda a, b: a - b,
        "*": lambda a, b: _fmul(a, b),
        "/": float_div,
        "**": float_pow,
    }[op]


def _fmul(a: float, b: float) -> float:
    try:
        return a * b
    except OverflowError:
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def operator_function(node: ast.BinOp) -> Callable[[Any, Any], Any]:
    """The Python function computing `node`'s operator for its operand types."""
    op = node.op
    lt, rt = base_of(node.left.type), base_of(node.right.type)
    if op in _COMPARE:
        return _COMPARE[op]
    if op == "&&":
        return lambda a, b: a and b
    if op == "||":
        return lambda a, b: a or b
    if op == "+" and STRING in (lt, rt):
        return lambda a, b: text_form(a) + text_form(b)
    if op == "/" and lt == STRING:
        return lambda a, b: a + "/" + b
    if op == "**":
        return lambda a, b: float_pow(float(a), float(b))
    if lt == INT and rt == INT:
        return _int_op(op)
    if FLOAT in (lt, rt):
        return _float_op(op)
    raise SwiftRuntimeError(f"internal error: no operator {op} for {lt}, {rt} (please report)")


def _apply(fn: Callable[[Any, Any], Any], left: Future, right: Future, e: ast.BinOp) -> Any:
    """`fn` on two closed operands; its run-time error (divide by zero) says where."""
    try:
        return fn(left.value, right.value)
    except SwiftRuntimeError as error:
        raise SwiftRuntimeError(f"{e.file}:{e.line}: {error}") from None


class ExprEvaluator:
    """Mixin of the interpreter: `ev(expr, env)` returns the expression's value handle."""

    call: Callable[..., list[Any]]  # provided by CallRunner

    def ev(self, e: ast.Expr, env: Env) -> Any:
        return getattr(self, "ev_" + type(e).__name__)(e, env)

    def _literal(self, e: ast.Expr, env: Env) -> Future:
        handle = getattr(e, "handle", None)
        if handle is None:
            handle = Future.of(e.value)  # type: ignore[attr-defined]
            e.handle = handle  # type: ignore[attr-defined]
        return handle

    ev_IntLit = ev_FloatLit = ev_StringLit = ev_BoolLit = _literal

    def ev_Name(self, e: ast.Name, env: Env) -> Any:
        sym = e.decl
        if sym.kind == "const":
            return self._literal_const(sym)
        return env.lookup(sym)

    def _literal_const(self, sym: Any) -> Future:
        handle = getattr(sym, "handle", None)
        if handle is None:
            handle = Future.of(sym.value, sym.name)
            sym.handle = handle
        return handle

    def ev_UnaryOp(self, e: ast.UnaryOp, env: Env) -> Future:
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
        when_closed((operand,), lambda: out.set(fn(operand.value)), e)
        return out

    def ev_BinOp(self, e: ast.BinOp, env: Env) -> Future:
        if e.op == "%":
            return self._format(e, env)
        left, right = self.ev(e.left, env), self.ev(e.right, env)
        fn = getattr(e, "fn", None)
        if fn is None:
            fn = e.fn = operator_function(e)  # type: ignore[attr-defined]
        if left.closed and right.closed:
            return Future.of(_apply(fn, left, right, e))
        out = Future()
        when_closed((left, right), lambda: out.set(_apply(fn, left, right, e)), e)
        return out

    def _format(self, e: ast.BinOp, env: Env) -> Future:
        items = e.right.items if isinstance(e.right, ast.TupleExpr) else [e.right]
        handles = [self.ev(e.left, env)] + [self.ev(i, env) for i in items]
        out = Future()
        when_closed(handles, lambda: out.set(sprintf(handles[0].value, [h.value for h in handles[1:]])), e)
        return out

    # ------------------------------------------------------------ containers

    def ev_Index(self, e: ast.Index, env: Env) -> Any:
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
            when_closed((key,), with_key, e)
        resolve(base, e.base.type, with_array, e)
        return out

    def ev_Field(self, e: ast.Field, env: Env) -> Any:
        base = self.ev(e.base, env)
        if isinstance(base, StructFuture):
            return base.fields[e.name]
        out = self._placeholder(e)
        resolve(base, e.base.type, lambda struct: self._forward(struct.fields[e.name], out, e), e)
        return out

    def _placeholder(self, e: ast.Expr) -> Future:
        """The handle of a value not reachable yet: a reference future for
        containers, a file future for files, else a plain future."""
        if base_of(e.type) == FILE:
            return FileFuture()
        return Future()

    def _forward(self, elem: Any, out: Future, e: ast.Expr) -> None:
        """Make `out` (a placeholder) follow `elem` once it exists."""
        if is_container_type(e.type):
            if isinstance(elem, Container):
                out.set(elem)
            else:
                when_closed((elem,), lambda: out.set(elem.value), e)
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
        when_closed((elem,), follow, e)

    def ev_ArrayLit(self, e: ast.ArrayLit, env: Env) -> ArrayFuture:
        array = ArrayFuture()
        for i, item in enumerate(e.items):
            array.elems[i] = self.ev(item, env)
        array.close()
        return array

    def ev_DictLit(self, e: ast.DictLit, env: Env) -> ArrayFuture:
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
            when_closed(keys, fill, e)
        return array

    def ev_RangeLit(self, e: ast.RangeLit, env: Env) -> ArrayFuture:
        bounds = [self.ev(p, env) for p in (e.start, e.end, e.step) if p is not None]
        array = ArrayFuture(writers=1)

        def fill() -> None:
            for i, v in enumerate(range_values(*(b.value for b in bounds))):
                array.elems[i] = Future.of(v)
            array.decr()
        when_closed(bounds, fill, e)
        return array

    def ev_Call(self, e: ast.Call, env: Env) -> Any:
        return self.call(e, env)[0]

    def ev_FilenameOf(self, e: ast.FilenameOf, env: Env) -> Future:
        f = self.ev(e.operand, env)
        out = Future()
        when_closed((f,), lambda: out.set(f.value), e)
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

