"""The checker: names, scopes, static types and single assignment.

Runs over all parsed modules at once. Phase 1 collects type definitions and
function signatures (so both may be used before their definition; see
check_decls.py); phase 2 checks top-level code in the global scope, then
every function body. It annotates the AST for the runtime: `Name.decl`,
`Expr.type`, `Call.target`, `Block.scope_vars` (the variables a block
creates), `Stmt.writes` (the array and struct variables a statement may
write, for write reference counting), and the loop/declaration symbols.
Errors are collected and raised together.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from engine.errors import CompileError, CompileErrors
from engine.lang import ast
from engine.lang.check_decls import DeclChecker
from engine.lang.scopes import AssignmentSites, BranchPath, Scope
from engine.lang.struct_fields import FieldPath, FieldSites, field_read, target_path
from engine.lang.symbols import FuncSym, LibraryFunction, VarSym
from engine.lang.types import (
    BOOLEAN, FILE, INT, KEY_TYPES, STRING, URL, VOID, ArrayType, StructType, Type, base_of,
    is_assignable, parse_signature, parse_type_text,
)


@dataclass
class CheckedProgram:
    """The checked program: top-level code, its global variables, and functions."""

    statements: list[ast.Stmt]
    global_vars: list[VarSym]
    functions: dict[str, FuncSym]
    main: Optional[FuncSym]
    warnings: list[CompileError] = field(default_factory=list)


def library_symbols(library: Mapping[str, LibraryFunction],
                    constants: Mapping[str, tuple[str, Any, str]]) -> tuple[dict[str, FuncSym], dict[str, VarSym]]:
    """The library's functions and constants as symbols (its signature strings parsed: about 6 ms)."""
    funcs = {name: FuncSym(name, "library", overloads=tuple(parse_signature(s) for s in f.overloads),
                           module=f.module, reads_content=f.reads_content) for name, f in library.items()}
    consts = {name: VarSym(name, parse_type_text(t), "const", value=v) for name, (t, v, _module) in constants.items()}
    return funcs, consts


