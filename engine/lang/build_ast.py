"""Builds `engine.lang.ast` nodes from the lark parse tree of `grammar.lark`.

One method per grammar rule (or alias). Every node gets `file`, `line`, `col`
of its first token: taken from the token itself, or from the rule's `meta`
(lark's propagated positions, whose `start_pos` is the token's global index in
the token stream, which maps to its file). Literal tokens arrive with their
value already decoded by the token stream. The few errors found here are about
shapes the grammar accepts on purpose so that the message can be precise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from lark import Token, Transformer_NonRecursive, v_args
from lark.tree import Meta

from engine.errors import CompileError
from engine.lang import ast

WAITON = "waiton"

@dataclass
class _Redirect:
    """`@stdout=f` inside an app command, before it lands in `AppCommand`."""

    stream: str
    target: ast.Expr
    at: dict[str, Any]


@dataclass
class _Declarator:
    """`name[dims] <mapping> = init` of a declaration, before it gets its type."""

    name: str
    dims: list[Optional[str]]
    mapping: Optional[ast.Expr]
    init: Optional[ast.Expr]
    at: dict[str, Any]


def _present(children: Sequence[Any]) -> list[Any]:
    """Children minus the `None` placeholders of absent optional parts."""
    return [c for c in children if c is not None]


@v_args(meta=True)
class AstBuilder(Transformer_NonRecursive):
    """Parse tree to AST.

    `files[i]` is the file of the token with global index `i`; `main_file` is
    the file being parsed, which the `Module` node names.
    """

    def __init__(self, files: Sequence[str], main_file: str) -> None:
        super().__init__(visit_tokens=False)
        self._files = files
        self._main_file = main_file

    # ------------------------------------------------------------ positions

    def _at(self, meta: Meta) -> dict[str, Any]:
        return {"file": self._files[meta.start_pos], "line": meta.line, "col": meta.column}

    def _tok(self, token: Token) -> dict[str, Any]:
        return {"file": self._files[token.start_pos], "line": token.line, "col": token.column}

    def _error(self, where: dict[str, Any], message: str) -> CompileError:
        return CompileError(where["file"], where["line"], where["col"], message)

    def _type(self, name: Token, dims: list[Optional[str]]) -> ast.TypeRef:
        if name == "blob":
            raise self._error(self._tok(name), "unsupported feature: blob")
        return ast.TypeRef(name=str(name), dims=dims, **self._tok(name))

    # ------------------------------------------------------------ top level

    def start(self, meta: Meta, items: list[Any]) -> ast.Module:
        return ast.Module(items=_present(items), file=self._main_file, line=1, col=1)

    def import_stmt(self, meta: Meta, names: list[Token]) -> ast.Import:
        return ast.Import(module=".".join(names), **self._at(meta))

    def structdef(self, meta: Meta, children: list[Any]) -> ast.StructDef:
        name, *groups = children
        if name == "blob":
            raise self._error(self._tok(name), "unsupported feature: blob")
        fields = [f for group in groups for f in group]
        return ast.StructDef(name=str(name), fields=fields, **self._at(meta))

    def struct_fields(self, meta: Meta, children: list[Any]) -> list[ast.StructField]:
        type_name, *declarators = children
        return [
            ast.StructField(type=self._type(type_name, dims), name=str(name), **self._at(meta))
            for name, dims in declarators
        ]

    def field_decl(self, meta: Meta, children: list[Any]) -> tuple[Token, list[Optional[str]]]:
        name, dims = children
        return name, dims

    def typedef_alias(self, meta: Meta, children: list[Any]) -> ast.TypeDef:
        return self._typedef(meta, children, distinct=False)

    def typedef_distinct(self, meta: Meta, children: list[Any]) -> ast.TypeDef:
        return self._typedef(meta, children, distinct=True)

    def typedef_opaque(self, meta: Meta, children: list[Any]) -> ast.TypeDef:
        """`type N;`: a file-like type of its own (§12)."""
        at = self._at(meta)
        return ast.TypeDef(name=str(children[0]), base=ast.TypeRef(name="file", dims=[], **at),
                           distinct=True, opaque=True, **at)

    def _typedef(self, meta: Meta, children: list[Any], distinct: bool) -> ast.TypeDef:
        name, base, dims = children
        return ast.TypeDef(name=str(name), base=self._type(base, dims), distinct=distinct, **self._at(meta))

    def funcdef(self, meta: Meta, children: list[Any]) -> ast.FuncDef:
        annotations, outputs, name, inputs, body = children
        return ast.FuncDef(
            name=str(name),
            outputs=outputs or [],
            inputs=inputs or [],
            body=body,
            annotations=annotations or {},
            **self._at(meta),
        )

    def appdef(self, meta: Meta, children: list[Any]) -> ast.AppDef:
        annotations, outputs, name, inputs, *parts = children
        return ast.AppDef(
            name=str(name),
            outputs=outputs or [],
            inputs=inputs or [],
            command=self._app_command(parts),
            annotations=annotations or {},
            **self._at(meta),
        )

    def _app_command(self, parts: list[Any]) -> ast.AppCommand:
        first = parts[0]
        command = ast.AppCommand(words=[], **(first.at if isinstance(first, _Redirect) else _node_at(first)))
        for part in parts:
            if not isinstance(part, _Redirect):
                command.words.append(part)
            elif getattr(command, part.stream) is not None:
                raise self._error(part.at, f"duplicate @{part.stream} redirection")
            else:
                setattr(command, part.stream, part.target)
        if not command.words:
            raise self._error(_node_at(command), "app command has no program to run")
        return command

    def redirection(self, meta: Meta, children: list[Any]) -> _Redirect:
        stream, target = children
        return _Redirect(stream=str(stream), target=target, at=self._at(meta))

    def filename_of(self, meta: Meta, children: list[Any]) -> ast.FilenameOf:
        return ast.FilenameOf(operand=children[0], **self._at(meta))

    def param_list(self, meta: Meta, params: list[Any]) -> list[ast.Param]:
        return _present(params)

    def param(self, meta: Meta, children: list[Any]) -> ast.Param:
        type_name, name, dims, default = children
        return ast.Param(type=self._type(type_name, dims), name=str(name), default=default, **self._at(meta))

    def negative_literal(self, meta: Meta, children: list[Any]) -> ast.Expr:
        number = children[1]
        if number.type == "INT":
            return ast.IntLit(value=-number.value, **self._at(meta))
        return ast.FloatLit(value=-number.value, **self._at(meta))

    def annotations(self, meta: Meta, children: list[Any]) -> dict[str, Optional[ast.Expr]]:
        found: dict[str, Optional[ast.Expr]] = {}
        waiton: list[ast.Expr] = []
        for name, value in children:
            if name == WAITON and value is not None:
                waiton.append(value)  # may repeat (§13): the loop waits for all
            elif name in found:
                raise self._error(self._tok(name), f"duplicate annotation @{name}")
            found[str(name)] = value
        if len(waiton) > 1:
            found[WAITON] = ast.TupleExpr(items=waiton, file=waiton[0].file, line=waiton[0].line, col=waiton[0].col)
        return found

    def annotation(self, meta: Meta, children: list[Any]) -> tuple[Token, Optional[ast.Expr]]:
        name, value = children
        return name, value

    def annotation_word(self, meta: Meta, children: list[Any]) -> ast.Name:
        return ast.Name(id=str(children[0]), **self._at(meta))

    # ------------------------------------------------------------ statements

    def empty_statement(self, meta: Meta, children: list[Any]) -> None:
        return None

    def block(self, meta: Meta, stmts: list[Any]) -> ast.Block:
        return ast.Block(stmts=_present(stmts), **self._at(meta))

    def simple_statement(self, meta: Meta, children: list[Any]) -> ast.Stmt:
        links = [c for c in children if not isinstance(c, Token)]
        if len(links) == 1:
            if isinstance(links[0], ast.Wait):  # a bare `v;`: only a chain may wait on a variable
                raise self._error(self._at(meta), "an expression on its own must be a function call")
            return links[0]
        return ast.Chain(links=links, **self._at(meta))

    def chain_variable(self, meta: Meta, children: list[Any]) -> ast.Wait:
        """A chain's link `v` waits for `v` to be closed, as `wait (v) {}` would (§13)."""
        at = self._at(meta)
        return ast.Wait(exprs=[ast.Name(id=str(children[0]), **at)], body=ast.Block(stmts=[], **at), deep=False, **at)

    def decl(self, meta: Meta, children: list[Any]) -> ast.DeclStmt:
        return self._declaration(meta, children, is_global_const=False)

    def global_const_decl(self, meta: Meta, children: list[Any]) -> ast.DeclStmt:
        return self._declaration(meta, children, is_global_const=True)

    def _declaration(self, meta: Meta, children: list[Any], is_global_const: bool) -> ast.DeclStmt:
        type_name, *declarators = children
        decls = [
            ast.VarDecl(
                type=self._type(type_name, d.dims), name=d.name, mapping=d.mapping, init=d.init, **d.at
            )
            for d in declarators
        ]
        return ast.DeclStmt(decls=decls, is_global_const=is_global_const, **self._at(meta))

    def var_decl(self, meta: Meta, children: list[Any]) -> _Declarator:
        name, dims, mapping, init = children
        return _Declarator(name=str(name), dims=dims, mapping=mapping, init=init, at=self._at(meta))

    def mapping(self, meta: Meta, children: list[Any]) -> ast.Expr:
        return children[1]  # between the `<` and `>` tokens

    def dims(self, meta: Meta, keys: list[Optional[Token]]) -> list[Optional[str]]:
        return [str(key) if key is not None else None for key in keys]

    def assignment(self, meta: Meta, children: list[Any]) -> ast.Assign:
        targets, values = children
        return ast.Assign(targets=targets, values=values, **self._at(meta))

    def targets(self, meta: Meta, children: list[Any]) -> list[ast.Expr]:
        return children

    def values(self, meta: Meta, children: list[Any]) -> list[ast.Expr]:
        if len(children) == 1 and isinstance(children[0], ast.TupleExpr):
            return list(children[0].items)  # `a, b = (e1, e2);` assigns element-wise
        return children

    def call_statement(self, meta: Meta, children: list[Any]) -> ast.ExprStmt:
        return ast.ExprStmt(expr=children[0], **self._at(meta))

    def if_stmt(self, meta: Meta, children: list[Any]) -> ast.If:
        cond, then, orelse = children
        if isinstance(orelse, ast.If):
            orelse = ast.Block(stmts=[orelse], **_node_at(orelse))
        return ast.If(cond=cond, then=then, orelse=orelse, **self._at(meta))

    def switch_stmt(self, meta: Meta, children: list[Any]) -> ast.Switch:
        expr, *clauses = children
        switch = ast.Switch(expr=expr, cases=[], **self._at(meta))
        for clause in clauses:
            if isinstance(clause, ast.Case):
                switch.cases.append(clause)
            elif switch.default is not None:
                raise self._error(_node_at(clause), "duplicate default in switch")
            else:
                switch.default = clause
        return switch

    def case_clause(self, meta: Meta, children: list[Any]) -> ast.Case:
        label, *stmts = children
        where = self._at(meta)
        return ast.Case(value=label, body=ast.Block(stmts=_present(stmts), **where), **where)

    def case_label(self, meta: Meta, children: list[Any]) -> int:
        return children[0].value

    def negative_case_label(self, meta: Meta, children: list[Any]) -> int:
        raise self._error(self._at(meta), "case label must be a non-negative integer literal")

    def default_clause(self, meta: Meta, stmts: list[Any]) -> ast.Block:
        return ast.Block(stmts=_present(stmts), **self._at(meta))

    def foreach_stmt(self, meta: Meta, children: list[Any]) -> ast.Foreach:
        annotations, var, key, iterable, body = children
        return ast.Foreach(
            var=str(var),
            key=str(key) if key is not None else None,
            iterable=iterable,
            body=body,
            annotations=annotations or {},
            waits=_waiton(annotations),
            var_pos=(var.line, var.column),
            key_pos=(key.line, key.column) if key is not None else (0, 0),
            **self._at(meta),
        )

    def for_stmt(self, meta: Meta, children: list[Any]) -> ast.For:
        annotations, init, cond, update, body = children
        return ast.For(
            init=init, cond=cond, update=update, body=body, annotations=annotations or {},
            waits=_waiton(annotations), **self._at(meta)
        )

    def for_inits(self, meta: Meta, children: list[Any]) -> list[ast.ForInit]:
        return children

    def for_updates(self, meta: Meta, children: list[Any]) -> list[ast.ForUpdate]:
        return children

    def for_init_typed(self, meta: Meta, children: list[Any]) -> ast.ForInit:
        type_name, name, value = children
        return ast.ForInit(type=self._type(type_name, []), name=str(name), value=value, **self._at(meta))

    def for_init_untyped(self, meta: Meta, children: list[Any]) -> ast.ForInit:
        name, value = children
        return ast.ForInit(type=None, name=str(name), value=value, **self._at(meta))

    def for_update(self, meta: Meta, children: list[Any]) -> ast.ForUpdate:
        name, value = children
        return ast.ForUpdate(name=str(name), value=value, **self._at(meta))

    def wait(self, meta: Meta, children: list[Any]) -> ast.Wait:
        *exprs, body = children
        return ast.Wait(exprs=exprs, body=body, deep=False, **self._at(meta))

    def wait_deep(self, meta: Meta, children: list[Any]) -> ast.Wait:
        *exprs, body = children
        return ast.Wait(exprs=exprs, body=body, deep=True, **self._at(meta))

    # ------------------------------------------------------------ expressions

    def binop(self, meta: Meta, children: list[Any]) -> ast.BinOp:
        left, op, right = children
        return ast.BinOp(op=str(op), left=left, right=right, **self._at(meta))

    def unop(self, meta: Meta, children: list[Any]) -> ast.UnaryOp:
        op, operand = children
        return ast.UnaryOp(op=str(op), operand=operand, **self._at(meta))

    def index(self, meta: Meta, children: list[Any]) -> ast.Index:
        base, key = children
        return ast.Index(base=base, key=key, **self._at(meta))

    def field(self, meta: Meta, children: list[Any]) -> ast.Field:
        base, name = children
        return ast.Field(base=base, name=str(name), **self._at(meta))

    def name(self, meta: Meta, children: list[Any]) -> ast.Name:
        return ast.Name(id=str(children[0]), **self._at(meta))

    def tuple(self, meta: Meta, items: list[Any]) -> ast.TupleExpr:
        return ast.TupleExpr(items=items, **self._at(meta))

    def array_literal(self, meta: Meta, items: list[Any]) -> ast.ArrayLit:
        return ast.ArrayLit(items=_present(items), **self._at(meta))

    def range_literal(self, meta: Meta, children: list[Any]) -> ast.RangeLit:
        start, end, step = children
        return ast.RangeLit(start=start, end=end, step=step, **self._at(meta))

    def dict_literal(self, meta: Meta, items: list[Any]) -> ast.DictLit:
        return ast.DictLit(items=_present(items), **self._at(meta))

    def dict_item(self, meta: Meta, children: list[Any]) -> tuple[ast.Expr, ast.Expr]:
        key, value = children
        return key, value

    def call(self, meta: Meta, children: list[Any]) -> ast.Call:
        func, *arguments = children
        call = ast.Call(func=str(func), **self._at(meta))
        for argument in _present(arguments):
            if isinstance(argument, ast.Keyword):
                call.kwargs.append(argument)
            elif call.kwargs:
                raise self._error(_node_at(argument), "positional argument after a keyword argument")
            else:
                call.args.append(argument)
        return call

    def keyword(self, meta: Meta, children: list[Any]) -> ast.Keyword:
        name, value = children
        return ast.Keyword(name=str(name), value=value, **self._at(meta))

    def prefixed_call(self, meta: Meta, children: list[Any]) -> ast.Call:
        annotations, call = children
        call.prio = annotations.pop("prio", None)
        call.location = annotations.pop("location", None)
        call.annotations = annotations
        where = self._at(meta)  # the call starts at its first annotation
        call.file, call.line, call.col = where["file"], where["line"], where["col"]
        return call

    def int_literal(self, meta: Meta, children: list[Token]) -> ast.IntLit:
        return ast.IntLit(value=children[0].value, **self._at(meta))

    def float_literal(self, meta: Meta, children: list[Token]) -> ast.FloatLit:
        return ast.FloatLit(value=children[0].value, **self._at(meta))

    def float_word(self, meta: Meta, children: list[Token]) -> ast.FloatLit:
        return ast.FloatLit(value=children[0].value, **self._at(meta))

    def string_literal(self, meta: Meta, children: list[Token]) -> ast.StringLit:
        return ast.StringLit(value=children[0].value, **self._at(meta))

    def true_literal(self, meta: Meta, children: list[Token]) -> ast.BoolLit:
        return ast.BoolLit(value=True, **self._at(meta))

    def false_literal(self, meta: Meta, children: list[Token]) -> ast.BoolLit:
        return ast.BoolLit(value=False, **self._at(meta))


def _node_at(node: ast.Node) -> dict[str, Any]:
    return {"file": node.file, "line": node.line, "col": node.col}


def _waiton(annotations: Optional[dict[str, Optional[ast.Expr]]]) -> list[ast.Expr]:
    """What a loop's `@waiton=v` annotations (one or several) name."""
    value = (annotations or {}).get(WAITON)
    if value is None:
        return []
    return list(value.items) if isinstance(value, ast.TupleExpr) else [value]
