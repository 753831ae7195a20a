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
from engine.lang import ir
from engine.lang.types import StructType, base_of
from engine.runtime.builtins import BUILTINS
from engine.runtime.builtins.textform import text_form
from engine.runtime.env import Env
from engine.runtime.futures import (
    ArrayFuture, Container, Dataflow, FileFuture, Future, StructFuture, UrlFuture, countdown,
)
from engine.runtime.values import ValueOps, new_value, to_python
from engine.runtime.run import Run, TaskSink
from engine.task.contract import AppSpec, BuiltinCall, Completion, LeafError, StagingPlan, Task

Callback = Callable[[], None]
SHALLOW = frozenset({"size", "contains", "exists", "keys_integer", "keys_string"})
# Builtins that look into an array as it is when they run, open or not (§13: `exists`).
UNWAITED_ARRAYS = frozenset({"exists"})
# Builtins that name an existing file (checked in the store, not on local disk).
INPUT_FILES = frozenset({"input", "input_file"})


def _noop() -> None:
    pass


class CallRunner:
    """Mixin of the interpreter: runs calls (`Interpreter` gives it `run`, `tasks`, `flow`,
    `values`, `program`, `ev` and `run_block`)."""

    run: Run
    tasks: TaskSink
    flow: Dataflow
    values: ValueOps
    program: ir.Program
    ev: Callable[..., Any]
    run_block: Callable[..., Any]

    def call(self, node: ir.Call, env: Env, outs: Optional[list[Any]] = None,
             done: Optional[Callback] = None) -> list[Any]:
        func = node.func
        if outs is None:
            outs = [new_value(t) for t in node.output_types]
        done = done or _noop
        if func.kind == "composite":
            self._call_composite(self.program.functions[func], node, env, outs, done)
        elif func.kind == "app":
            self._call_app(self.program.functions[func], node, env, outs, done)
        elif func.kind == "struct":
            self._construct(node, env, outs, done)
        else:
            self._call_library(node, env, outs, done)
        return outs

    def _user_args(self, function: ir.Function, node: ir.Call, env: Env) -> list[Any]:
        args = [self.ev(a, env) for a in node.args]
        given = dict(node.kwargs)
        for p in function.inputs[len(args):]:
            expr = given.get(p.sym.name, p.default)
            assert expr is not None  # the checker made sure every parameter has a value
            args.append(self.ev(expr, env))
        return args

    def _call_composite(self, function: ir.Function, node: ir.Call, env: Env, outs: list[Any],
                        done: Callback) -> None:
        bindings = dict(zip((p.sym for p in function.inputs), self._user_args(function, node, env)))
        bindings.update(zip((p.sym for p in function.outputs), outs))
        fenv = Env(self.run.globals_env, bindings)
        body = function.body
        assert body is not None

        def start() -> None:
            self.run_block(body, fenv, done)
            for out in outs:
                if isinstance(out, Container):
                    out.decr()
        self.flow.ready.append(start)

    # ------------------------------------------------------------ apps

    def _call_app(self, function: ir.Function, node: ir.Call, env: Env, outs: list[Any], done: Callback) -> None:
        func = function.sym
        args = self._user_args(function, node, env)
        # A command word may name a global (`string echo = "/bin/echo"; ... { echo s; }`, §13).
        fenv = Env(self.run.globals_env, dict(zip((p.sym for p in function.inputs), args))
                   | dict(zip((p.sym for p in function.outputs), outs)))
        out_files = [o for o in outs if isinstance(o, FileFuture)]
        for f in out_files:
            if f.path is None and not f.mapped:
                f.set_path(self.run.files.new_temp())
        prio = [self.ev(node.prio, env)] if node.prio is not None else []
        command = function.command
        assert command is not None
        # Every word and redirection is evaluated now, once: a word may be any
        # expression (`(f(x))`), and the app waits for its value like for an argument.
        word_handles = [(isinstance(w, ir.FilenameOf), self.ev(w.operand if isinstance(w, ir.FilenameOf) else w, fenv))
                        for w in command.words]
        redirect_handles = {name: self.ev(getattr(command, name), fenv)
                            for name in ("stdin", "stdout", "stderr") if getattr(command, name) is not None}
        outputs = set(map(id, outs))
        needed = [h for is_path, h in word_handles if not is_path and id(h) not in outputs]
        path_files = [h for is_path, h in word_handles if is_path and isinstance(h, FileFuture)]
        path_files += [h for h in redirect_handles.values() if isinstance(h, FileFuture)]
        needed += [h for h in redirect_handles.values() if not isinstance(h, FileFuture)]

        def launch() -> None:
            words: list[tuple[str, bool]] = []
            for is_path, handle in word_handles:
                words.extend(_path_words(handle) if is_path else _argv_words(handle))
            redirect = {name: _redirect_path(redirect_handles.get(name)) for name in ("stdin", "stdout", "stderr")}
            inputs = tuple(p for a in args for p in _file_paths(a))
            spec = self._app_spec(func.name, words, redirect, inputs, tuple(f.path for f in out_files),
                                  func.walltime or self.run.task_walltime)
            task = Task(id=0, kind="app", payload=spec, priority=prio[0].value if prio else 0,
                        inputs=inputs, label=func.name, retries=self.run.app_retries)
            outputs = tuple(f.path for f in out_files if f.path is not None)
            cache = self.run.task_cache
            key = what = ""
            if cache is not None:
                key, what = cache.key(func.name, spec, inputs), cache.describe(func.name, spec)

            def finished(c: Completion) -> None:
                if not c.ok:
                    tries = f" after {c.attempts} attempts" if c.attempts > 1 else ""
                    raise SwiftRuntimeError(f"{node.file}:{node.line}: app function '{func.name}'"
                                            f" (task {c.task_id}) failed{tries}: {c.error}")
                digests = c.extra.get("digests", {})
                self.run.files.digests.learn(digests)
                if cache is not None:
                    cache.record(key, what, outputs, digests)
                for out in outs:
                    if isinstance(out, FileFuture):
                        out.close_at(out.path)
                    else:
                        out.set(None)
                done()
            earlier = cache.reusable(key, what, outputs) if cache is not None else None
            if earlier is not None:
                self.tasks.reuse(task, finished, earlier)
            else:
                self.tasks.submit(task, finished)

        self.values.when_deep_closed(args + prio + needed, lambda: self.flow.when_path_known(out_files + path_files, launch, node), node)

    def _app_spec(self, label: str, words: list[tuple[str, bool]], redirect: dict[str, Optional[str]],
                  inputs: tuple[str, ...], outputs: tuple[str, ...], walltime: Optional[float]) -> AppSpec:
        """The command line for a worker: mount paths, or a staging plan for the worker to follow."""
        files = self.run.files
        if files.mode == "staging":
            user = files.user_path
            argv = tuple(user(w) if is_file else w for w, is_file in words)
            staged = tuple(dict.fromkeys(user(p) for p in inputs))
            plan = StagingPlan(
                storage=files.name, config_path=files.config_path, inputs=staged, digests=files.digests.of(staged),
                outputs=tuple(user(p) for p in outputs),
                argv_files=tuple(i for i, (_, is_file) in enumerate(words) if is_file),
                redirects=tuple((name, user(p)) for name, p in redirect.items() if p is not None))
            return AppSpec(argv=argv, label=label, staging=plan, hidden_env=files.secret_env_names,
                           walltime=walltime)
        # A path on a mount is made from its text here: checking it for symbolic links costs a
        # round trip to the store's server per component (the dearest for an output not yet
        # written), so the worker does it, just before the app runs (AppSpec.store_root).
        task_path = files.task_path
        argv = tuple(task_path(w) if is_file else w for w, is_file in words)
        streams = {name: _maybe(task_path, path) for name, path in redirect.items()}
        task_outputs, task_inputs = tuple(map(task_path, outputs)), tuple(map(task_path, dict.fromkeys(inputs)))
        store_paths: tuple[str, ...] = ()
        if files.store_root is not None:
            named = [word for word, (_, is_file) in zip(argv, words) if is_file]
            store_paths = tuple(dict.fromkeys([*named, *filter(None, streams.values()), *task_outputs, *task_inputs]))
        return AppSpec(argv=argv, stdin=streams["stdin"], stdout=streams["stdout"], stderr=streams["stderr"],
                       outputs=task_outputs, label=label, hidden_env=files.secret_env_names, walltime=walltime,
                       inputs=task_inputs, store_root=files.store_root, store_paths=store_paths)

    # ------------------------------------------------------------ library

    def _call_library(self, node: ir.Call, env: Env, outs: list[Any], done: Callback) -> None:
        name = node.func.name
        builtin = BUILTINS[name]
        sig = node.signature
        assert sig is not None
        handles = [self.ev(a, env) for a in node.args]
        given = dict(node.kwargs)
        for p in sig.params[len(node.args):]:
            handles.append(self.ev(given[p.name], env) if p.name in given else Future.of(p.default))
        shallow = name in SHALLOW

        def fire() -> None:
            values = [to_python(h, shallow) for h in handles]
            if builtin.reads_content:  # a store file is fetched first
                values = [self.run.files.local_copy(v) if isinstance(h, FileFuture) else v
                          for h, v in zip(handles, values)]
            elif name in INPUT_FILES and self.run.files.mode != "posix":
                self.run.files.ensure_input(values[0], name)
                self.values.place_file(values[0], outs[0])
                done()
                return
            if builtin.where == "engine":
                if name == "python_persist":
                    self.run.flush_output()  # its print() writes straight to stdout: keep lines in order
                try:
                    result = builtin.impl(self.run.ctx, *values)
                except LeafError as e:
                    raise SwiftRuntimeError(e.message) from None
                _deliver_all(self.values, result, outs, node.output_types, self.run.fresh_files)
                done()
                return
            payload = BuiltinCall(name=name, args=tuple(values), script_args=tuple(self.run.ctx.script_args),
                                  script_path=self.run.ctx.script_path)
            kind = "python" if name.startswith("python") else "builtin"
            task = Task(id=0, kind=kind, payload=payload, label=name)

            def finished(c: Completion) -> None:
                if not c.ok:
                    raise SwiftRuntimeError(c.error)
                _deliver_all(self.values, c.value, outs, node.output_types, self.run.fresh_files)
                done()
            self.tasks.submit(task, finished)

        if name in UNWAITED_ARRAYS:
            _when_shallow_closed(self.flow, handles, fire, node, open_arrays=True)
        elif shallow:
            _when_shallow_closed(self.flow, handles, fire, node)
        else:
            self.values.when_deep_closed(handles, fire, node)

    # ------------------------------------------------------------ structs

    def _construct(self, node: ir.Call, env: Env, outs: list[Any], done: Callback) -> None:
        """`P(v1, v2, ...)`: each value goes into its field as `s.f = v` would, on its own
        (a struct is its fields, §13)."""
        struct = outs[0]
        st = base_of(node.output_types[0])
        assert isinstance(st, StructType) and isinstance(struct, StructFuture)
        finish = countdown(len(st.fields), done)
        for (name, field_type), arg in zip(st.fields.items(), node.args):
            target = struct.fields[name]
            if isinstance(target, ArrayFuture):
                target.expect_whole()  # released by `link` once the array is copied
            elif isinstance(target, StructFuture):
                target.incr()  # released by `link` once the copy is set up
            self.values.link(self.ev(arg, env), target, field_type, finish, node)
        struct.decr()