class Checker(DeclChecker):
    """Checks one program; use `check_program`."""

    def __init__(self, library: Mapping[str, LibraryFunction],
                 constants: Mapping[str, tuple[str, Any, str]]) -> None:
        self.library = library
        self.library_syms, self.constants = library_symbols(library, constants)
        self.errors: list[CompileError] = []
        self.warnings: list[CompileError] = []
        self.types: dict[str, Type] = {}
        self.funcs: dict[str, FuncSym] = {}  # overloads after the first under "name(types)"
        self.overloads: dict[str, list[FuncSym]] = {}
        self.global_scope = Scope(None, "global")
        self.scope = self.global_scope
        self.sites = AssignmentSites()
        self.path: BranchPath = ()
        self.loop_entry_paths: list[int] = [0]  # len(self.path) where each enclosing loop began
        # Self-waits (§12): the if/switch/wait statements around the statement being
        # checked, where each variable is written, and what each such statement waits for.
        self.guards: list[ast.Stmt] = []
        self.write_guards: dict[VarSym, list[frozenset[int]]] = {}
        self.guard_reads: list[tuple[ast.Stmt, ast.Expr, set[VarSym]]] = []
        self.all_syms: list[VarSym] = []
        self.elem_depth: dict[tuple[int, FieldPath], int] = {}  # keys an array is written at, by variable and fields
        self.field_sites = FieldSites()
        self.write_sets: list[set[VarSym]] = [set()]
        self.in_function: Optional[FuncSym] = None
        self.branch_groups = itertools.count(1)  # ids of if/switch statements, whose branches are alternatives

    # ------------------------------------------------------------ reporting

    def error(self, node: ast.Node, message: str) -> None:
        self.errors.append(CompileError(node.file, node.line, node.col, message))

    def warn(self, node: ast.Node, message: str) -> None:
        self.warnings.append(CompileError(node.file, node.line, node.col, message, warning=True))

    def refuse_builtin_name(self, name: str, node: ast.Node, what: str) -> None:
        """Builtins (the library functions that need no import) are reserved (§13)."""
        builtin = self.library_syms.get(name)
        if builtin is not None and builtin.module is None:
            self.error(node, f"'{name}' is a builtin function: {what} cannot take its name")

    def note_read(self, sym: VarSym, node: ast.Node) -> None:
        sym.reads += 1

    def note_field_read(self, e: ast.Field) -> None:
        """A scalar or file field is read (`p.x`, `p.inner.y`)."""
        named = field_read(e)
        if named is not None:
            self.field_sites.read(*named, e)

    def record_write(self, sym: VarSym) -> None:
        sym.writes += 1
        self.write_guards.setdefault(sym, []).append(frozenset(map(id, self.guards)))
        if sym.is_container:
            self.write_sets[-1].add(sym)

    # ------------------------------------------------------------ driver

    def check_program(self, items: list[ast.Item]) -> CheckedProgram:
        self._collect_types(items)
        self._collect_functions(items)
        statements = [i for i in items if isinstance(i, ast.Stmt)]
        for s in statements:
            self.stmt(s)
        for func in self.funcs.values():
            self._check_function(func)
        self._check_never_assigned()
        self._check_self_waits()
        if self.errors:
            self.errors.sort(key=lambda e: (e.file, e.line, e.col))
            raise CompileErrors(self.errors)
        return CheckedProgram(statements, list(self.global_scope.declared), self.funcs,
                              self.funcs.get("main"), self.warnings)

    def _check_self_waits(self) -> None:
        """A statement that waits for a variable only it can write never runs (§12)."""
        for stmt, where, syms in self.guard_reads:
            for sym in sorted(syms, key=lambda s: s.name):
                sites = self.write_guards.get(sym, [])
                if sites and len(sites) == sym.writes and all(id(stmt) in g for g in sites):
                    what = {"If": "if", "Switch": "switch", "Wait": "wait"}[type(stmt).__name__]
                    self.error(where, f"this {what} waits for '{sym.name}', which only its own body"
                                      " writes: it can never run")

    def _guarded(self, stmt: ast.Stmt, where: ast.Expr, reads: list[ast.Expr]) -> None:
        """Note what `stmt` waits for before its body runs (checked once all writes are known)."""
        syms: set[VarSym] = set()
        for e in reads:
            _names_read(e, syms)
        if syms:
            self.guard_reads.append((stmt, where, syms))

    def _check_never_assigned(self) -> None:
        for sym in self.all_syms:
            if sym.kind not in ("local", "global"):
                continue
            if sym.reads and not sym.writes and not sym.is_container:
                self.error(sym.node, f"variable '{sym.name}' is read but never assigned")
            elif not sym.reads and not sym.writes and sym.node is not None:
                self.warn(sym.node, f"variable '{sym.name}' is never used")
        for node, name in self.field_sites.never_written():
            self.error(node, f"field '{name}' is read but never assigned")
        for func in self.funcs.values():
            if func.kind != "composite":
                continue
            for sym in func.output_syms:
                if not sym.writes:
                    self.error(sym.node, f"output '{sym.name}' of function '{func.name}' is never assigned")

    # ------------------------------------------------------------ declarations

    def declare(self, name: str, t: Optional[Type], node: ast.Node, kind: Optional[str] = None,
                mapped: bool = False) -> VarSym:
        existing = self.scope.vars.get(name)
        if existing is not None:
            self.error(node, f"'{name}' is already declared in this scope"
                             f" (line {existing.node.line})" if existing.node else f"'{name}' is already declared")
        elif self.scope.kind != "global":
            outer = self.scope.lookup_local(name)
            if outer is not None:
                self.error(node, f"declaration of '{name}' shadows the variable declared at line"
                                 f" {outer.node.line if outer.node else '?'}")
            elif name in self.global_scope.vars:
                self.warn(node, f"local variable '{name}' hides a global variable")
        if kind is None:
            kind = "global" if self.scope is self.global_scope else "local"
        if kind == "global":
            self.refuse_builtin_name(name, node, "a global variable")
        sym = VarSym(name, t if t is not None else VOID, kind, node, mapped)
        sym.loop_depth = self.scope.loop_depth
        self.scope.vars[name] = sym
        self.scope.declared.append(sym)
        self.all_syms.append(sym)
        return sym

    # ------------------------------------------------------------ statements

    def stmt(self, s: ast.Stmt) -> None:
        self.write_sets.append(set())
        getattr(self, "stmt_" + type(s).__name__)(s)
        writes = self.write_sets.pop()
        s.writes = frozenset(writes)
        self.write_sets[-1] |= writes

    def block(self, b: ast.Block, scope: Optional[Scope] = None) -> None:
        self.scope = scope or Scope(self.scope, "block", self.scope.loop_depth)
        for s in b.stmts:
            self.stmt(s)
        b.scope_vars = list(self.scope.declared)
        self.write_sets[-1] -= set(self.scope.declared)
        self.scope = self.scope.parent  # type: ignore[assignment]

    def stmt_Block(self, s: ast.Block) -> None:
        self.block(s)

    def stmt_DeclStmt(self, s: ast.DeclStmt) -> None:
        if s.is_global_const and self.scope is not self.global_scope:
            self.error(s, "'global const' declarations belong at the top level")
        for d in s.decls:
            t = self.resolve_type(d.type)
            if d.mapping is not None:
                d.mapping = self.expr(d.mapping)
                if d.mapping.type is not None and base_of(d.mapping.type) != STRING:
                    self.error(d.mapping, f"a file mapping must be a string, not {d.mapping.type}")
                if t is not None and base_of(t) != FILE:
                    self.error(d, f"only files can be mapped, not {t}")
            if d.init is not None:
                d.init = self.expr(d.init, t)
                if t is not None:
                    d.init = self.coerce(d.init, t, f"declaration of '{d.name}'")
            sym = self.declare(d.name, t, d, mapped=d.mapping is not None)
            d.sym = sym
            if d.init is not None:
                self._note_whole_assignment(sym, d)
                self._refuse_url_copy(sym, d.init, d)

    def stmt_ExprStmt(self, s: ast.ExprStmt) -> None:
        if not isinstance(s.expr, ast.Call):
            self.error(s, "an expression on its own must be a function call")
            self.expr(s.expr)
            return
        self.call(s.expr)

    def stmt_Assign(self, s: ast.Assign) -> None:
        if len(s.targets) > 1 and len(s.values) == 1:
            value = s.values[0]
            if not isinstance(value, ast.Call):
                self.error(value, f"{len(s.targets)} targets but one value")
                return
            outs = self.call(value)
            if outs is None:
                return
            if len(outs) != len(s.targets):
                self.error(value, f"function '{value.func}' has {len(outs)} outputs but"
                                  f" {len(s.targets)} targets are assigned")
                return
            s.multi_output = True
            for target, t in zip(s.targets, outs):
                self.assign_target(target, None, t)
                self._refuse_self_dependence(target, value)
            return
        s.multi_output = False
        if len(s.targets) != len(s.values):
            self.error(s, f"{len(s.targets)} targets but {len(s.values)} values")
            return
        s.values = [self.assign_target(t, v, None) for t, v in zip(s.targets, s.values)]
        for target, value in zip(s.targets, s.values):
            self._refuse_self_dependence(target, value)

    def _refuse_url_copy(self, sym: VarSym, value: Optional[ast.Expr], node: ast.Node) -> None:
        """A mapped url names a remote object: it cannot take another variable's value (§13;
        a function's output is refused when it arrives)."""
        if sym.mapped and sym.type == URL and value is not None and not isinstance(value, ast.Call):
            self.error(node, f"cannot assign to the mapped url '{sym.name}': a url names a remote object")

    def _refuse_self_dependence(self, target: ast.Expr, value: Optional[ast.Expr]) -> None:
        """`k = k;` (or any whole assignment whose value reads the variable it writes)
        waits for itself: a compile error (§13)."""
        if not isinstance(target, ast.Name) or not isinstance(target.decl, VarSym) or value is None:
            return
        read: set[VarSym] = set()
        _names_read(value, read, through_composites=False)
        if target.decl in read:
            self.error(target, f"'{target.id}' is assigned a value that needs '{target.id}' itself:"
                               " it can never be computed")

    def assign_target(self, target: ast.Expr, value: Optional[ast.Expr],
                      value_type: Optional[Type]) -> Optional[ast.Expr]:
        """Check one `target = value` (value may be an output of a call, given by type)."""
        shape = target_path(target)
        root, depth = shape.root, len(shape.fields) + shape.keys
        if not isinstance(root, ast.Name):
            self.error(target, "cannot assign to this expression")
            return value
        if shape.of_element:
            self.error(target, "cannot assign a field of an array element: assign a whole struct"
                               " to the element")
            return value
        sym = self.scope.lookup(root.id)
        if sym is None:
            if root.id in self.constants:
                self.error(root, f"cannot assign the constant '{root.id}'")
                return value
            value, vtype = self._value(value, value_type, None, target)
            if vtype is None:
                return value
            sym = self._implicit_declaration(target, root, vtype)
            if sym is None:
                return value
        self._check_assignable_sym(sym, root, whole=depth == 0)
        root.decl, root.type = sym, sym.type
        if depth == 0:
            value, _ = self._value(value, value_type, sym.type, target)
            self._note_whole_assignment(sym, target)
            self._refuse_url_copy(sym, value, target)
            return value
        self._check_target_path(target)
        if target.type is not None:
            value, _ = self._value(value, value_type, target.type, target)
        self.record_write(sym)
        self.field_sites.write(sym, shape.fields)
        if not shape.keys:
            field_name = ".".join(shape.fields)
            if not self.sites.add_scalar((id(sym), shape.fields), self.path) and not self._in_loop_of(sym):
                self.error(target, f"field '{field_name}' of '{sym.name}' is assigned twice")
        if not self.sites.add_container(sym, False, self.path):
            self.error(target, f"'{sym.name}' is assigned both as a whole and by element")
        if shape.keys:
            # The index depth is the array's own: `r.X.A[i]` and `r.C[j][k]` are two arrays (§13).
            prev = self.elem_depth.setdefault((id(sym), shape.fields), shape.keys)
            if prev != shape.keys:
                array = ".".join((sym.name,) + shape.fields)
                self.error(target, f"array '{array}' is written at two different index depths")
        return value

    def _value(self, value: Optional[ast.Expr], value_type: Optional[Type],
               target_type: Optional[Type], target: ast.Expr) -> tuple[Optional[ast.Expr], Optional[Type]]:
        """Check the value assigned to `target` (an expression, or a call output's type)."""
        if value is None:
            if target_type is not None and value_type is not None and not is_assignable(target_type, value_type):
                self.error(target, f"type mismatch: cannot assign {value_type} to {target_type}")
            return None, value_type
        value = self.expr(value, target_type)
        if target_type is not None:
            value = self.coerce(value, target_type, "assignment")
        return value, value.type

    def _implicit_declaration(self, target: ast.Expr, root: ast.Name, vtype: Type) -> Optional[VarSym]:
        t: Type = vtype
        keys: list[Type] = []
        node = target
        while isinstance(node, ast.Index):
            node.key = self.expr(node.key)
            if node.key.type is None:
                return None
            keys.append(base_of(node.key.type))
            node = node.base
        if isinstance(node, ast.Field):
            self.error(root, f"undefined variable '{root.id}'")
            return None
        for key in keys:
            if key not in KEY_TYPES:
                self.error(target, f"array keys must be int, float, string or boolean, not {key}")
                return None
            t = ArrayType(elem=t, key=key)
        if base_of(t) == VOID and not keys:
            self.error(target, f"cannot declare '{root.id}' from a value without a type")
        return self.declare(root.id, t, root)

    def _check_assignable_sym(self, sym: VarSym, node: ast.Name, whole: bool) -> None:
        if sym.kind == "input":
            self.error(node, f"cannot assign input parameter '{sym.name}'")
        elif sym.kind == "loop":
            self.error(node, f"cannot assign loop variable '{sym.name}'")
        elif sym.kind == "const":
            self.error(node, f"cannot assign the constant '{sym.name}'")
        elif sym.kind == "global" and self.in_function is not None:
            self.error(node, f"cannot assign global variable '{sym.name}' inside a function")
        elif whole and self._in_loop_of(sym) and len(self.path) == self.loop_entry_paths[-1]:
            self.error(node, f"'{sym.name}' is declared outside this loop: assigning it in the loop"
                             " body would assign it once per iteration")

    def _in_loop_of(self, sym: VarSym) -> bool:
        return self.scope.loop_depth > sym.loop_depth

    def _note_whole_assignment(self, sym: VarSym, node: ast.Node) -> None:
        self.record_write(sym)
        self.field_sites.write(sym, ())
        if not self.sites.add_scalar(id(sym), self.path) and not self._in_loop_of(sym):
            self.error(node, f"'{sym.name}' is assigned more than once")
        if sym.is_container and not self.sites.add_container(sym, True, self.path):
            self.error(node, f"'{sym.name}' is assigned both as a whole and by element")

    def _check_target_path(self, target: ast.Expr) -> None:
        """Type the index/field chain of an assignment target (the root is resolved)."""
        if isinstance(target, ast.Index):
            self._check_target_path(target.base)
            base_t = base_of(target.base.type) if target.base.type is not None else None
            if base_t is None:
                return
            if not isinstance(base_t, ArrayType):
                self.error(target.base, f"cannot index a value of type {target.base.type}")
                return
            target.key = self.coerce(self.expr(target.key, base_t.key), base_t.key, "array key")
            target.type = base_t.elem
        elif isinstance(target, ast.Field):
            self._check_target_path(target.base)
            base_t = base_of(target.base.type) if target.base.type is not None else None
            if base_t is None:
                return
            if not isinstance(base_t, StructType):
                self.error(target, f"value of type {target.base.type} has no fields")
            elif target.name not in base_t.fields:
                self.error(target, f"struct {base_t.name} has no field '{target.name}'")
            else:
                target.type = base_t.fields[target.name]

    # ------------------------------------------------------------ control flow

    def _condition(self, e: ast.Expr) -> ast.Expr:
        e = self.expr(e)
        if e.type is not None and base_of(e.type) not in (BOOLEAN, INT):
            self.error(e, f"condition must be boolean or int, not {e.type}")
        return e

    def stmt_If(self, s: ast.If) -> None:
        s.cond = self._condition(s.cond)
        self._guarded(s, s.cond, [s.cond])
        group, saved = next(self.branch_groups), self.path
        self.guards.append(s)
        self.path = saved + ((group, 0),)
        self.block(s.then)
        if s.orelse is not None:
            self.path = saved + ((group, 1),)
            self.block(s.orelse)
        self.path = saved
        self.guards.pop()

    def stmt_Switch(self, s: ast.Switch) -> None:
        s.expr = self.expr(s.expr)
        if s.expr.type is not None and base_of(s.expr.type) != INT:
            self.error(s.expr, f"switch needs an int, not {s.expr.type}")
        self._guarded(s, s.expr, [s.expr])
        self.guards.append(s)
        group, saved, seen = next(self.branch_groups), self.path, set()
        for i, case in enumerate(s.cases):
            if case.value in seen:
                self.error(case, f"duplicate case label {case.value}")
            seen.add(case.value)
            self.path = saved + ((group, i),)
            self.block(case.body)
        if s.default is not None:
            self.path = saved + ((group, len(s.cases)),)
            self.block(s.default)
        self.path = saved
        self.guards.pop()

    def _loop_scope(self) -> Scope:
        return Scope(self.scope, "loop", self.scope.loop_depth + 1)

    def stmt_Foreach(self, s: ast.Foreach) -> None:
        own_from = self._loop_waits(s)
        s.iterable = self.expr(s.iterable)
        t = base_of(s.iterable.type) if s.iterable.type is not None else None
        if t is not None and not isinstance(t, ArrayType):
            self.error(s.iterable, f"foreach needs an array or a range, not {s.iterable.type}")
            t = None
        self.scope = self._loop_scope()
        pos = ast.Node(file=s.file, line=s.var_pos[0] or s.line, col=s.var_pos[1] or s.col)
        s.var_sym = self.declare(s.var, t.elem if t else None, pos, "loop")
        s.var_sym.writes += 1
        s.key_sym = None
        if s.key is not None:
            kpos = ast.Node(file=s.file, line=s.key_pos[0] or s.line, col=s.key_pos[1] or s.col)
            s.key_sym = self.declare(s.key, t.key if t else None, kpos, "loop")
            s.key_sym.writes += 1
        self.loop_entry_paths.append(len(self.path))
        self.block(s.body)
        self.loop_entry_paths.pop()
        own = list(self.scope.vars.values())
        self.scope = self.scope.parent  # type: ignore[assignment]
        self._wait_on_all(s, own_from, own)

    def _loop_waits(self, s: ast.For | ast.Foreach) -> int:
        """Check what a loop's @waiton annotations name (before the loop, outside it); the
        number of variables declared so far (those declared after it are the loop's own)."""
        s.waits = [self.expr(e) for e in s.waits]
        return len(self.all_syms)

    def _wait_on_all(self, s: ast.For | ast.Foreach, own_from: int, own: list[VarSym]) -> None:
        """`@waitonall`: the loop also waits for every variable it reads from outside (§13)."""
        if "waitonall" in s.annotations:
            inner = set(self.all_syms[own_from:]) | set(own)
            read: set[VarSym] = set()
            parts = [s.body, s.iterable] if isinstance(s, ast.Foreach) else [s.body, s.cond, *s.init, *s.update]
            for part in parts:
                _names_read(part, read)
            for sym in sorted(read - inner, key=lambda sym: sym.name):
                s.waits.append(ast.Name(id=sym.name, decl=sym, type=sym.type, file=s.file, line=s.line, col=s.col))

    def stmt_For(self, s: ast.For) -> None:
        own_from = self._loop_waits(s)
        values = []
        for init in s.init:
            values.append(self.expr(init.value))
        loop_scope = self._loop_scope()
        outer_scope, self.scope = self.scope, loop_scope
        for init, value in zip(s.init, values):
            init.outer = None
            if init.type is not None:
                t = self.resolve_type(init.type)
            else:
                outer = outer_scope.lookup(init.name)
                if outer is None:
                    self.error(init, f"undefined variable '{init.name}' (declare it, or give its type here)")
                    t = None
                else:
                    t = outer.type
                    init.outer = outer
                    saved, self.scope = self.scope, outer_scope
                    self._check_assignable_sym(outer, ast.Name(id=init.name, file=init.file, line=init.line, col=init.col), True)
                    self._note_whole_assignment(outer, init)
                    self.scope = saved
            if init.name in loop_scope.vars:
                self.error(init, f"for-loop variable '{init.name}' is initialised twice")
                continue
            if init.outer is not None:
                sym = VarSym(init.name, t if t is not None else VOID, "loop", init)
                sym.loop_depth = loop_scope.loop_depth
                loop_scope.vars[init.name] = sym
                loop_scope.declared.append(sym)
            else:
                sym = self.declare(init.name, t, init, "loop")
            sym.writes += 1
            init.sym = sym
            init.value = self.coerce(value, sym.type, f"initial value of '{init.name}'") if t else value
        s.cond = self._condition(s.cond)
        body_scope = Scope(loop_scope, "block", loop_scope.loop_depth)
        self.loop_entry_paths.append(len(self.path))
        self.block(s.body, body_scope)
        self.loop_entry_paths.pop()
        # UPDATE sees the body's variables: re-enter the body scope to check it.
        self.scope = body_scope
        updated: set[str] = set()
        for up in s.update:
            sym = loop_scope.vars.get(up.name)
            if sym is None:
                self.error(up, f"'{up.name}' is not a variable of this for loop")
                self.expr(up.value)
                continue
            if up.name in updated:
                self.error(up, f"for-loop variable '{up.name}' is updated twice")
            updated.add(up.name)
            up.sym = sym
            up.value = self.coerce(self.expr(up.value, sym.type), sym.type, f"update of '{up.name}'")
        for init in s.init:
            if init.name not in updated:
                self.error(init, f"for-loop variable '{init.name}' has no update")
        self.scope = outer_scope
        self._wait_on_all(s, own_from, list(loop_scope.vars.values()))

    def stmt_Wait(self, s: ast.Wait) -> None:
        s.exprs = [self.expr(e) for e in s.exprs]
        if s.exprs:
            self._guarded(s, s.exprs[0], s.exprs)
        self.guards.append(s)
        self.block(s.body)
        self.guards.pop()

    def stmt_Chain(self, s: ast.Chain) -> None:
        for link in s.links:
            self.stmt(link)


def _names_read(e: object, out: set[VarSym], through_composites: bool = True) -> None:
    """Variables an expression waits for (its names, at any depth; not the array that
    `exists(A, k)` looks into, which it does not wait for, §13). Without
    `through_composites`, only what its value needs directly: a composite function's
    call starts at once, so its arguments are not needed to call it (§4)."""
    if isinstance(e, ast.Name) and isinstance(e.decl, VarSym):
        out.add(e.decl)
    if isinstance(e, ast.Call) and e.target is not None:
        if e.target.func.kind == "composite" and not through_composites:
            return
        if e.func == "exists" and e.target.func.kind == "library":
            for arg in e.args[1:]:
                _names_read(arg, out, through_composites)
            return
    for value in (getattr(e, name) for name in e.__struct_fields__) if isinstance(e, ast.Node) else ():
        items = value if isinstance(value, (list, tuple)) else (value,)
        for item in items:
            if isinstance(item, ast.Node):
                _names_read(item, out, through_composites)


def check_program(items: list[ast.Item], library: Mapping[str, LibraryFunction],
                  constants: Mapping[str, tuple[str, Any, str]]) -> CheckedProgram:
    """Check a whole program (all modules' items, imports already resolved)."""
    return Checker(library, constants).check_program(items)

