"""Abstract syntax tree of the dataflow script language.

The parser (`parser.py`) builds these nodes from text; the checker (`check.py`)
fills in the fields marked "checker": expressions' static type (`Expr.type`),
the declaration a name refers to (`Name.decl`), calls' targets, statements'
write sets, blocks' and loops' variables. `lower.py` turns the checked tree
into the IR; nothing outside `engine.lang` sees these nodes. Every node carries the source file and
the 1-based line and column of its first token, so that any stage can report
`file:line:col: message`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Union


@dataclass(eq=False, kw_only=True)
class Node:
    """Base of every node: where it starts in the source."""

    file: str = ""
    line: int = 0
    col: int = 0


# ---------------------------------------------------------------- type syntax


@dataclass(eq=False, kw_only=True)
class TypeRef(Node):
    """A type as written: a name (`int`, `file`, `Point`) plus array dimensions.

    `dims` lists the key type of each `[...]` suffix, outermost first; `None`
    stands for `[]` (integer keys). `int A[][string]` has dims `[None, "string"]`.
    """

    name: str
    dims: list[Optional[str]] = field(default_factory=list)


# ---------------------------------------------------------------- expressions


@dataclass(eq=False, kw_only=True)
class Expr(Node):
    """Base of expressions; `type` is filled in by the checker."""

    type: Any = None


@dataclass(eq=False, kw_only=True)
class IntLit(Expr):
    value: int


@dataclass(eq=False, kw_only=True)
class FloatLit(Expr):
    value: float


@dataclass(eq=False, kw_only=True)
class StringLit(Expr):
    value: str


@dataclass(eq=False, kw_only=True)
class BoolLit(Expr):
    value: bool


@dataclass(eq=False, kw_only=True)
class Name(Expr):
    """A variable reference; `decl` is set by the checker."""

    id: str
    decl: Any = None


@dataclass(eq=False, kw_only=True)
class Index(Expr):
    """`base[key]`."""

    base: Expr
    key: Expr


@dataclass(eq=False, kw_only=True)
class Field(Expr):
    """`base.name` (struct field)."""

    base: Expr
    name: str


@dataclass(eq=False, kw_only=True)
class Keyword(Node):
    """`name=value` argument in a call (optional parameters only)."""

    name: str
    value: Expr


@dataclass(eq=False, kw_only=True)
class Call(Expr):
    """`func(args..., kw=value...)`, optionally prefixed by `@prio=e` / `@location=e`.

    `annotations` keeps any other call prefix by name (checked, then ignored).
    """

    func: str
    args: list[Expr] = field(default_factory=list)
    kwargs: list[Keyword] = field(default_factory=list)
    prio: Optional[Expr] = None
    location: Optional[Expr] = None
    annotations: dict[str, Optional[Expr]] = field(default_factory=dict)
    target: Any = None  # resolved callee, set by the checker


@dataclass(eq=False, kw_only=True)
class BinOp(Expr):
    """Binary operator; `op` is the operator text (`+`, `%/`, `&&`, `%`, ...)."""

    op: str
    left: Expr
    right: Expr


@dataclass(eq=False, kw_only=True)
class UnaryOp(Expr):
    """Unary `-` or `!`."""

    op: str
    operand: Expr


@dataclass(eq=False, kw_only=True)
class TupleExpr(Expr):
    """A parenthesised comma list, only valid as the right operand of `%` (`fmt % (a, b)`)."""

    items: list[Expr]


@dataclass(eq=False, kw_only=True)
class ArrayLit(Expr):
    """`[e1, e2, ...]` keyed 0..n-1; `[]` when empty."""

    items: list[Expr]


@dataclass(eq=False, kw_only=True)
class DictLit(Expr):
    """`{k1: v1, k2: v2}` associative array literal."""

    items: list[tuple[Expr, Expr]]


@dataclass(eq=False, kw_only=True)
class RangeLit(Expr):
    """`[start:end]` or `[start:end:step]`."""

    start: Expr
    end: Expr
    step: Optional[Expr] = None


@dataclass(eq=False, kw_only=True)
class FilenameOf(Expr):
    """`@f` inside an app command: the path of file `f`."""

    operand: Expr


# ---------------------------------------------------------------- statements


@dataclass(eq=False, kw_only=True)
class Stmt(Node):
    """Base of statements."""

    writes: frozenset[Any] = frozenset()  # checker: the array/struct VarSyms it may write


@dataclass(eq=False, kw_only=True)
class VarDecl(Node):
    """One declared variable: `T name[dims] <mapping> = init`.

    `type.dims` holds the dimensions written after the name (`int A[]`).
    """

    type: TypeRef
    name: str
    mapping: Optional[Expr] = None
    init: Optional[Expr] = None
    sym: Any = None  # checker: the VarSym declared


@dataclass(eq=False, kw_only=True)
class DeclStmt(Stmt):
    """`T a, b = 2, C[];` — one or more declarations sharing a base type.

    `is_global_const` marks the deprecated `global const T x = e;`.
    """

    decls: list[VarDecl]
    is_global_const: bool = False


@dataclass(eq=False, kw_only=True)
class Assign(Stmt):
    """`x = e;`, `A[k] = e;`, `a, b = f();`, `(a, b) = f();`, `x, y = 1, 2;`.

    Targets are `Name`, `Index` or `Field` expressions.
    """

    targets: list[Expr]
    values: list[Expr]
    multi_output: bool = False  # checker: one call's several outputs go to the targets


@dataclass(eq=False, kw_only=True)
class ExprStmt(Stmt):
    """A call used as a statement (`f(x);`); its outputs are discarded."""

    expr: Expr


@dataclass(eq=False, kw_only=True)
class Block(Stmt):
    """`{ ... }`: a sequence of statements and a new scope."""

    stmts: list[Stmt] = field(default_factory=list)
    scope_vars: list[Any] = field(default_factory=list)  # checker: the VarSyms it declares


@dataclass(eq=False, kw_only=True)
class If(Stmt):
    """`if (cond) {...} else {...}`; `else if` nests an `If` inside `orelse`."""

    cond: Expr
    then: Block
    orelse: Optional[Block] = None


@dataclass(eq=False, kw_only=True)
class Case(Node):
    """`case N:` followed by its statements (one scope)."""

    value: int
    body: Block


@dataclass(eq=False, kw_only=True)
class Switch(Stmt):
    """`switch (e) { case ...: ... default: ... }`."""

    expr: Expr
    cases: list[Case]
    default: Optional[Block] = None


@dataclass(eq=False, kw_only=True)
class Foreach(Stmt):
    """`foreach v[, k] in iterable { body }`, with optional loop annotations."""

    var: str
    key: Optional[str]
    iterable: Expr
    body: Block
    annotations: dict[str, Optional[Expr]] = field(default_factory=dict)
    waits: list[Expr] = field(default_factory=list)  # closed before the loop starts (@waiton, @waitonall)
    var_pos: tuple[int, int] = (0, 0)
    key_pos: tuple[int, int] = (0, 0)
    var_sym: Any = None  # checker: the value's VarSym
    key_sym: Any = None  # checker: the key's VarSym, if any


@dataclass(eq=False, kw_only=True)
class ForInit(Node):
    """One INIT item of a `for` loop: `T v = e` (type set) or `v = e`."""

    type: Optional[TypeRef]
    name: str
    value: Expr
    sym: Any = None  # checker: the loop variable
    outer: Any = None  # checker: the enclosing variable it updates when the loop ends (no type given)


@dataclass(eq=False, kw_only=True)
class ForUpdate(Node):
    """One UPDATE item of a `for` loop: `v = e`."""

    name: str
    value: Expr
    sym: Any = None  # checker: the loop variable


@dataclass(eq=False, kw_only=True)
class For(Stmt):
    """`for (INIT; COND; UPDATE) { body }` — sequential."""

    init: list[ForInit]
    cond: Expr
    update: list[ForUpdate]
    body: Block
    annotations: dict[str, Optional[Expr]] = field(default_factory=dict)
    waits: list[Expr] = field(default_factory=list)  # closed before the loop starts (@waiton, @waitonall)


@dataclass(eq=False, kw_only=True)
class Wait(Stmt):
    """`wait (e1, e2) {...}` or `wait deep (e) {...}`."""

    exprs: list[Expr]
    body: Block
    deep: bool = False


@dataclass(eq=False, kw_only=True)
class Chain(Stmt):
    """`s1 => s2 => ...`: each link starts after the previous link's results close.

    Links are `DeclStmt`, `Assign`, `ExprStmt` or (last only) `Block`.
    """

    links: list[Stmt]


# ---------------------------------------------------------------- definitions


@dataclass(eq=False, kw_only=True)
class Param(Node):
    """A function parameter `T name[dims] [= default]` (default literal, inputs only)."""

    type: TypeRef
    name: str
    default: Optional[Expr] = None


@dataclass(eq=False, kw_only=True)
class FuncDef(Node):
    """A composite function; `main { ... }` is a FuncDef named `main`."""

    name: str
    outputs: list[Param]
    inputs: list[Param]
    body: Block
    annotations: dict[str, Optional[Expr]] = field(default_factory=dict)


@dataclass(eq=False, kw_only=True)
class AppCommand(Node):
    """The body of an app function: command words plus redirections.

    `words[0]` names the executable. Each word is an expression; `@f` is a
    `FilenameOf` node.
    """

    words: list[Expr]
    stdin: Optional[Expr] = None
    stdout: Optional[Expr] = None
    stderr: Optional[Expr] = None


@dataclass(eq=False, kw_only=True)
class AppDef(Node):
    """`app (outs) name (ins) { "program" args... @stdout=f }`."""

    name: str
    outputs: list[Param]
    inputs: list[Param]
    command: AppCommand
    annotations: dict[str, Optional[Expr]] = field(default_factory=dict)


@dataclass(eq=False, kw_only=True)
class StructField(Node):
    """One field of a struct type: `T name[dims];`."""

    type: TypeRef
    name: str


@dataclass(eq=False, kw_only=True)
class StructDef(Node):
    """`type Name { T f; ... }`."""

    name: str
    fields: list[StructField]


@dataclass(eq=False, kw_only=True)
class TypeDef(Node):
    """`typedef N T;` (alias, `distinct=False`), `type N T;` (subtype, `distinct=True`),
    or `type N;` (an opaque file-like type, `opaque=True`)."""

    name: str
    base: TypeRef
    distinct: bool
    opaque: bool = False


@dataclass(eq=False, kw_only=True)
class Import(Node):
    """`import a.b.c;` — `module` is the dotted name."""

    module: str


Item = Union[Stmt, FuncDef, AppDef, StructDef, TypeDef, Import]


@dataclass(eq=False, kw_only=True)
class Module(Node):
    """One parsed source file: its top-level items in source order."""

    items: list[Item] = field(default_factory=list)
