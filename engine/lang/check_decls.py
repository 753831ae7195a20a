"""Declarations for the checker: type definitions, function signatures, function bodies.

Phase 1 of checking (see check.py): struct types and type aliases are
collected first, across every module, resolving aliases of aliases in any
order; then every function's signature (inputs with optional literal
defaults, outputs; app outputs must be files or void). Phase 2 then checks
each body in a fresh function scope; an app's body is its command line,
whose words must be scalars or files (or arrays of them).
"""

from __future__ import annotations

from typing import Optional

from engine.lang import ast
from engine.lang.check_expr import ExprChecker
from engine.lang.scopes import Scope
from engine.lang.symbols import FuncSym, ParamSpec
from engine.lang.types import (
    FILE, INT, KEY_TYPES, LIBRARY_TYPES, PRIMITIVES, SCALARS, STRING, URL, VOID, ArrayType, StructType, SubType, Type,
    base_of,
)


class DeclChecker(ExprChecker):
    """Types and functions: the declaration half of the checker (a mixin of `Checker`)."""

    # ------------------------------------------------------------ types

    def resolve_type(self, ref: ast.TypeRef) -> Optional[Type]:
        base: Optional[Type] = PRIMITIVES.get(ref.name) or self.types.get(ref.name)
        if base is None:
            self.error(ref, f"unknown type '{ref.name}'")
            return None
        for key in reversed(ref.dims):
            key_type: Optional[Type] = INT if key is None else (PRIMITIVES.get(key) or self.types.get(key))
            if key_type is None or base_of(key_type) not in KEY_TYPES:
                self.error(ref, f"array keys must be int, float, string or boolean, not '{key}'")
                return None
            base = ArrayType(elem=base, key=base_of(key_type))
        return base

    def _collect_types(self, items: list[ast.Item]) -> None:
        defs = [i for i in items if isinstance(i, (ast.StructDef, ast.TypeDef))]
        user_names = {d.name for d in defs}
        self.types.update((name, t) for name, t in LIBRARY_TYPES.items() if name not in user_names)
        for d in defs:
            if d.name in self.types or d.name in PRIMITIVES:
                self.error(d, f"type '{d.name}' is already defined")
            elif isinstance(d, ast.StructDef):
                self.types[d.name] = StructType(d.name)
        pending = [d for d in defs if isinstance(d, ast.TypeDef)]
        for _ in range(len(pending) + 1):
            unresolved = []
            for d in pending:
                if d.base.name not in PRIMITIVES and d.base.name not in self.types:
                    unresolved.append(d)
                    continue
                base = self.resolve_type(d.base)
                if base is not None:
                    self.types[d.name] = SubType(d.name, base, d.opaque) if d.distinct else base
            if len(unresolved) == len(pending):
                break
            pending = unresolved
        for d in pending:
            self.error(d.base, f"unknown type '{d.base.name}'")
        for d in defs:
            if isinstance(d, ast.StructDef):
                struct = self.types[d.name]
                assert isinstance(struct, StructType)
                for f in d.fields:
                    if f.name in struct.fields:
                        self.error(f, f"duplicate field '{f.name}' in struct {d.name}")
                    t = self.resolve_type(f.type)
                    if t is not None:
                        struct.fields[f.name] = t
        for d in defs:
            if isinstance(d, ast.StructDef):
                cycle = _struct_cycle(self.types[d.name], [])
                if cycle:
                    self.error(d, f"struct {d.name} contains itself ({' -> '.join(cycle)}): its value would"
                                  " be infinite (an array of it, e.g. '" + d.name + " next[]', is fine)")

    # ------------------------------------------------------------ functions

    def _collect_functions(self, items: list[ast.Item]) -> None:
        for item in items:
            if not isinstance(item, (ast.FuncDef, ast.AppDef)):
                continue
            kind = "app" if isinstance(item, ast.AppDef) else "composite"
            self.refuse_builtin_name(item.name, item, "an app" if kind == "app" else "a function")
            func = FuncSym(item.name, kind, node=item)
            func.inputs = self._params(item.inputs, inputs=True)
            func.outputs = self._params(item.outputs, inputs=False)
            if kind == "app":
                for p, spec in zip(item.outputs, func.outputs):
                    if base_of(spec.type) not in (FILE, VOID):
                        self.error(p, f"app output '{p.name}' must be a file or void, not {spec.type}")
                    elif spec.type == URL:
                        self.error(p, f"app output '{p.name}' cannot be a url: an app writes local files")
            versions = self.overloads.setdefault(item.name, [])
            if any(_input_types(v) == _input_types(func) for v in versions):
                self.error(item, f"function '{item.name}' is already defined"
                                 + (" with these parameter types" if versions[0].inputs or func.inputs else ""))
                continue
            # Overloads (§12) share a name; each is checked and run as its own function.
            key = item.name if not versions else f"{item.name}({', '.join(map(str, _input_types(func)))})"
            versions.append(func)
            self.funcs[key] = func

    def _params(self, params: list[ast.Param], inputs: bool) -> list[ParamSpec]:
        specs: list[ParamSpec] = []
        seen_optional = False
        for p in params:
            t = self.resolve_type(p.type)
            default = p.default
            if default is not None:
                if not inputs:
                    self.error(p, "output parameters cannot have default values")
                default = self.expr(default, t)
                if t is not None:
                    default = self.coerce(default, t, f"default of '{p.name}'")
                if not isinstance(default, (ast.IntLit, ast.FloatLit, ast.StringLit, ast.BoolLit)):
                    self.error(default, f"default of '{p.name}' must be a literal")
                seen_optional = True
            elif seen_optional and inputs:
                self.error(p, f"required parameter '{p.name}' follows an optional one")
            specs.append(ParamSpec(p.name, t if t is not None else VOID, default))
        return specs

    def _check_function(self, func: FuncSym) -> None:
        node = func.node
        self.in_function = func
        self.scope = Scope(self.global_scope, "function")
        names: set[str] = set()
        for params, specs, kind, target in ((node.inputs, func.inputs, "input", func.input_syms),
                                            (node.outputs, func.outputs, "output", func.output_syms)):
            for p, spec in zip(params, specs):
                if p.name in names:
                    self.error(p, f"duplicate parameter '{p.name}'")
                names.add(p.name)
                sym = self.declare(p.name, spec.type, p, kind)
                target.append(sym)
        if isinstance(node, ast.AppDef):
            self._check_app(node, func)
        else:
            self.write_sets.append(set())
            self.block(node.body)
            self.write_sets.pop()
        self.scope = self.global_scope
        self.in_function = None

    def _check_app(self, node: ast.AppDef, func: FuncSym) -> None:
        if "walltime" in node.annotations:
            func.walltime = self._walltime(node.annotations["walltime"], node)
        cmd = node.command
        if not cmd.words:
            self.error(cmd, "app body needs a command")
        cmd.words = [self._app_word(w) for w in cmd.words]
        if cmd.words and cmd.words[0].type is not None and base_of(cmd.words[0].type) != STRING:
            self.error(cmd.words[0], "the first word of an app command must be a string naming the program")
        for attr in ("stdin", "stdout", "stderr"):
            target = getattr(cmd, attr)
            if target is not None:
                target = self.expr(target)
                setattr(cmd, attr, target)
                if target.type is not None and base_of(target.type) != FILE:
                    self.error(target, f"@{attr} needs a file, not {target.type}")
        for sym in func.output_syms:
            sym.writes += 1

    def _walltime(self, value: Optional[ast.Expr], node: ast.AppDef) -> Optional[float]:
        """`@walltime=SECONDS`: a positive number literal."""
        if value is not None:
            value = self.expr(value)
        number = value.value if isinstance(value, (ast.IntLit, ast.FloatLit)) else None
        if not isinstance(number, (int, float)) or not number > 0 or number == float("inf"):
            self.error(value or node, "@walltime needs a positive number of seconds, e.g. @walltime=600")
            return None
        return float(number)

    def _app_word(self, w: ast.Expr) -> ast.Expr:
        w = self.expr(w)
        t = w.type
        while t is not None and isinstance(base_of(t), ArrayType):
            t = base_of(t).elem
        if t is not None and base_of(t) not in SCALARS | {FILE}:
            self.error(w, f"cannot pass a value of type {w.type} on a command line")
        return w


def _input_types(func: FuncSym) -> tuple[Type, ...]:
    return tuple(p.type for p in func.inputs)


def _struct_cycle(t: Type, seen: list[str]) -> list[str]:
    """The field path by which struct `t` contains itself directly (not through an
    array, which may be empty), or [] if it does not."""
    if not isinstance(t, StructType):
        return []
    for name, field_type in t.fields.items():
        inner = base_of(field_type)
        if not isinstance(inner, StructType):
            continue
        path = seen + [f"{t.name}.{name}"]
        if inner.name == (seen[0].split(".")[0] if seen else t.name):
            return path
        if len(path) <= 64:
            found = _struct_cycle(inner, path)
            if found:
                return found
    return []
