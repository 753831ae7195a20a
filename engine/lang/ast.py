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

from typing import Any, Optional, Union

# msgspec Structs rather than dataclasses: each compile imports this module, and its 43
# dataclasses took about 35 ms to make (their methods compiled one by one), the Structs 2 ms.
import msgspec


class Node(msgspec.Struct, eq=False, kw_only=True):
    """Base of every node: where it starts in the source."""

    file: str = ""
    line: int = 0
    col: int = 0


# ---------------------------------------------------------------- type syntax


class TypeRef(Node, eq=False, kw_only=True):
    """A type as written: a name (`int`, `file`, `Point`) plus array dimensions.

    `dims` lists the key type of each `[...]` suffix, outermost first; `None`
    stands for `[]` (integer keys). `int A[][string]` has dims `[None, "string"]`.
    """

    name: str
    dims: list[Optional[str]] = msgspec.field(default_factory=list)


# ---------------------------------------------------------------- expressions


class Expr(Node, eq=False, kw_only=True):
    """Base of expressions; `type` is filled in by the checker."""

    type: Any = None


class IntLit(Expr, eq=False, kw_only=True):
    value: int


class FloatLit(Expr, eq=False, kw_only=True):
    value: float


class StringLit(Expr, eq=False, kw_only=True):
    value: str


class BoolLit(Expr, eq=False, kw_only=True):
    value: bool


class Name(Expr, eq=False, kw_only=True):
    """A variable reference; `decl` is set by the checker."""

    id: str
    decl: Any = None


class Index(Expr, eq=False, kw_only=True):
    """`base[key]`."""

    base: Expr
    key: Expr


class Field(Expr, eq=False, kw_only=True):
    """`base.name` (struct field)."""

    base: Expr
    name: str


class Keyword(Node, eq=False, kw_only=True):
    """`name=value` argument in a call (optional parameters only)."""

    name: str
    value: Expr


class Call(Expr, eq=False, kw_only=True):
    """`func(args..., kw=value...)`, optionally prefixed by `@prio=e` / `@location=e`.

    `annotations` keeps any other call prefix by name (checked, then ignored).
    """

    func: str
    args: list[Expr] = msgspec.field(default_factory=list)
    kwargs: list[Keyword] = msgspec.field(default_factory=list)
    prio: Optional[Expr] = None
    location: Optional[Expr] = None
    annotations: dict[str, Optional[Expr]] = msgspec.field(default_factory=dict)
    target: Any = None  # resolved callee, set by the checker


class BinOp(Expr, eq=False, kw_only=True):
    """Binary operator; `op` is the operator text (`+`, `%/`, `&&`, `%`, ...)."""

    op: str
    left: Expr
    right: Expr


class UnaryOp(Expr, eq=False, kw_only=True):
    """Unary `-` or `!`."""

    op: str
    operand: Expr


class TupleExpr(Expr, eq=False, kw_only=True):
    """A parenthesised comma list, only valid as the right operand of `%` (`fmt % (a, b)`)."""

    items: list[Expr]


class ArrayLit(Expr, eq=False, kw_only=True):
    """`[e1, e2, ...]` keyed 0..n-1; `[]` when empty."""

    items: list[Expr]


class DictLit(Expr, eq=False, kw_only=True):
    """`{k1: v1, k2: v2}` associative array literal."""

    items: list[tuple[Expr, Expr]]


class RangeLit(Expr, eq=False, kw_only=True):
    """`[start:end]` or `[start:end:step]`."""

    start: Expr
    end: Expr
    step: Optional[Expr] = None


class FilenameOf(Expr, eq=False, kw_only=True):
    """`@f` inside an app command: the path of file `f`."""

    operand: Expr


# ---------------------------------------------------------------- statements


class Stmt(Node, eq=False, kw_only=True):
    """Base of statements."""

    writes: frozenset[Any] = frozenset()  # checker: the array/struct VarSyms it may write


class VarDecl(Node, eq=False, kw_only=True):
    """One declared variable: `T name[dims] <mapping> = init`.

    `type.dims` holds the dimensions written after the name (`int A[]`).
    """

    type: TypeRef
    name: str
    mapping: Optional[Expr] = None
    init: Optional[Expr] = None
    sym: Any = None  # checker: the VarSym declared


class DeclStmt(Stmt, eq=False, kw_only=True):
    """`T a, b = 2, C[];` — one or more declarations sharing a base type.

    `is_global_const` marks the deprecated `global const T x = e;`.
    """

    decls: list[VarDecl]
    is_global_const: bool = False


class Assign(Stmt, eq=False, kw_only=True):
    """`x = e;`, `A[k] = e;`, `a, b = f();`, `(a, b) = f();`, `x, y = 1, 2;`.

    Targets are `Name`, `Index` or `Field` expressions.
    """

    targets: list[Expr]
    values: list[Expr]
    multi_output: bool = False  # checker: one call's several outputs go to the targets


class ExprStmt(Stmt, eq=False, kw_only=True):
    """A call used as a statement (`f(x);`); its outputs are discarded."""

    expr: Expr


