"""Lowering: the checked AST becomes the IR the runtime runs (`lower(checked, path)`).

A straight translation: what the checker worked out (types, symbols, write sets,
blocks' and loops' variables, call targets) becomes explicit fields of frozen IR
nodes; library constants fold to literals; a binary operator is resolved to
the operation its operand types call for; `fmt % args` becomes `Format`.
Deeply nested programs recurse as deep as the checker did, so the caller runs
this on the compiler's deep stack too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from engine.lang import ast, ir
from engine.lang.check import CheckedProgram
from engine.lang.symbols import FuncSym, ParamSpec, VarSym
from engine.lang.types import FLOAT, INT, STRING, base_of

COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!=", "&&", "||"})


def operation(op: str, left: Any, right: Any) -> str:
    """The operation `left op right` performs for these operand types (the runtime's table
    of `engine.runtime.evaluate` maps each to its function)."""
    lt, rt = base_of(left), base_of(right)
    if op in COMPARISONS:
        return op
    if op == "+" and STRING in (lt, rt):
        return "str+"
    if op == "/" and lt == STRING:
        return "path/"
    if op == "**":
        return "**"
    if lt == INT and rt == INT:
        return f"int{op}"
    if FLOAT in (lt, rt):
        return f"float{op}"
    return f"{lt}{op}{rt}"  # no such operation: the runtime reports it if it is ever evaluated


def _at(node: ast.Node) -> dict[str, Any]:
    return {"file": node.file, "line": node.line, "col": node.col}


class Lowering:
    """Translates one checked program; functions are translated once each."""

    def __init__(self) -> None:
        self.functions: dict[FuncSym, ir.Function] = {}
        self.library_calls: set[str] = set()

    # ------------------------------------------------------------ expressions

    def expr(self, e: ast.Expr) -> ir.Expr:
        return getattr(self, "expr_" + type(e).__name__)(e)

    def _literal(self, e: Any) -> ir.Expr:
        return ir.Literal(value=e.value, type=e.type, **_at(e))

    expr_IntLit = expr_FloatLit = expr_StringLit = expr_BoolLit = _literal

    def expr_Name(self, e: ast.Name) -> ir.Expr:
        sym: VarSym = e.decl
        if sym.kind == "const":
            return ir.Literal(value=sym.value, type=e.type, **_at(e))
        return ir.Var(sym=sym, type=e.type, **_at(e))

    def expr_Index(self, e: ast.Index) -> ir.Expr:
        return ir.Index(base=self.expr(e.base), key=self.expr(e.key), type=e.type, **_at(e))

    def expr_Field(self, e: ast.Field) -> ir.Expr:
        return ir.Field(base=self.expr(e.base), name=e.name, type=e.type, **_at(e))

    def expr_Call(self, e: ast.Call) -> ir.Call:
        target = e.target
        if target.func.kind == "library":
            self.library_calls.add(target.func.name)
        return ir.Call(func=target.func, signature=target.signature, output_types=tuple(target.output_types),
                       args=tuple(self.expr(a) for a in e.args),
                       kwargs=tuple((kw.name, self.expr(kw.value)) for kw in e.kwargs),
                       prio=self.optional(e.prio), type=e.type, **_at(e))

    def expr_BinOp(self, e: ast.BinOp) -> ir.Expr:
        if e.op == "%":
            items = e.right.items if isinstance(e.right, ast.TupleExpr) else [e.right]
            return ir.Format(format=self.expr(e.left), items=tuple(self.expr(i) for i in items), type=e.type,
                             **_at(e))
        return ir.BinOp(op=e.op, operation=operation(e.op, e.left.type, e.right.type), left=self.expr(e.left),
                        right=self.expr(e.right), type=e.type, **_at(e))

    def expr_UnaryOp(self, e: ast.UnaryOp) -> ir.Expr:
        return ir.UnaryOp(op=e.op, operand=self.expr(e.operand), type=e.type, **_at(e))

    def expr_ArrayLit(self, e: ast.ArrayLit) -> ir.Expr:
        return ir.ArrayLit(items=tuple(self.expr(i) for i in e.items), type=e.type, **_at(e))

    def expr_DictLit(self, e: ast.DictLit) -> ir.Expr:
        return ir.DictLit(items=tuple((self.expr(k), self.expr(v)) for k, v in e.items), type=e.type, **_at(e))

    def expr_RangeLit(self, e: ast.RangeLit) -> ir.Expr:
        return ir.RangeLit(start=self.expr(e.start), end=self.expr(e.end), step=self.optional(e.step), type=e.type,
                           **_at(e))

    def expr_FilenameOf(self, e: ast.FilenameOf) -> ir.Expr:
        return ir.FilenameOf(operand=self.expr(e.operand), type=e.type, **_at(e))

    def optional(self, e: Optional[ast.Expr]) -> Optional[ir.Expr]:
        return None if e is None else self.expr(e)

    # ------------------------------------------------------------ statements

    def stmt(self, s: ast.Stmt) -> ir.Stmt:
        return getattr(self, "stmt_" + type(s).__name__)(s)

    def block(self, b: ast.Block) -> ir.Block:
        return ir.Block(stmts=tuple(self.stmt(s) for s in b.stmts), variables=tuple(b.scope_vars),
                        writes=b.writes, **_at(b))

    stmt_Block = block

    def stmt_DeclStmt(self, s: ast.DeclStmt) -> ir.Stmt:
        decls = tuple(ir.Decl(sym=d.sym, mapping=self.optional(d.mapping), init=self.optional(d.init), **_at(d))
                      for d in s.decls)
        return ir.Declare(decls=decls, writes=s.writes, **_at(s))

    def stmt_Assign(self, s: ast.Assign) -> ir.Stmt:
        return ir.Assign(targets=tuple(self.expr(t) for t in s.targets), values=tuple(self.expr(v) for v in s.values),
                         multi_output=s.multi_output, writes=s.writes, **_at(s))

    def stmt_ExprStmt(self, s: ast.ExprStmt) -> ir.Stmt:
        assert isinstance(s.expr, ast.Call)  # the checker refuses anything else
        return ir.CallStmt(call=self.expr_Call(s.expr), writes=s.writes, **_at(s))

    def stmt_If(self, s: ast.If) -> ir.Stmt:
        return ir.If(cond=self.expr(s.cond), then=self.block(s.then),
                     orelse=None if s.orelse is None else self.block(s.orelse), writes=s.writes, **_at(s))

    def stmt_Switch(self, s: ast.Switch) -> ir.Stmt:
        return ir.Switch(expr=self.expr(s.expr), cases=tuple((c.value, self.block(c.body)) for c in s.cases),
                         default=None if s.default is None else self.block(s.default), writes=s.writes, **_at(s))

    def stmt_Foreach(self, s: ast.Foreach) -> ir.Stmt:
        loop = ir.Foreach(value=s.var_sym, key=s.key_sym, iterable=self.expr(s.iterable), body=self.block(s.body),
                          writes=s.writes, **_at(s))
        return self._after_waits(s, loop)

    def stmt_For(self, s: ast.For) -> ir.Stmt:
        inits = tuple(ir.ForInit(sym=i.sym, value=self.expr(i.value), outer=i.outer, **_at(i)) for i in s.init)
        updates = tuple(ir.ForUpdate(sym=u.sym, value=self.expr(u.value), **_at(u)) for u in s.update)
        loop = ir.For(inits=inits, cond=self.expr(s.cond), updates=updates, body=self.block(s.body),
                      writes=s.writes, **_at(s))
        return self._after_waits(s, loop)

    def _after_waits(self, s: ast.For | ast.Foreach, loop: ir.Stmt) -> ir.Stmt:
        """A loop with `@waiton`/`@waitonall` starts inside a `wait` for those variables."""
        if not s.waits:
            return loop
        body = ir.Block(stmts=(loop,), writes=s.writes, **_at(s))
        return ir.Wait(exprs=tuple(self.expr(e) for e in s.waits), body=body, writes=s.writes, **_at(s))

    def stmt_Wait(self, s: ast.Wait) -> ir.Stmt:
        return ir.Wait(exprs=tuple(self.expr(e) for e in s.exprs), body=self.block(s.body), deep=s.deep,
                       writes=s.writes, **_at(s))

    def stmt_Chain(self, s: ast.Chain) -> ir.Stmt:
        return ir.Chain(links=tuple(self.stmt(link) for link in s.links), writes=s.writes, **_at(s))

    # ------------------------------------------------------------ functions

    def function(self, func: FuncSym) -> ir.Function:
        node = func.node
        assert isinstance(node, (ast.FuncDef, ast.AppDef))
        inputs = tuple(self._param(spec, sym) for spec, sym in zip(func.inputs, func.input_syms))
        outputs = tuple(self._param(spec, sym) for spec, sym in zip(func.outputs, func.output_syms))
        if isinstance(node, ast.AppDef):
            command = node.command
            return ir.Function(sym=func, inputs=inputs, outputs=outputs, command=ir.AppCommand(
                words=tuple(self.expr(w) for w in command.words), stdin=self.optional(command.stdin),
                stdout=self.optional(command.stdout), stderr=self.optional(command.stderr), **_at(command)),
                **_at(node))
        return ir.Function(sym=func, inputs=inputs, outputs=outputs, body=self.block(node.body), **_at(node))

    def _param(self, spec: ParamSpec, sym: VarSym) -> ir.Param:
        return ir.Param(sym=sym, default=self.optional(spec.default))


def lower(checked: CheckedProgram, path: str, sources: Mapping[str, str | None]) -> ir.Program:
    """The IR of a checked program compiled from `sources` (see `ir.Program.sources`)."""
    lowering = Lowering()
    functions = {func: lowering.function(func) for func in checked.functions.values()
                 if func.kind in ("composite", "app")}
    statements = tuple(lowering.stmt(s) for s in checked.statements)
    return ir.Program(path=path, statements=statements, global_vars=tuple(checked.global_vars), functions=functions,
                      main=functions.get(checked.main) if checked.main is not None else None,
                      warnings=tuple(checked.warnings), sources=dict(sources),
                      library_calls=frozenset(lowering.library_calls))
