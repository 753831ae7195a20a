"""Calls: composite functions, app functions, library functions, struct constructors.

A composite call starts its body at once (it is not strict); each statement
inside waits for what it uses. App and library calls are strict: they fire
when every input is closed (arrays deeply), then either run inline on the
engine (cheap builtins) or become a `Task` for the scheduler (apps, Python,
blocking builtins). Output values are created by the caller when it has a
destination (so `file f <"x"> = app(...)` writes `x` directly) and by the
call otherwise; a container output carries one write reference that the
call releases once it can no longer write it.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from engine.errors import SwiftRuntimeError
from engine.lang import ast
from engine.lang.symbols import FuncSym, ResolvedCall
from engine.lang.types import StructType, base_of
from engine.runtime.builtins import BUILTINS
from engine.runtime.builtins.textform import text_form
from engine.runtime.env import Env
from engine.runtime.futures import READY, ArrayFuture, Container, FileFuture, Future, StructFuture, when_closed, when_path_known
from engine.runtime.leaf import AppSpec, BuiltinCall
from engine.runtime.values import _copy_closed_struct, deliver, new_value, to_python, when_deep_closed
from engine.scheduler.task import Completion, LeafError, Task

Callback = Callable[[], None]
SHALLOW = frozenset({"size", "contains", "keys_integer", "keys_string"})


def _noop() -> None:
    pass


class CallRunner:
    """Mixin of the interpreter: runs calls. Needs `ev`, `run_block`, `submit`,
    `globals_env`, `temp`, `ctx`, `fresh_files`, `app_retries`."""

    def call(self, node: ast.Call, env: Env, outs: Optional[list[Any]] = None,
             done: Optional[Callback] = None) -> list[Any]:
        rc: ResolvedCall = node.target
        func = rc.func
        if outs is None:
            outs = [new_value(t) for t in rc.output_types]
        done = done or _noop
        if func.kind == "composite":
            self._call_composite(func, node, env, outs, done)
        elif func.kind == "app":
            self._call_app(func, node, env, outs, done)
        elif func.kind == "struct":
            self._construct(rc, node, env, outs, done)
        else:
            self._call_library(rc, node, env, outs, done)
        return outs

    def _user_args(self, func: FuncSym, node: ast.Call, env: Env) -> list[Any]:
        args = [self.ev(a, env) for a in node.args]
        given = {kw.name: kw.value for kw in node.kwargs}
        for p in func.inputs[len(args):]:
            expr = given.get(p.name, p.default)
            args.append(self.ev(expr, env))
        return args

    def _call_composite(self, func: FuncSym, node: ast.Call, env: Env, outs: list[Any], done: Callback) -> None:
        bindings = dict(zip(func.input_syms, self._user_args(func, node, env)))
        bindings.update(zip(func.output_syms, outs))
        fenv = Env(self.globals_env, bindings)
        body = func.node.body

        def start() -> None:
            self.run_block(body, fenv, done)
            for out in outs:
                if isinstance(out, Container):
                    out.decr()
        READY.append(start)

    # ------------------------------------------------------------ apps

    def _call_app(self, func: FuncSym, node: ast.Call, env: Env, outs: list[Any], done: Callback) -> None:
        args = self._user_args(func, node, env)
        fenv = Env(None, dict(zip(func.input_syms, args)) | dict(zip(func.output_syms, outs)))
        out_files = [o for o in outs if isinstance(o, FileFuture)]
        for f in out_files:
            if f.path is None and not f.mapped:
                f.set_path(self.temp.new_path())
        prio = [self.ev(node.prio, env)] if node.prio is not None else []
        command = func.node.command

        def launch() -> None:
            argv: list[str] = []
            for word in command.words:
                argv.extend(self._app_words(word, fenv))
            redirect = {name: self._app_path(getattr(command, name), fenv)
                        for name in ("stdin", "stdout", "stderr")}
            spec = AppSpec(argv=tuple(argv), stdin=redirect["stdin"], stdout=redirect["stdout"],
                           stderr=redirect["stderr"], outputs=tuple(f.path for f in out_files),
                           label=func.name)
            inputs = tuple(p for a in args for p in _file_paths(a))
            task = Task(id=0, kind="app", payload=spec, priority=prio[0].value if prio else 0,
                        inputs=inputs, label=func.name, retries=self.app_retries)

            def finished(c: Completion) -> None:
                if not c.ok:
                    raise SwiftRuntimeError(f"app function '{func.name}' failed: {c.error}")
                for out in outs:
                    if isinstance(out, FileFuture):
                        out.close_at(out.path)
                    else:
                        out.set(None)
                done()
            self.submit(task, finished)

        when_deep_closed(args + prio, lambda: when_path_known(out_files, launch, node), node)

    def _app_words(self, word: ast.Expr, fenv: Env) -> list[str]:
        if isinstance(word, ast.FilenameOf):
            return _file_paths(self.ev(word.operand, fenv))
        return _argv_texts(self.ev(word, fenv))

    def _app_path(self, expr: Optional[ast.Expr], fenv: Env) -> Optional[str]:
        if expr is None:
            return None
        handle = self.ev(expr, fenv)
        return handle.path if isinstance(handle, FileFuture) else handle.value

    # ------------------------------------------------------------ library

    def _call_library(self, rc: ResolvedCall, node: ast.Call, env: Env, outs: list[Any], done: Callback) -> None:
        name = rc.func.name
        builtin = BUILTINS[name]
        sig = rc.signature
        handles = [self.ev(a, env) for a in node.args]
        given = {kw.name: kw.value for kw in node.kwargs}
        for p in sig.params[len(node.args):]:
            handles.append(self.ev(given[p.name], env) if p.name in given else Future.of(p.default))
        shallow = name in SHALLOW
        out = outs[0]
        out_type = rc.output_types[0]

        def fire() -> None:
            values = [to_python(h, shallow) for h in handles]
            if builtin.where == "engine":
                if name == "python_persist":
                    self.flush_output()  # its print() writes straight to stdout: keep lines in order
                try:
                    result = builtin.impl(self.ctx, *values)
                except LeafError as e:
                    raise SwiftRuntimeError(e.message) from None
                deliver(result, out, out_type, self.fresh_files)
                done()
                return
            payload = BuiltinCall(name=name, args=tuple(values), script_args=tuple(self.ctx.script_args),
                                  script_path=self.ctx.script_path)
            kind = "python" if name.startswith("python") else "builtin"
            task = Task(id=0, kind=kind, payload=payload, label=name)

            def finished(c: Completion) -> None:
                if not c.ok:
                    raise SwiftRuntimeError(c.error)
                deliver(c.value, out, out_type, self.fresh_files)
                done()
            self.submit(task, finished)

        if shallow:
            _when_shallow_closed(handles, fire, node)
        else:
            when_deep_closed(handles, fire, node)

    # ------------------------------------------------------------ structs

    def _construct(self, rc: ResolvedCall, node: ast.Call, env: Env, outs: list[Any], done: Callback) -> None:
        struct = outs[0]
        st = base_of(rc.output_types[0])
        assert isinstance(st, StructType) and isinstance(struct, StructFuture)
        handles = [self.ev(a, env) for a in node.args]
        source = StructFuture()
        source.fields = dict(zip(st.fields, handles))

        def fill() -> None:
            _copy_closed_struct(source, struct)
            struct.decr()
            done()
        when_deep_closed(handles, fill, node)


def _when_shallow_closed(handles: list[Any], callback: Callback, node: ast.Node) -> None:
    def step() -> None:
        pending = []
        for h in handles:
            if type(h) is Future and h.closed and isinstance(h.value, Container):
                h = h.value
            if not h.closed:
                pending.append(h)
        if pending:
            when_closed(pending, step, node)
        else:
            callback()
    step()


def _file_paths(handle: Any) -> list[str]:
    """Paths of the files in a value (a file, or arrays of files in key order)."""
    if type(handle) is Future and isinstance(handle.value, Container):
        handle = handle.value
    if isinstance(handle, FileFuture):
        return [handle.path] if handle.path is not None else []
    if isinstance(handle, ArrayFuture):
        return [p for k in sorted(handle.elems) for p in _file_paths(handle.elems[k])]
    return []


def _argv_texts(handle: Any) -> list[str]:
    """Command-line words of a closed value: one per scalar, arrays expanded in key order."""
    if type(handle) is Future and isinstance(handle.value, Container):
        handle = handle.value
    if isinstance(handle, FileFuture):
        return [handle.path or handle.value]
    if isinstance(handle, ArrayFuture):
        return [t for k in sorted(handle.elems) for t in _argv_texts(handle.elems[k])]
    if isinstance(handle, StructFuture):
        raise SwiftRuntimeError("a struct cannot be passed on a command line")
    return [text_form(handle.value)]

