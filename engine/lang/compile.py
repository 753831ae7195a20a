"""`compile()`: source file → the IR `Program`, one stage after another.

parse (lark) → resolve imports (each module parsed once) → check (names,
types, single assignment) → lower to the IR. User errors are raised as
`CompileErrors` with `file:line:col` positions; nothing runs before all of
them pass.
"""

from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

from engine.errors import CompileError, CompileErrors
from engine.lang import ast
from engine.lang.check import check_program
from engine.lang.deep_stack import call_with_deep_stack
from engine.lang.ir import Program
from engine.lang.lower import lower
from engine.lang.parser import parse_file
from engine.lang.sources import SourceFiles
from engine.lang.symbols import LibraryFunction

STANDARD_MODULES = frozenset({"io", "string", "sys", "files", "assert", "math", "random", "stats",
                              "python", "builtins", "mpe"})
UNSUPPORTED_MODULES = frozenset({"json", "unix", "location", "blob", "mpi", "R", "julia", "jvm"})


def compile(path: str, library: Mapping[str, LibraryFunction],
            constants: Mapping[str, tuple[str, Any, str]],
            include_dirs: Sequence[str] = ()) -> Program:
    """Compile the script at `path` against a library of builtin functions."""
    files = SourceFiles()

    def passes() -> Program:
        main_module = parse_file(path, include_dirs, files)
        items = resolve_imports(main_module, path, include_dirs, files)
        return lower(check_program(items, library, constants), path, files.digests)
    try:
        return call_with_deep_stack(passes)
    except RecursionError:
        raise CompileError(path, 1, 1, "the program is nested too deeply to compile: split its longest"
                                       " expression or its deepest nesting of blocks") from None


def resolve_imports(main_module: ast.Module, path: str, include_dirs: Sequence[str],
                    files: SourceFiles) -> list[ast.Item]:
    """All items of the program: each imported module's items (once, before their
    importer's), then the main module's, imports removed."""
    search = [os.path.dirname(os.path.abspath(path)), *include_dirs, os.getcwd()]
    loaded: set[str] = set()
    errors: list[CompileError] = []

    def expand(module: ast.Module) -> list[ast.Item]:
        items: list[ast.Item] = []
        for item in module.items:
            if not isinstance(item, ast.Import):
                items.append(item)
                continue
            top = item.module.split(".")[0]
            if item.module in STANDARD_MODULES:
                continue
            if top in UNSUPPORTED_MODULES:
                errors.append(CompileError(item.file, item.line, item.col,
                                           f"unsupported feature: module {item.module}"))
                continue
            found = _find_module(item.module, search, files)
            if found is None:
                errors.append(CompileError(item.file, item.line, item.col,
                                           f"unknown module '{item.module}'"
                                           f" (searched {', '.join(search)})"))
                continue
            real = os.path.realpath(found)
            if real in loaded:
                continue
            loaded.add(real)
            items.extend(expand(parse_file(found, include_dirs, files)))
        return items

    loaded.add(os.path.realpath(path))
    items = expand(main_module)
    if errors:
        raise CompileErrors(errors)
    return items


def _find_module(dotted: str, search: Sequence[str], files: SourceFiles) -> str | None:
    relative = os.path.join(*dotted.split(".")) + ".swift"
    for directory in search:
        candidate = os.path.join(directory, relative)
        if files.is_file(candidate):
            return candidate
    return None
