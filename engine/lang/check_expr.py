"""Static typing of expressions and calls (the expression half of the checker).

Implements LANGUAGE.md §7's operator rules, literal widening (only integer
literals, and expressions made solely of them, become floats where a float is
needed — they are folded into a `FloatLit`), and call resolution: user
functions by parameter list, library functions by their typed overloads.
Every checked expression gets `.type`; names get `.decl`; calls get `.target`.
"""

from __future__ import annotations

from typing import Optional

from engine.lang import ast
from engine.lang.symbols import FuncSym, ParamSpec, ResolvedCall
from engine.lang.types import (
    BOOLEAN, FILE, FLOAT, INT, SCALARS, STRING, URL, VOID, ArrayType, Signature, StructType, SubType, Type,
    Wildcard, base_of, is_assignable, is_opaque_file,
)

_ARITH = frozenset({"+", "-", "*"})
_INT_ONLY = frozenset({"%/", "%%"})
_ORDER = frozenset({"<", "<=", ">", ">="})
_EQUAL = frozenset({"==", "!="})
_LOGIC = frozenset({"&&", "||"})
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# Swift/T library functions that v1 does not provide (LANGUAGE.md §10).
UNSUPPORTED_FUNCTIONS = frozenset({"blob_from_string", "string_from_blob", "blob_size",
                                   "hostmap_one", "hostmap_list", "location_from_rank",
                                   "rank_from_location", "random_worker", "json_get", "exec_script"})


def is_int_literal_expr(e: ast.Expr) -> bool:
    """An expression made solely of integer literals (so it may widen to float)."""
    if isinstance(e, ast.IntLit):
        return True
    if isinstance(e, ast.UnaryOp) and e.op == "-":
        return is_int_literal_expr(e.operand)
    if isinstance(e, ast.BinOp) and e.op in _ARITH | _INT_ONLY:
        return is_int_literal_expr(e.left) and is_int_literal_expr(e.right)
    return False


def fold_int(e: ast.Expr) -> Optional[int]:
    """Value of an integer-literal expression, or None if it cannot be folded (÷0)."""
    if isinstance(e, ast.IntLit):
        return e.value
    if isinstance(e, ast.UnaryOp):
        v = fold_int(e.operand)
        return None if v is None else -v
    assert isinstance(e, ast.BinOp)
    a, b = fold_int(e.left), fold_int(e.right)
    if a is None or b is None:
        return None
    if e.op == "+":
        return a + b
    if e.op == "-":
        return a - b
    if e.op == "*":
        return a * b
    if b == 0:
        return None
    q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
    return q if e.op == "%/" else a - q * b


def widen(e: ast.Expr) -> ast.Expr:
    """Turn an integer-literal expression into the equal float literal."""
    v = fold_int(e)
    if v is None:
        return e
    return ast.FloatLit(value=float(v), file=e.file, line=e.line, col=e.col, type=FLOAT)


