"""The IR: the compiled program as the runtime sees it (the contract between compiler and runtime).

`engine.lang.lower` makes it from the checked AST; the AST stays inside `lang`.
Every node is frozen and carries its source position (`file`, `line`, `col`,
for run-time errors and deadlock reports). What the checker worked out is
explicit here:

- expressions carry their static `type`; names are resolved to their `VarSym`
  (`Var`); library constants are folded to `Literal`s; a binary operator names
  the typed `operation` it performs (`"int+"`, `"float/"`, `"str+"`, `"<"`, ...);
  `fmt % (a, b)` is a `Format`;
- a call names its callee (`FuncSym`), the chosen library overload and its
  output types;
- every statement carries `writes`: the array and struct variables it may write
  (for write reference counting), and every block the `variables` it declares;
- an assignment target is a variable, then struct fields, then array keys
  (`r.X.A[i]`), never a field of an array element (§13: an element is assigned
  a whole struct), so the fields a target names exist as soon as its variable;
- loops carry their loop variables (`Foreach.value`/`key`; `For.inits` with the
  variable of the enclosing scope each one updates when the loop ends);
- user functions are `Function`s with their parameters' symbols, and their body
  (composite) or command line (app).

The runtime imports only this module, `types` and `symbols` of `lang`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import msgspec

from engine.errors import CompileError
from engine.lang.symbols import FuncSym, VarSym
from engine.lang.types import Signature, Type


# Nodes are msgspec Structs rather than dataclasses: the engine imports this module at every
# start, and its 32 frozen dataclasses took 30-38 ms to make (their methods compiled one by one),
# the Structs 1 ms.
class Node(msgspec.Struct, frozen=True, eq=False, kw_only=True):
    """Where a node starts in the source."""

    file: str = ""
    line: int = 0
    col: int = 0


# ---------------------------------------------------------------- expressions


class Expr(Node, frozen=True, eq=False, kw_only=True):
    type: Any = None


class Literal(Expr, frozen=True, eq=False, kw_only=True):
    """An int, float, string or boolean constant (library constants included)."""

    value: Any


class Var(Expr, frozen=True, eq=False, kw_only=True):
    sym: VarSym


class Index(Expr, frozen=True, eq=False, kw_only=True):
    base: Expr
    key: Expr


class Field(Expr, frozen=True, eq=False, kw_only=True):
    base: Expr
    name: str


class Call(Expr, frozen=True, eq=False, kw_only=True):
    """A call: `func.kind` is `composite`, `app`, `struct` or `library`; `signature` is the
    library overload chosen. `kwargs` are `(parameter name, value)` pairs."""

    func: FuncSym
    signature: Optional[Signature]
    output_types: tuple[Type, ...]
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...] = ()
    prio: Optional[Expr] = None


class BinOp(Expr, frozen=True, eq=False, kw_only=True):
    op: str
    operation: str  # the operator for these operand types (see engine.lang.lower.operation)
    left: Expr
    right: Expr


class UnaryOp(Expr, frozen=True, eq=False, kw_only=True):
    op: str
    operand: Expr


class Format(Expr, frozen=True, eq=False, kw_only=True):
    """`format % (items...)`: sprintf."""

    format: Expr
    items: tuple[Expr, ...]


class ArrayLit(Expr, frozen=True, eq=False, kw_only=True):
    items: tuple[Expr, ...]


class DictLit(Expr, frozen=True, eq=False, kw_only=True):
    items: tuple[tuple[Expr, Expr], ...]


class RangeLit(Expr, frozen=True, eq=False, kw_only=True):
    start: Expr
    end: Expr
    step: Optional[Expr] = None


class FilenameOf(Expr, frozen=True, eq=False, kw_only=True):
    operand: Expr


# ---------------------------------------------------------------- statements


class Stmt(Node, frozen=True, eq=False, kw_only=True):
    writes: frozenset[VarSym] = frozenset()


class Block(Stmt, frozen=True, eq=False, kw_only=True):
    stmts: tuple[Stmt, ...]
    variables: tuple[VarSym, ...] = ()


class Decl(Node, frozen=True, eq=False, kw_only=True):
    """One declared variable of a declaration statement, with its mapping and value."""

    sym: VarSym
    mapping: Optional[Expr] = None
    init: Optional[Expr] = None


class Declare(Stmt, frozen=True, eq=False, kw_only=True):
    decls: tuple[Decl, ...]


class Assign(Stmt, frozen=True, eq=False, kw_only=True):
    """`targets = values`; with `multi_output`, one call's outputs go to the targets."""

    targets: tuple[Expr, ...]
    values: tuple[Expr, ...]
    multi_output: bool = False


