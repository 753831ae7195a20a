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
from dataclasses import dataclass, field
from typing import Any, Optional

from engine.errors import CompileError
from engine.lang.symbols import FuncSym, VarSym
from engine.lang.types import Signature, Type


@dataclass(frozen=True, eq=False, kw_only=True)
class Node:
    """Where a node starts in the source."""

    file: str = ""
    line: int = 0
    col: int = 0


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True, eq=False, kw_only=True)
class Expr(Node):
    type: Any = None


@dataclass(frozen=True, eq=False, kw_only=True)
class Literal(Expr):
    """An int, float, string or boolean constant (library constants included)."""

    value: Any


@dataclass(frozen=True, eq=False, kw_only=True)
class Var(Expr):
    sym: VarSym


@dataclass(frozen=True, eq=False, kw_only=True)
class Index(Expr):
    base: Expr
    key: Expr


@dataclass(frozen=True, eq=False, kw_only=True)
class Field(Expr):
    base: Expr
    name: str


@dataclass(frozen=True, eq=False, kw_only=True)
class Call(Expr):
    """A call: `func.kind` is `composite`, `app`, `struct` or `library`; `signature` is the
    library overload chosen. `kwargs` are `(parameter name, value)` pairs."""

    func: FuncSym
    signature: Optional[Signature]
    output_types: tuple[Type, ...]
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...] = ()
    prio: Optional[Expr] = None


@dataclass(frozen=True, eq=False, kw_only=True)
class BinOp(Expr):
    op: str
    operation: str  # the operator for these operand types (see engine.lang.lower.operation)
    left: Expr
    right: Expr


@dataclass(frozen=True, eq=False, kw_only=True)
class UnaryOp(Expr):
    op: str
    operand: Expr


@dataclass(frozen=True, eq=False, kw_only=True)
class Format(Expr):
    """`format % (items...)`: sprintf."""

    format: Expr
    items: tuple[Expr, ...]


@dataclass(frozen=True, eq=False, kw_only=True)
class ArrayLit(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True, eq=False, kw_only=True)
class DictLit(Expr):
    items: tuple[tuple[Expr, Expr], ...]


@dataclass(frozen=True, eq=False, kw_only=True)
class RangeLit(Expr):
    start: Expr
    end: Expr
    step: Optional[Expr] = None


@dataclass(frozen=True, eq=False, kw_only=True)
class FilenameOf(Expr):
    operand: Expr


# ---------------------------------------------------------------- statements


@dataclass(frozen=True, eq=False, kw_only=True)
class Stmt(Node):
    writes: frozenset[VarSym] = frozenset()


@dataclass(frozen=True, eq=False, kw_only=True)
class Block(Stmt):
    stmts: tuple[Stmt, ...]
    variables: tuple[VarSym, ...] = ()


@dataclass(frozen=True, eq=False, kw_only=True)
class Decl(Node):
    """One declared variable of a declaration statement, with its mapping and value."""

    sym: VarSym
    mapping: Optional[Expr] = None
    init: Optional[Expr] = None


@dataclass(frozen=True, eq=False, kw_only=True)
class Declare(Stmt):
    decls: tuple[Decl, ...]


@dataclass(frozen=True, eq=False, kw_only=True)
class Assign(Stmt):
    """`targets = values`; with `multi_output`, one call's outputs go to the targets."""

    targets: tuple[Expr, ...]
    values: tuple[Expr, ...]
    multi_output: bool = False


@dataclass(frozen=True, eq=False, kw_only=True)
class CallStmt(Stmt):
    call: Call


@dataclass(frozen=True, eq=False, kw_only=True)
class If(Stmt):
    cond: Expr
    then: Block
    orelse: Optional[Block] = None


@dataclass(frozen=True, eq=False, kw_only=True)
class Switch(Stmt):
    expr: Expr
    cases: tuple[tuple[int, Block], ...]
    default: Optional[Block] = None


@dataclass(frozen=True, eq=False, kw_only=True)
class Foreach(Stmt):
    value: VarSym
    key: Optional[VarSym]
    iterable: Expr
    body: Block


@dataclass(frozen=True, eq=False, kw_only=True)
class ForInit(Node):
    """A loop variable, its first value, and the variable outside the loop that takes its
    last value when the loop ends (`for (x = 0; ...)` without a type), if any."""

    sym: VarSym
    value: Expr
    outer: Optional[VarSym] = None


@dataclass(frozen=True, eq=False, kw_only=True)
class ForUpdate(Node):
    sym: VarSym
    value: Expr


@dataclass(frozen=True, eq=False, kw_only=True)
class For(Stmt):
    inits: tuple[ForInit, ...]
    cond: Expr
    updates: tuple[ForUpdate, ...]
    body: Block


@dataclass(frozen=True, eq=False, kw_only=True)
class Wait(Stmt):
    exprs: tuple[Expr, ...]
    body: Block
    deep: bool = False


@dataclass(frozen=True, eq=False, kw_only=True)
class Chain(Stmt):
    """`a => b => c`: each link starts when the one before it is done."""

    links: tuple[Stmt, ...]


# ---------------------------------------------------------------- functions and program


@dataclass(frozen=True, eq=False, kw_only=True)
class Param(Node):
    sym: VarSym
    default: Optional[Expr] = None


@dataclass(frozen=True, eq=False, kw_only=True)
class AppCommand(Node):
    """An app's command line: words (a `FilenameOf` word names files' paths) and redirections."""

    words: tuple[Expr, ...]
    stdin: Optional[Expr] = None
    stdout: Optional[Expr] = None
    stderr: Optional[Expr] = None


@dataclass(frozen=True, eq=False, kw_only=True)
class Function(Node):
    """A user function: a composite one has a `body`, an app a `command`."""

    sym: FuncSym
    inputs: tuple[Param, ...]
    outputs: tuple[Param, ...]
    body: Optional[Block] = None
    command: Optional[AppCommand] = None


@dataclass(frozen=True, eq=False)
class Program:
    """A program ready to run: top-level statements and globals, functions by symbol."""

    path: str
    statements: tuple[Stmt, ...]
    global_vars: tuple[VarSym, ...]
    functions: Mapping[FuncSym, Function]
    main: Optional[Function] = None
    warnings: tuple[CompileError, ...] = field(default=())
    # The files the compiler looked at: absolute path -> digest of what it read there, None
    # where it found no file (engine.lang.sources); the program stands while they are unchanged.
    sources: Mapping[str, Optional[str]] = field(default_factory=dict)
    # The library functions it calls, by name: a worker is sent only the implementations of
    # those that run on workers (none, for a program of apps alone, spares every worker rank
    # the library's import).
    library_calls: frozenset[str] = frozenset()