class ExprChecker:
    """Mixin of `Checker`: expression typing. Needs `error`, `scope`, `funcs`, `library`,
    `note_read` and `note_field_read`."""

    # ------------------------------------------------------------ coercion

    def coerce(self, e: ast.Expr, target: Type, what: str) -> ast.Expr:
        """Check that `e` (already typed) fits `target`, widening int literals."""
        if e.type is None:
            return e
        if is_opaque_file(target) and e.type == FILE and isinstance(e, ast.Call) and _is_library_call(e):
            e.type = target  # a library function makes a file of any file-like type (`input`)
            return e
        if base_of(target) == FLOAT and e.type == INT and is_int_literal_expr(e):
            return widen(e)
        if isinstance(e, ast.ArrayLit) and not e.items and isinstance(base_of(target), ArrayType):
            e.type = target
            return e
        if isinstance(base_of(target), ArrayType) and isinstance(e, ast.ArrayLit):
            elem_target = base_of(target).elem
            e.items = [self.coerce(i, elem_target, what) for i in e.items]
            if all(i.type is not None and is_assignable(elem_target, i.type) for i in e.items):
                e.type = target if base_of(target).key == INT else e.type
        if not is_assignable(target, e.type):
            self.error(e, f"type mismatch: {what} expects {target}, got {e.type}")
        return e

    # ------------------------------------------------------------ expressions

    def expr(self, e: ast.Expr, expected: Optional[Type] = None) -> ast.Expr:
        """Type-check `e`; returns the node to use in its place (literals may fold)."""
        method = getattr(self, "expr_" + type(e).__name__)
        result: ast.Expr = method(e, expected)
        return result

    def expr_IntLit(self, e: ast.IntLit, expected: Optional[Type]) -> ast.Expr:
        e.type = INT
        return e

    def expr_FloatLit(self, e: ast.FloatLit, expected: Optional[Type]) -> ast.Expr:
        e.type = FLOAT
        return e

    def expr_StringLit(self, e: ast.StringLit, expected: Optional[Type]) -> ast.Expr:
        e.type = STRING
        return e

    def expr_BoolLit(self, e: ast.BoolLit, expected: Optional[Type]) -> ast.Expr:
        e.type = BOOLEAN
        return e

    def expr_Name(self, e: ast.Name, expected: Optional[Type]) -> ast.Expr:
        sym = self.scope.lookup(e.id) or self.constants.get(e.id)
        if sym is None:
            if e.id in self.funcs or e.id in self.library:
                self.error(e, f"'{e.id}' is a function, not a variable")
            else:
                self.error(e, f"undefined variable '{e.id}'")
            return e
        self.note_read(sym, e)
        e.decl = sym
        e.type = sym.type
        return e

    def expr_Index(self, e: ast.Index, expected: Optional[Type]) -> ast.Expr:
        e.base = self.expr(e.base)
        base_type = base_of(e.base.type) if e.base.type is not None else None
        if base_type is not None and not isinstance(base_type, ArrayType):
            self.error(e.base, f"cannot index a value of type {e.base.type}")
            e.key = self.expr(e.key)
            return e
        key_type = base_type.key if base_type is not None else None
        e.key = self.expr(e.key, key_type)
        if key_type is not None:
            e.key = self.coerce(e.key, key_type, "array key")
            e.type = base_type.elem
        return e

    def expr_Field(self, e: ast.Field, expected: Optional[Type]) -> ast.Expr:
        e.base = self.expr(e.base)
        if e.base.type is None:
            return e
        st = base_of(e.base.type)
        if not isinstance(st, StructType):
            self.error(e, f"value of type {e.base.type} has no fields")
        elif e.name not in st.fields:
            self.error(e, f"struct {st.name} has no field '{e.name}'")
        else:
            e.type = st.fields[e.name]
            if not isinstance(base_of(e.type), (ArrayType, StructType)):
                self.note_field_read(e)
        return e

    def expr_UnaryOp(self, e: ast.UnaryOp, expected: Optional[Type]) -> ast.Expr:
        if e.op == "-" and isinstance(e.operand, ast.IntLit):
            # Fold `-LIT` so that the most negative int64 is accepted.
            e.operand.value = -e.operand.value
            e.operand.line, e.operand.col = e.line, e.col
            return self.expr(e.operand, expected)
        if e.op == "-" and isinstance(e.operand, ast.FloatLit):
            e.operand.value = -e.operand.value
            e.operand.line, e.operand.col = e.line, e.col
            return self.expr(e.operand, expected)
        e.operand = self.expr(e.operand, expected)
        t = e.operand.type
        if t is None:
            return e
        if e.op == "-" and base_of(t) in (INT, FLOAT):
            e.type = base_of(t)
        elif e.op == "!" and base_of(t) == BOOLEAN:
            e.type = BOOLEAN
        else:
            self.error(e, f"operator '{e.op}' does not apply to {t}")
        return e

    def _numeric_pair(self, e: ast.BinOp) -> Optional[Type]:
        """Unify two numeric operands (widening int literals); None on mismatch."""
        lt, rt = base_of(e.left.type), base_of(e.right.type)
        if lt == rt and lt in (INT, FLOAT):
            return lt
        if lt == FLOAT and rt == INT and is_int_literal_expr(e.right):
            e.right = widen(e.right)
            return FLOAT
        if lt == INT and rt == FLOAT and is_int_literal_expr(e.left):
            e.left = widen(e.left)
            return FLOAT
        return None

    def _op_error(self, e: ast.BinOp) -> None:
        self.error(e, f"operator '{e.op}' does not apply to {e.left.type} and {e.right.type}")

    def expr_BinOp(self, e: ast.BinOp, expected: Optional[Type]) -> ast.Expr:
        if e.op == "%":
            return self._format_op(e)
        e.left = self.expr(e.left)
        e.right = self.expr(e.right)
        if e.left.type is None or e.right.type is None:
            return e
        lt, rt = base_of(e.left.type), base_of(e.right.type)
        op = e.op
        if op == "+" and STRING in (lt, rt):
            if {lt, rt} <= {STRING, INT, FLOAT}:
                e.type = STRING
            else:
                self._op_error(e)
        elif op in _ARITH:
            e.type = self._numeric_pair(e)
            if e.type is None:
                self._op_error(e)
        elif op == "/":
            if lt == STRING and rt == STRING:
                e.type = STRING
            elif lt == INT and rt == INT and is_int_literal_expr(e.left) and is_int_literal_expr(e.right):
                e.left, e.right = widen(e.left), widen(e.right)
                e.type = FLOAT
            elif self._numeric_pair(e) == FLOAT:
                e.type = FLOAT
            else:
                self.error(e, f"operator '/' needs two floats (got {e.left.type} and {e.right.type});"
                              " use '%/' for integer division")
        elif op in _INT_ONLY:
            if lt == INT and rt == INT:
                e.type = INT
            else:
                self._op_error(e)
        elif op == "**":
            if lt == INT and rt == INT:
                e.type = FLOAT
            elif self._numeric_pair(e) == FLOAT:
                e.type = FLOAT
            else:
                self._op_error(e)
        elif op in _ORDER:
            if self._numeric_pair(e) is None:
                self._op_error(e)
            e.type = BOOLEAN
        elif op in _EQUAL:
            if lt == rt and lt in SCALARS:
                pass
            elif self._numeric_pair(e) is None:
                self._op_error(e)
            e.type = BOOLEAN
        elif op in _LOGIC:
            if lt != BOOLEAN or rt != BOOLEAN:
                self._op_error(e)
            e.type = BOOLEAN
        else:
            self.error(e, f"unknown operator '{op}'")
        return e

    def _format_op(self, e: ast.BinOp) -> ast.Expr:
        """`fmt % (a, b)` / `fmt % a`: sprintf."""
        e.left = self.expr(e.left)
        items = e.right.items if isinstance(e.right, ast.TupleExpr) else [e.right]
        checked = [self.expr(i) for i in items]
        if isinstance(e.right, ast.TupleExpr):
            e.right.items = checked
            e.right.type = VOID
        else:
            e.right = checked[0]
        if e.left.type is not None and base_of(e.left.type) != STRING:
            self.error(e, f"operator '%' formats a string; got {e.left.type} on the left"
                          " (integer remainder is '%%')")
        for item in checked:
            if item.type is not None and base_of(item.type) not in SCALARS:
                self.error(item, f"cannot format a value of type {item.type}")
        e.type = STRING
        return e

    def expr_TupleExpr(self, e: ast.TupleExpr, expected: Optional[Type]) -> ast.Expr:
        self.error(e, "a parenthesised list is only allowed after the '%' format operator")
        return e

    def expr_ArrayLit(self, e: ast.ArrayLit, expected: Optional[Type]) -> ast.Expr:
        exp_elem = base_of(expected).elem if expected is not None and isinstance(base_of(expected), ArrayType) else None
        # `[]` members take their type from their siblings (§13): check the others first.
        e.items = [i if _all_empty(i) else self.expr(i, exp_elem) for i in e.items]
        known = [i.type for i in e.items if not _all_empty(i)]
        sibling = known[0] if known and all(t is not None for t in known) else None
        e.items = [self.expr(i, exp_elem or sibling) if _all_empty(i) else i for i in e.items]
        types = [i.type for i in e.items]
        if not e.items:
            if expected is None or not isinstance(base_of(expected), ArrayType):
                self.error(e, "cannot tell the type of an empty array literal here")
                return e
            e.type = expected
            return e
        if any(t is None for t in types):
            return e
        if exp_elem is not None and all(is_assignable(exp_elem, t) or (base_of(exp_elem) == FLOAT and t == INT) for t in types):
            elem = exp_elem
        elif FLOAT in types and all(base_of(t) in (INT, FLOAT) for t in types):
            elem = FLOAT
        else:
            elem = types[0]
        e.items = [self.coerce(i, elem, "array literal element") for i in e.items]
        e.type = ArrayType(elem=elem, key=INT)
        return e

    def expr_DictLit(self, e: ast.DictLit, expected: Optional[Type]) -> ast.Expr:
        exp = base_of(expected) if expected is not None else None
        key_t = exp.key if isinstance(exp, ArrayType) else None
        val_t = exp.elem if isinstance(exp, ArrayType) else None
        items = []
        for k, v in e.items:
            k, v = self.expr(k, key_t), self.expr(v, val_t)
            items.append((k, v))
        if not items or any(k.type is None or v.type is None for k, v in items):
            return e
        key_t = key_t or items[0][0].type
        if val_t is None:
            vtypes = [v.type for _, v in items]
            val_t = FLOAT if FLOAT in vtypes and all(t in (INT, FLOAT) for t in vtypes) else vtypes[0]
        if base_of(key_t) not in SCALARS:
            self.error(e, f"array keys must be int, float, string or boolean, not {key_t}")
        e.items = [(self.coerce(k, key_t, "array key"), self.coerce(v, val_t, "array element"))
                   for k, v in items]
        e.type = ArrayType(elem=val_t, key=base_of(key_t))
        return e

    def expr_RangeLit(self, e: ast.RangeLit, expected: Optional[Type]) -> ast.Expr:
        parts = [self.expr(p) for p in (e.start, e.end, e.step) if p is not None]
        if any(p.type is None for p in parts):
            return e
        types = {base_of(p.type) for p in parts}
        if not types <= {INT, FLOAT}:
            self.error(e, "range bounds must be int or float")
            return e
        elem = FLOAT if FLOAT in types else INT
        if elem == FLOAT:
            parts = [self.coerce(p, FLOAT, "range bound") for p in parts]
        e.start, e.end = parts[0], parts[1]
        e.step = parts[2] if len(parts) > 2 else None
        e.type = ArrayType(elem=elem, key=INT)
        return e

    def expr_FilenameOf(self, e: ast.FilenameOf, expected: Optional[Type]) -> ast.Expr:
        e.operand = self.expr(e.operand)
        t = e.operand.type
        if t is not None and base_of(t) != FILE and not (
                isinstance(base_of(t), ArrayType) and _leaf_type(t) == FILE):
            self.error(e, f"'@' takes a file, not {t}")
        e.type = STRING
        return e

    def expr_Call(self, e: ast.Call, expected: Optional[Type]) -> ast.Expr:
        subtype = self.types.get(e.func)
        if isinstance(subtype, SubType) and base_of(subtype) in SCALARS and e.func not in self.funcs:
            return self._convert(e, subtype)
        outputs = self.call(e, expected)
        if outputs is None:
            return e
        if len(outputs) != 1:
            self.error(e, f"function '{e.func}' has {len(outputs)} outputs; only a single-output"
                          " call can be used inside an expression")
            return e
        e.type = outputs[0]
        return e

    def _convert(self, e: ast.Call, subtype: SubType) -> ast.Expr:
        """`NAME(e)` for a scalar subtype `type NAME T;` (§13): `e`'s value, as a NAME."""
        if len(e.args) != 1 or e.kwargs:
            self.error(e, f"{subtype.name}(...) converts one value, {len(e.args) + len(e.kwargs)} given")
            return e
        value = self.coerce(self.expr(e.args[0], subtype.base), subtype.base, f"{subtype.name}(...)")
        if value.type is not None:
            value.type = subtype
        return value

    # ------------------------------------------------------------ calls

    def call(self, e: ast.Call, expected: Optional[Type] = None) -> Optional[tuple[Type, ...]]:
        """Resolve and check a call; returns its output types (None on error)."""
        if e.prio is not None:
            e.prio = self.coerce(self.expr(e.prio), INT, "@prio")
        if e.location is not None:
            e.location = self.expr(e.location)
        if e.func in UNSUPPORTED_FUNCTIONS and e.func not in self.funcs:
            self.error(e, f"unsupported feature: {e.func}")
            return None
        if self.scope.lookup_local(e.func) is not None and e.func not in self.funcs:
            self.error(e, f"'{e.func}' is a variable, not a function")
            return None
        versions = self.overloads.get(e.func)
        if versions is not None and len(versions) > 1:
            e.args = [self.expr(a) for a in e.args]
            chosen = self._pick_overload(e, versions)
            return None if chosen is None else self._call_user(e, chosen, args_checked=True)
        func = self.funcs.get(e.func)
        if func is not None:
            return self._call_user(e, func)
        lib = self.library_syms.get(e.func)
        if lib is not None:
            return self._call_library(e, lib)
        struct = self.types.get(e.func)
        if isinstance(struct, StructType):
            return self._construct(e, struct)
        self.error(e, f"undefined function '{e.func}'")
        for a in e.args:
            self.expr(a)
        return None

    def _pick_overload(self, e: ast.Call, versions: list[FuncSym]) -> Optional[FuncSym]:
        """The overload whose parameters the (checked) arguments match exactly, else the
        single one reachable by promoting int literals to float (§12)."""
        if any(a.type is None for a in e.args):
            return None
        named = {kw.name for kw in e.kwargs}

        def fits(func: FuncSym, promote: bool) -> bool:
            params = func.inputs
            if len(e.args) > len(params):
                return False
            rest = params[len(e.args):]
            if any(p.default is None and p.name not in named for p in rest):
                return False
            return all(is_assignable(p.type, a.type)
                       or (promote and base_of(p.type) == FLOAT and a.type == INT and is_int_literal_expr(a))
                       for a, p in zip(e.args, params))

        for promote in (False, True):
            matches = [f for f in versions if fits(f, promote)]
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1 and not promote:
                break
        candidates = "; ".join(f"{f.name}({', '.join(f'{p.type} {p.name}' for p in f.inputs)})"
                               for f in versions)
        given = ", ".join(str(a.type) for a in e.args)
        self.error(e, f"no single version of '{e.func}' takes ({given}); candidates: {candidates}")
        return None

    def _call_user(self, e: ast.Call, func: FuncSym, args_checked: bool = False) -> Optional[tuple[Type, ...]]:
        params = func.inputs
        if len(e.args) > len(params):
            self.error(e, f"function '{func.name}' takes at most {len(params)} arguments,"
                          f" {len(e.args)} given")
            return None
        e.args = [self.coerce(a if args_checked else self.expr(a, p.type), p.type,
                              f"argument '{p.name}' of '{func.name}'")
                  for a, p in zip(e.args, params)]
        by_name = {p.name: p for p in params}
        given = {p.name for p in params[: len(e.args)]}
        for kw in e.kwargs:
            p = by_name.get(kw.name)
            if p is None:
                self.error(kw, f"function '{func.name}' has no parameter '{kw.name}'")
                continue
            if p.default is None:
                self.error(kw, f"parameter '{kw.name}' of '{func.name}' is not optional;"
                               " pass it by position")
            if kw.name in given:
                self.error(kw, f"parameter '{kw.name}' given twice")
            given.add(kw.name)
            kw.value = self.coerce(self.expr(kw.value, p.type), p.type, f"argument '{p.name}'")
        missing = [p.name for p in params if p.name not in given and p.default is None]
        if missing:
            self.error(e, f"function '{func.name}' needs argument '{missing[0]}'"
                          f" ({len(params)} parameters, {len(e.args)} given)")
            return None
        outs = tuple(p.type for p in func.outputs)
        e.target = ResolvedCall(func, None, outs)
        return outs

    def _construct(self, e: ast.Call, struct: StructType) -> Optional[tuple[Type, ...]]:
        """`P(v1, v2, ...)`: one argument per field, in field order."""
        fields = list(struct.fields.items())
        if len(e.args) != len(fields) or e.kwargs:
            self.error(e, f"constructor {struct.name}(...) takes {len(fields)} arguments"
                          f" (one per field), {len(e.args)} given")
            return None
        e.args = [self.coerce(self.expr(a, t), t, f"field '{n}' of {struct.name}")
                  for a, (n, t) in zip(e.args, fields)]
        func = FuncSym(struct.name, "struct", inputs=[ParamSpec(n, t) for n, t in fields])
        e.target = ResolvedCall(func, None, (struct,))
        return (struct,)

    def _call_library(self, e: ast.Call, func: FuncSym) -> Optional[tuple[Type, ...]]:
        e.args = [self.expr(a) for a in e.args]
        for kw in e.kwargs:
            kw.value = self.expr(kw.value)
        if any(a.type is None for a in e.args) or any(k.value.type is None for k in e.kwargs):
            return None
        for widening in (False, True):
            for sig in func.overloads:
                bound = self._match(sig, e, widening)
                if bound is not None:
                    outs = tuple(_subst(t, bound) for t in sig.outputs)
                    self._apply_widening(sig, e)
                    if func.reads_content:
                        for a in e.args:
                            if a.type == URL:
                                self.error(a, f"{func.name}() reads a local file; a url is not one")
                    e.target = ResolvedCall(func, sig, outs)
                    return outs
        given = ", ".join(str(a.type) for a in e.args)
        expected_sigs = " or ".join(f"{func.name}{str(s).split(' ->')[0]}" for s in func.overloads)
        self.error(e, f"no version of '{func.name}' takes ({given}); expected {expected_sigs}")
        return None

    def _match(self, sig: Signature, e: ast.Call, widening: bool) -> Optional[dict[str, Type]]:
        n_fixed = len(sig.params)
        if len(e.args) > n_fixed and sig.varargs is None:
            return None
        by_name = {p.name: i for i, p in enumerate(sig.params) if p.name}
        filled = [False] * n_fixed
        pairs: list[tuple[Type, ast.Expr]] = []
        for i, a in enumerate(e.args):
            if i < n_fixed:
                pairs.append((sig.params[i].type, a))
                filled[i] = True
            else:
                pairs.append((sig.varargs, a))  # type: ignore[arg-type]
        for kw in e.kwargs:
            idx = by_name.get(kw.name)
            if idx is None or filled[idx] or not sig.params[idx].has_default:
                return None
            filled[idx] = True
            pairs.append((sig.params[idx].type, kw.value))
        if not all(f or p.has_default for f, p in zip(filled, sig.params)):
            return None
        bound: dict[str, Type] = {}
        for pattern, arg in pairs:
            if not _unify(pattern, arg, bound, widening):
                return None
        return bound

    def _apply_widening(self, sig: Signature, e: ast.Call) -> None:
        for i, a in enumerate(e.args):
            p = sig.params[i].type if i < len(sig.params) else sig.varargs
            if p == FLOAT and a.type == INT:
                e.args[i] = widen(a)
        names = {p.name: p.type for p in sig.params}
        for kw in e.kwargs:
            if names.get(kw.name) == FLOAT and kw.value.type == INT:
                kw.value = widen(kw.value)