class CallStmt(Stmt, frozen=True, eq=False, kw_only=True):
    call: Call


class If(Stmt, frozen=True, eq=False, kw_only=True):
    cond: Expr
    then: Block
    orelse: Optional[Block] = None


class Switch(Stmt, frozen=True, eq=False, kw_only=True):
    expr: Expr
    cases: tuple[tuple[int, Block], ...]
    default: Optional[Block] = None


class Foreach(Stmt, frozen=True, eq=False, kw_only=True):
    value: VarSym
    key: Optional[VarSym]
    iterable: Expr
    body: Block


class ForInit(Node, frozen=True, eq=False, kw_only=True):
    """A loop variable, its first value, and the variable outside the loop that takes its
    last value when the loop ends (`for (x = 0; ...)` without a type), if any."""

    sym: VarSym
    value: Expr
    outer: Optional[VarSym] = None


class ForUpdate(Node, frozen=True, eq=False, kw_only=True):
    sym: VarSym
    value: Expr


class For(Stmt, frozen=True, eq=False, kw_only=True):
    inits: tuple[ForInit, ...]
    cond: Expr
    updates: tuple[ForUpdate, ...]
    body: Block


class Wait(Stmt, frozen=True, eq=False, kw_only=True):
    exprs: tuple[Expr, ...]
    body: Block
    deep: bool = False


class Chain(Stmt, frozen=True, eq=False, kw_only=True):
    """`a => b => c`: each link starts when the one before it is done."""

    links: tuple[Stmt, ...]


# ---------------------------------------------------------------- functions and program


class Param(Node, frozen=True, eq=False, kw_only=True):
    sym: VarSym
    default: Optional[Expr] = None


class AppCommand(Node, frozen=True, eq=False, kw_only=True):
    """An app's command line: words (a `FilenameOf` word names files' paths) and redirections."""

    words: tuple[Expr, ...]
    stdin: Optional[Expr] = None
    stdout: Optional[Expr] = None
    stderr: Optional[Expr] = None


class Function(Node, frozen=True, eq=False, kw_only=True):
    """A user function: a composite one has a `body`, an app a `command`."""

    sym: FuncSym
    inputs: tuple[Param, ...]
    outputs: tuple[Param, ...]
    body: Optional[Block] = None
    command: Optional[AppCommand] = None


class Program(msgspec.Struct, frozen=True, eq=False):
    """A program ready to run: top-level statements and globals, functions by symbol."""

    path: str
    statements: tuple[Stmt, ...]
    global_vars: tuple[VarSym, ...]
    functions: Mapping[FuncSym, Function]
    main: Optional[Function] = None
    warnings: tuple[CompileError, ...] = ()
    # The files the compiler looked at: absolute path -> digest of what it read there, None
    # where it found no file (engine.lang.sources); the program stands while they are unchanged.
    sources: Mapping[str, Optional[str]] = msgspec.field(default_factory=dict)
    # The library functions it calls, by name: a worker is sent only the implementations of
    # those that run on workers (none, for a program of apps alone, spares every worker rank
    # the library's import).
    library_calls: frozenset[str] = frozenset()
