"""Static types of the language, and the signature notation used by builtins.

Types are immutable values compared by structure (structs and subtypes by
name). `parse_signature` reads the compact notation the builtin library uses
to declare overloads, e.g. `"(string s, string d=\\" \\") -> string[]"`:

- atoms: `int float string boolean void file`, the library's struct types
  (`PartialStats`), and the wildcards `scalar`
  (int, float, string or boolean), `nested` (a scalar or an array of them, of any
  depth) and `any`;
- type variables `V` (any type) and `K` (any key type), bound on first use so
  that `(V[K], K) -> boolean` ties the key argument to the array's key type;
- `T[]` / `T[K]` arrays, `T...` a variadic tail, `T name=LITERAL` an optional
  parameter with its default.
"""

from __future__ import annotations

import ast as pyast
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Optional, Union

# msgspec Structs rather than dataclasses: the engine imports this module at every start, and its
# seven dataclasses took 7 ms to make.
import msgspec


class PrimType(msgspec.Struct, frozen=True, eq=False):
    """One of `int float string boolean void file`."""

    name: str

    def __str__(self) -> str:
        return self.name

    # The runtime compares a value's type with FILE or FLOAT for every value it makes: the
    # usual case, the very object, is answered without comparing fields.
    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is PrimType and other.name == self.name)

    def __hash__(self) -> int:
        return hash(self.name)


class ArrayType(msgspec.Struct, frozen=True):
    """`elem[key]`; nested arrays are arrays of arrays."""

    elem: "Type"
    key: "Type"

    def __str__(self) -> str:
        dims: list[str] = []
        t: Type = self
        while isinstance(t, ArrayType):
            dims.append("[]" if t.key == INT else f"[{t.key}]")
            t = t.elem
        return f"{t}{''.join(dims)}"


class StructType(msgspec.Struct, frozen=True, eq=False):
    """A user struct; fields are filled in after all type names are known."""

    name: str
    fields: dict[str, "Type"] = msgspec.field(default_factory=dict)  # not compared: __eq__ below

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StructType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("struct", self.name))

    def __str__(self) -> str:
        return self.name


class SubType(msgspec.Struct, frozen=True):
    """`type N T;`: usable wherever a `T` is, not conversely.

    `opaque`: a file-like type declared `type N;` (§12, and the predeclared `url`):
    it maps, stages and passes on command lines as a file does, but is not
    assignable to or from other file types."""

    name: str
    base: "Type"
    opaque: bool = False

    def __str__(self) -> str:
        return self.name


class Wildcard(msgspec.Struct, frozen=True):
    """A signature-only pattern: `scalar`, `any`, or a type variable `V` / `K`."""

    name: str

    def __str__(self) -> str:
        return self.name


Type = Union[PrimType, ArrayType, StructType, SubType, Wildcard]

INT = PrimType("int")
FLOAT = PrimType("float")
STRING = PrimType("string")
BOOLEAN = PrimType("boolean")
VOID = PrimType("void")
FILE = PrimType("file")
PRIMITIVES: Mapping[str, PrimType] = MappingProxyType({t.name: t for t in (INT, FLOAT, STRING, BOOLEAN, VOID, FILE)})
# A file-like type whose mapped name is a URL; it is never staged (§12).
URL = SubType("url", FILE, opaque=True)
# Types the standard library declares (a user type of the same name replaces it).
LIBRARY_TYPES: Mapping[str, Type] = MappingProxyType({
    "PartialStats": StructType("PartialStats", {"n": INT, "mean": FLOAT, "M2": FLOAT}),
    "url": URL,
})
SCALARS = frozenset({INT, FLOAT, STRING, BOOLEAN})
KEY_TYPES = SCALARS


def is_opaque_file(t: Type) -> bool:
    """Is `t` a file-like type of its own (`type N;`, `url`)?"""
    return isinstance(t, SubType) and t.opaque