def _is_library_call(e: ast.Call) -> bool:
    target = getattr(e, "target", None)
    return isinstance(target, ResolvedCall) and target.func.kind == "library"


def _leaf_type(t: Type) -> Type:
    t = base_of(t)
    while isinstance(t, ArrayType):
        t = base_of(t.elem)
    return t


def _unify(pattern: Type, arg: ast.Expr, bound: dict[str, Type], widening: bool) -> bool:
    return _unify_types(pattern, arg.type, bound, widening and is_int_literal_expr(arg))


def _unify_types(pattern: Type, actual: Type, bound: dict[str, Type], widen_ok: bool) -> bool:
    actual_base = base_of(actual)
    if isinstance(pattern, Wildcard):
        if pattern.name == "any":
            return True
        if pattern.name == "scalar":
            return actual_base in SCALARS
        if pattern.name == "nested":
            while isinstance(actual_base, ArrayType):
                actual_base = base_of(actual_base.elem)
            return actual_base in SCALARS
        if pattern.name in bound:
            return is_assignable(bound[pattern.name], actual) or (
                widen_ok and bound[pattern.name] == FLOAT and actual_base == INT)
        if pattern.name == "K" and actual_base not in SCALARS:
            return False
        bound[pattern.name] = actual
        return True
    if isinstance(pattern, ArrayType):
        return (isinstance(actual_base, ArrayType)
                and _unify_types(pattern.key, actual_base.key, bound, False)
                and _unify_types(pattern.elem, actual_base.elem, bound, False))
    if is_assignable(pattern, actual) or (pattern == FILE and actual_base == FILE):
        return True  # library functions on files take every file-like type
    return widen_ok and pattern == FLOAT and actual_base == INT


def _subst(t: Type, bound: dict[str, Type]) -> Type:
    if isinstance(t, Wildcard):
        return bound.get(t.name, t)
    if isinstance(t, ArrayType):
        return ArrayType(elem=_subst(t.elem, bound), key=_subst(t.key, bound))
    return t


def _all_empty(e: ast.Expr) -> bool:
    """An array literal of `[]`s only, at any depth (`[]`, `[[], []]`): typed by its context."""
    return isinstance(e, ast.ArrayLit) and all(_all_empty(i) for i in e.items)