class Block(Stmt, eq=False, kw_only=True):
    """`{ ... }`: a sequence of statements and a new scope."""

    stmts: list[Stmt] = msgspec.field(default_factory=list)
    scope_vars: list[Any] = msgspec.field(default_factory=list)  # checker: the VarSyms it declares


class If(Stmt, eq=False, kw_only=True):
    """`if (cond) {...} else {...}`; `else if` nests an `If` inside `orelse`."""

    cond: Expr
    then: Block
    orelse: Optional[Block] = None


class Case(Node, eq=False, kw_only=True):
    """`case N:` followed by its statements (one scope)."""

    value: int
    body: Block


class Switch(Stmt, eq=False, kw_only=True):
    """`switch (e) { case ...: ... default: ... }`."""

    expr: Expr
    cases: list[Case]
    default: Optional[Block] = None


class Foreach(Stmt, eq=False, kw_only=True):
    """`foreach v[, k] in iterable { body }`, with optional loop annotations."""

    var: str
    key: Optional[str]
    iterable: Expr
    body: Block
    annotations: dict[str, Optional[Expr]] = msgspec.field(default_factory=dict)
    waits: list[Expr] = msgspec.field(default_factory=list)  # closed before the loop starts (@waiton, @waitonall)
    var_pos: tuple[int, int] = (0, 0)
    key_pos: tuple[int, int] = (0, 0)
    var_sym: Any = None  # checker: the value's VarSym
    key_sym: Any = None  # checker: the key's VarSym, if any


class ForInit(Node, eq=False, kw_only=True):
    """One INIT item of a `for` loop: `T v = e` (type set) or `v = e`."""

    type: Optional[TypeRef]
    name: str
    value: Expr
    sym: Any = None  # checker: the loop variable
    outer: Any = None  # checker: the enclosing variable it updates when the loop ends (no type given)


class ForUpdate(Node, eq=False, kw_only=True):
    """One UPDATE item of a `for` loop: `v = e`."""

    name: str
    value: Expr
    sym: Any = None  # checker: the loop variable


class For(Stmt, eq=False, kw_only=True):
    """`for (INIT; COND; UPDATE) { body }` — sequential."""

    init: list[ForInit]
    cond: Expr
    update: list[ForUpdate]
    body: Block
    annotations: dict[str, Optional[Expr]] = msgspec.field(default_factory=dict)
    waits: list[Expr] = msgspec.field(default_factory=list)  # closed before the loop starts (@waiton, @waitonall)


class Wait(Stmt, eq=False, kw_only=True):
    """`wait (e1, e2) {...}` or `wait deep (e) {...}`."""

    exprs: list[Expr]
    body: Block
    deep: bool = False


class Chain(Stmt, eq=False, kw_only=True):
    """`s1 => s2 => ...`: each link starts after the previous link's results close.

    Links are `DeclStmt`, `Assign`, `ExprStmt` or (last only) `Block`.
    """

    links: list[Stmt]


# ---------------------------------------------------------------- definitions


class Param(Node, eq=False, kw_only=True):
    """A function parameter `T name[dims] [= default]` (default literal, inputs only)."""

    type: TypeRef
    name: str
    default: Optional[Expr] = None


class FuncDef(Node, eq=False, kw_only=True):
    """A composite function; `main { ... }` is a FuncDef named `main`."""

    name: str
    outputs: list[Param]
    inputs: list[Param]
    body: Block
    annotations: dict[str, Optional[Expr]] = msgspec.field(default_factory=dict)


class AppCommand(Node, eq=False, kw_only=True):
    """The body of an app function: command words plus redirections.

    `words[0]` names the executable. Each word is an expression; `@f` is a
    `FilenameOf` node.
    """

    words: list[Expr]
    stdin: Optional[Expr] = None
    stdout: Optional[Expr] = None
    stderr: Optional[Expr] = None


class AppDef(Node, eq=False, kw_only=True):
    """`app (outs) name (ins) { "program" args... @stdout=f }`."""

    name: str
    outputs: list[Param]
    inputs: list[Param]
    command: AppCommand
    annotations: dict[str, Optional[Expr]] = msgspec.field(default_factory=dict)


class StructField(Node, eq=False, kw_only=True):
    """One field of a struct type: `T name[dims];`."""

    type: TypeRef
    name: str


class StructDef(Node, eq=False, kw_only=True):
    """`type Name { T f; ... }`."""

    name: str
    fields: list[StructField]


class TypeDef(Node, eq=False, kw_only=True):
    """`typedef N T;` (alias, `distinct=False`), `type N T;` (subtype, `distinct=True`),
    or `type N;` (an opaque file-like type, `opaque=True`)."""

    name: str
    base: TypeRef
    distinct: bool
    opaque: bool = False


class Import(Node, eq=False, kw_only=True):
    """`import a.b.c;` — `module` is the dotted name."""

    module: str


Item = Union[Stmt, FuncDef, AppDef, StructDef, TypeDef, Import]


class Module(Node, eq=False, kw_only=True):
    """One parsed source file: its top-level items in source order."""

    items: list[Item] = msgspec.field(default_factory=list)