def base_of(t: Type) -> Type:
    """Strip subtypes down to the underlying type."""
    while isinstance(t, SubType):
        t = t.base
    return t


def is_assignable(target: Type, value: Type) -> bool:
    """May a value of type `value` be stored where `target` is expected?"""
    if target == value:
        return True
    if isinstance(value, SubType):
        return not value.opaque and is_assignable(target, value.base)
    if isinstance(target, ArrayType) and isinstance(value, ArrayType):
        return base_of(target.key) == base_of(value.key) and is_assignable(target.elem, value.elem)
    return False


def contains_file(t: Type) -> bool:
    """Does the type hold files (directly, in an array, or in a struct field)?"""
    t = base_of(t)
    if t == FILE:
        return True
    if isinstance(t, ArrayType):
        return contains_file(t.elem)
    if isinstance(t, StructType):
        return any(contains_file(f) for f in t.fields.values())
    return False


# ---------------------------------------------------------------- signatures


class SigParam(msgspec.Struct, frozen=True):
    """One parameter of a builtin overload."""

    type: Type
    name: str = ""
    default: object = None
    has_default: bool = False


class Signature(msgspec.Struct, frozen=True):
    """One overload: parameters, an optional variadic tail type, and outputs."""

    params: tuple[SigParam, ...]
    outputs: tuple[Type, ...]
    varargs: Optional[Type] = None

    def __str__(self) -> str:
        parts = [str(p.type) for p in self.params]
        if self.varargs is not None:
            parts.append(f"{self.varargs}...")
        outs = ", ".join(str(o) for o in self.outputs) or "()"
        return f"({', '.join(parts)}) -> {outs}"


_WILDCARDS = frozenset({"scalar", "nested", "any", "V", "K"})
_SIG_RE = re.compile(r"^\((.*)\)\s*->\s*(.*)$", re.S)


def parse_type_text(text: str) -> Type:
    """Parse `int`, `string[]`, `V[K]`, `file[][string]` (signature notation)."""
    m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*((?:\[[A-Za-z]*\]\s*)*)", text)
    if not m:
        raise ValueError(f"bad type in signature: {text!r}")
    name, dims = m.group(1), re.findall(r"\[([A-Za-z]*)\]", m.group(2))
    t: Type = PRIMITIVES.get(name) or LIBRARY_TYPES.get(name) or Wildcard(name)
    if isinstance(t, Wildcard) and name not in _WILDCARDS:
        raise ValueError(f"unknown type in signature: {name!r}")
    for key in reversed(dims):
        key_type = INT if key == "" else (PRIMITIVES.get(key) or Wildcard(key))
        t = ArrayType(elem=t, key=key_type)
    return t


def _split_top(text: str) -> list[str]:
    """Split on commas that are outside quotes."""
    parts, depth, cur, quote = [], 0, "", ""
    for ch in text:
        if quote:
            cur += ch
            if ch == quote and not cur.endswith("\\" + quote):
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def parse_signature(text: str) -> Signature:
    """Parse one overload written as `(PARAMS) -> OUTPUTS`."""
    m = _SIG_RE.match(text.strip())
    if not m:
        raise ValueError(f"bad signature: {text!r}")
    params: list[SigParam] = []
    varargs: Optional[Type] = None
    for part in _split_top(m.group(1)):
        if part.endswith("..."):
            varargs = parse_type_text(part[:-3])
            continue
        default_text = None
        if "=" in part:
            part, default_text = (s.strip() for s in part.split("=", 1))
        words = part.split()
        ptype = parse_type_text(words[0])
        pname = words[1] if len(words) > 1 else ""
        if default_text is None:
            params.append(SigParam(ptype, pname))
        else:
            params.append(SigParam(ptype, pname, pyast.literal_eval(default_text), True))
    out_text = m.group(2).strip()
    outputs = () if out_text == "()" else tuple(parse_type_text(o) for o in _split_top(out_text))
    return Signature(tuple(params), outputs, varargs)
