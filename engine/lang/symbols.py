"""Symbols the checker resolves names to: variables and callable functions.

A `VarSym` is one declared variable (its identity is the variable: the runtime
keys its environments by it). A `FuncSym` is anything callable: a composite
function, an app function, or a library function with typed overloads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Optional, Protocol, Sequence

import msgspec

from engine.lang.types import ArrayType, Signature, StructType, Type, base_of

if TYPE_CHECKING:  # a compiled script runs without the syntax tree's classes (7 ms to import)
    from engine.lang import ast


# msgspec Structs, as the IR's nodes and the types, rather than dataclasses: the engine imports
# this module at every start, and `dataclasses` with its four classes took 5-7 ms there.
class _KeptWithoutSyntax(msgspec.Struct):
    """Pickled without the syntax nodes it points at (`_SYNTAX`): they serve the checker,
    while a compiled program is kept (the compiled-script cache) and run without the syntax
    tree, whose classes would cost every run 7 ms to import, and its nodes the time to load."""

    _SYNTAX: ClassVar[tuple[str, ...]] = ()

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), tuple(None if name in self._SYNTAX else getattr(self, name)
                                 for name in self.__struct_fields__)


class VarSym(_KeptWithoutSyntax, eq=False):
    """A declared variable.

    `kind` is one of `global`, `local`, `input`, `output`, `loop` (foreach
    value/key or for-loop variable), `const` (library constant).
    """

    _SYNTAX = ("node",)

    name: str
    type: Type
    kind: str
    node: Optional[ast.Node] = None
    mapped: bool = False
    value: Any = None  # library constants only
    reads: int = 0
    writes: int = 0
    loop_depth: int = 0  # how many loops enclose its declaration

    @property
    def is_container(self) -> bool:
        """Arrays and structs close by write reference counting, not by assignment."""
        return isinstance(base_of(self.type), (ArrayType, StructType))

    def __repr__(self) -> str:
        return f"VarSym({self.name}: {self.type})"


class ParamSpec(_KeptWithoutSyntax, frozen=True):
    """A parameter of a user function: name, type, optional literal default (the lowered
    function's `ir.Param` carries it to the runtime)."""

    _SYNTAX = ("default",)

    name: str
    type: Type
    default: Optional[ast.Expr] = None

    def __repr__(self) -> str:
        return f"ParamSpec({self.name}: {self.type})"


class FuncSym(_KeptWithoutSyntax, eq=False):
    """A callable: `kind` is `composite`, `app` or `library`.

    User functions carry their definition node and parameter lists; library
    functions carry their overloads and, once a call is resolved, the chosen
    `Signature` is stored on the call node (`Call.target` is a `ResolvedCall`).
    """

    _SYNTAX = ("node",)

    name: str
    kind: str
    inputs: list[ParamSpec] = msgspec.field(default_factory=list)
    outputs: list[ParamSpec] = msgspec.field(default_factory=list)
    node: Optional[ast.Node] = None
    overloads: tuple[Signature, ...] = ()
    module: Optional[str] = None
    input_syms: list[VarSym] = msgspec.field(default_factory=list)
    output_syms: list[VarSym] = msgspec.field(default_factory=list)
    walltime: Optional[float] = None  # apps: `@walltime=SECONDS`, the longest one run may take
    reads_content: bool = False  # library: reads its file argument's bytes (no `url`, §13)

    def __repr__(self) -> str:
        return f"FuncSym({self.name}: {self.kind})"


class ResolvedCall(msgspec.Struct, frozen=True):
    """What a call node resolved to: the function and, for library calls, the overload."""

    func: FuncSym
    signature: Optional[Signature] = None
    output_types: tuple[Type, ...] = ()


class LibraryFunction(Protocol):
    """What the checker needs to know of a library function (see runtime builtins)."""

    name: str
    overloads: Sequence[str]
    module: Optional[str]
    reads_content: bool