def _deliver_all(values: ValueOps, result: Any, outs: list[Any], types: tuple[Any, ...], fresh: set[str]) -> None:
    """Store a builtin's result; one with several outputs returns a tuple, a value per output."""
    if len(outs) == 1:
        values.deliver(result, outs[0], types[0], fresh)
        return
    for value, out, out_type in zip(result, outs, types):
        values.deliver(value, out, out_type, fresh)


def _when_shallow_closed(flow: Dataflow, handles: list[Any], callback: Callback, node: ir.Node,
                         open_arrays: bool = False) -> None:
    """Call `callback` once every handle is closed (a container: closed itself, not its
    elements; with `open_arrays`, known, closed or not)."""
    def step() -> None:
        pending = []
        for h in handles:
            if type(h) is Future and h.closed and isinstance(h.value, Container):
                h = h.value
            if not h.closed and not (open_arrays and isinstance(h, ArrayFuture)):
                pending.append(h)
        if pending:
            flow.when_closed(pending, step, node)
        else:
            callback()
    step()


def _file_paths(handle: Any) -> list[str]:
    """Paths of the files in a value (a file, or arrays of files in key order);
    URLs are not files here: they are never staged."""
    return [p for p, is_file in _path_words(handle) if is_file]


def _path_words(handle: Any) -> list[tuple[str, bool]]:
    """`@value` on a command line: each file's path (flagged as a file) or URL (not flagged)."""
    if type(handle) is Future and isinstance(handle.value, Container):
        handle = handle.value
    if isinstance(handle, FileFuture):
        return [(handle.path, not isinstance(handle, UrlFuture))] if handle.path is not None else []
    if isinstance(handle, ArrayFuture):
        return [w for k in sorted(handle.elems) for w in _path_words(handle.elems[k])]
    return []


def _argv_words(handle: Any) -> list[tuple[str, bool]]:
    """Command-line words of a closed value: one per scalar, arrays expanded in
    key order; each flagged when it is a file's path."""
    if type(handle) is Future and isinstance(handle.value, Container):
        handle = handle.value
    if isinstance(handle, FileFuture):
        return [(handle.path or handle.value, not isinstance(handle, UrlFuture))]
    if isinstance(handle, ArrayFuture):
        return [w for k in sorted(handle.elems) for w in _argv_words(handle.elems[k])]
    if isinstance(handle, StructFuture):
        raise SwiftRuntimeError("a struct cannot be passed on a command line")
    return [(text_form(handle.value), False)]


def _redirect_path(handle: Any) -> Optional[str]:
    """The path a redirection names: a file's path, or a closed string's value."""
    if handle is None:
        return None
    return handle.path if isinstance(handle, FileFuture) else handle.value


def _maybe(fn: Callable[[str], str], path: Optional[str]) -> Optional[str]:
    return None if path is None else fn(path)
