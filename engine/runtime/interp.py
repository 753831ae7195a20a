"""Statements as dataflow: blocks, assignments, branches, waits and chains.

Write reference counting (Turbine's rule that an array closes when nothing
can write it any more): when a block starts, every statement in it receives
one write reference on each container it may write (`Stmt.writes`, computed
in the IR); a statement gives its references back once it can no longer
write — an element assignment once the key is inserted, a branch once the
chosen block has started (the block's statements hold their own references
by then), a loop once its last iteration has started. Containers declared in
a block are created holding one reference that the block drops after
registering its statements, so an array nobody writes closes empty.

Every statement also reports completion (`done`) exactly once; a block is done
when all its statements are — loops use this to bound how many iterations are
in flight, chains to sequence their links, the engine to detect deadlock.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from engine.lang import ir
from engine.lang.symbols import VarSym
from engine.runtime.calls import CallRunner, _when_shallow_closed
from engine.runtime.env import Env
from engine.runtime.evaluate import ExprEvaluator
from engine.runtime.futures import ArrayFuture, Container, Future, StructFuture, countdown
from engine.runtime.loops import ForeachRun, ForRun
from engine.runtime.run import Run, TaskSink
from engine.runtime.values import ValueOps, new_value

Callback = Callable[[], None]


def truthy(value: Any) -> bool:
    return bool(value)


class Interpreter(ExprEvaluator, CallRunner):
    """Runs the statements of one run (`run`), handing tasks to `tasks` (the engine)."""

    def __init__(self, run: Run, tasks: TaskSink) -> None:
        self.run = run
        self.tasks = tasks
        self.program = run.program
        self.flow = run.flow
        self.values = ValueOps(run.flow, run.files)
        self.literals: dict[ir.Literal, Any] = {}

    # ------------------------------------------------------------ blocks

    def run_block(self, block: ir.Block, parent: Optional[Env], on_done: Callback,
                  preset: Optional[dict[VarSym, Any]] = None) -> Env:
        bindings: dict[VarSym, Any] = preset if preset is not None else {}
        declared = block.variables
        for sym in declared:
            bindings[sym] = new_value(sym.type, sym.name, mapped=sym.mapped)
        env = Env(parent, bindings)
        self.start_statements(block.stmts, env, on_done)
        for sym in declared:
            value = bindings[sym]
            if isinstance(value, Container):
                value.decr()
        return env

    def start_statements(self, stmts: tuple[ir.Stmt, ...], env: Env, on_done: Callback) -> None:
        if not stmts:
            on_done()
            return
        for s in stmts:
            for sym in s.writes:
                env.lookup(sym).incr()
        one_done = countdown(len(stmts), on_done)
        for s in stmts:
            self.exec_stmt(s, env, one_done)

    def exec_stmt(self, s: ir.Stmt, env: Env, done: Callback) -> None:
        getattr(self, "exec_" + type(s).__name__)(s, env, done)

    def release(self, writes: frozenset[VarSym], env: Env) -> None:
        for sym in writes:
            env.lookup(sym).decr()

    def exec_Block(self, s: ir.Block, env: Env, done: Callback) -> None:
        self.run_block(s, env, done)
        self.release(s.writes, env)

    # ------------------------------------------------------------ assignment

    def exec_Declare(self, s: ir.Declare, env: Env, done: Callback) -> None:
        finish = countdown(len(s.decls), done)
        for d in s.decls:
            obj = env.lookup(d.sym)
            if d.mapping is not None:
                mapping = self.ev(d.mapping, env)
                self.flow.when_closed((mapping,), lambda obj=obj, mapping=mapping: obj.set_path(self.map_path(mapping.value)), d)
            if d.init is not None:
                self.assign_value(d.init, obj, d.sym.type, env, finish)
            else:
                finish()

    def assign_value(self, value: ir.Expr, dest: Any, t: Any, env: Env, done: Callback) -> None:
        if isinstance(value, ir.Call):
            self.call(value, env, [dest], done)
        else:
            self.values.link(self.ev(value, env), dest, t, done, value)

    def exec_Assign(self, s: ir.Assign, env: Env, done: Callback) -> None:
        targets = s.targets
        releases = self._root_releases(targets, env)
        dests = [self._destination(t, env, r) for t, r in zip(targets, releases)]
        if s.multi_output:
            self.call(s.values[0], env, dests, done)
            return
        finish = countdown(len(targets), done)
        for t, v, d in zip(targets, s.values, dests):
            self.assign_value(v, d, t.type, env, finish)

    def _root_releases(self, targets: tuple[ir.Expr, ...], env: Env) -> list[Optional[Callback]]:
        """For each element/field target, the callback that gives back the
        statement's write reference on its root container (once per root)."""
        roots: list[Optional[VarSym]] = []
        for t in targets:
            node = t
            while isinstance(node, (ir.Index, ir.Field)):
                node = node.base
            roots.append(node.sym if node is not t and isinstance(node, ir.Var) else None)
        counts: dict[VarSym, int] = {}
        for r in roots:
            if r is not None:
                counts[r] = counts.get(r, 0) + 1
        shared = {sym: countdown(n, env.lookup(sym).decr) for sym, n in counts.items()}
        return [shared[r] if r is not None else None for r in roots]

    def _destination(self, target: ir.Expr, env: Env, written: Optional[Callback]) -> Any:
        """The value a target stands for; element targets are inserted when their key closes.

        A target is a variable, then fields, then keys (`r.X.A[i]`): the checker
        refuses a field of an array element (`A[i].f`), so fields are found at once."""
        if isinstance(target, ir.Var):
            return env.lookup(target.sym)
        if isinstance(target, ir.Field):
            assert written is not None
            dest = self._by_fields(target.base, env).fields[target.name]
            if isinstance(dest, ArrayFuture):
                dest.expect_whole()
            elif isinstance(dest, StructFuture):
                dest.incr()
            written()
            return dest
        assert isinstance(target, ir.Index) and written is not None
        dest = new_value(target.type, _target_name(target))
        key = self.ev(target.key, env)

        def insert(array: ArrayFuture) -> None:
            def now() -> None:
                array.insert(key.value, dest)
                written()
            if key.closed:
                now()
            else:
                self.flow.when_closed((key,), now, target)
        self._container_target(target.base, env, insert)
        return dest

    def _by_fields(self, expr: ir.Expr, env: Env) -> Any:
        """The value a variable and a chain of fields name (`s`, `s.inner`, `r.X.A`)."""
        if isinstance(expr, ir.Var):
            return env.lookup(expr.sym)
        assert isinstance(expr, ir.Field)
        return self._by_fields(expr.base, env).fields[expr.name]

    def _container_target(self, expr: ir.Expr, env: Env, callback: Callable[[ArrayFuture], None]) -> None:
        """Find (creating nested arrays on the way) the array an element goes into."""
        if isinstance(expr, ir.Index):
            self._element_target(expr, env, callback)
        else:
            callback(self._by_fields(expr, env))

    def _element_target(self, expr: ir.Index, env: Env, callback: Callable[[ArrayFuture], None]) -> None:
        """The array element `expr` names, once its key closes: made on the first write
        through it and adopted by its array (so it closes with it), reused by later ones."""
        key = self.ev(expr.key, env)

        def in_array(array: ArrayFuture) -> None:
            def now() -> None:
                element = array.elems.get(key.value)
                if element is None:
                    element = ArrayFuture(_target_name(expr))
                    array.insert(key.value, element)
                    array.adopt(element)
                callback(element)
            self.flow.when_closed((key,), now, expr)
        self._container_target(expr.base, env, in_array)

    # ------------------------------------------------------------ control flow

    def exec_CallStmt(self, s: ir.CallStmt, env: Env, done: Callback) -> None:
        self.call(s.call, env, None, done)

    def exec_If(self, s: ir.If, env: Env, done: Callback) -> None:
        cond = self.ev(s.cond, env)

        def decide() -> None:
            branch = s.then if truthy(cond.value) else s.orelse
            if branch is not None:
                self.run_block(branch, env, done)
            else:
                done()
            self.release(s.writes, env)
        self.flow.when_closed((cond,), decide, s)

    def exec_Switch(self, s: ir.Switch, env: Env, done: Callback) -> None:
        value = self.ev(s.expr, env)

        def decide() -> None:
            branch = next((body for label, body in s.cases if label == value.value), s.default)
            if branch is not None:
                self.run_block(branch, env, done)
            else:
                done()
            self.release(s.writes, env)
        self.flow.when_closed((value,), decide, s)

    def exec_Wait(self, s: ir.Wait, env: Env, done: Callback) -> None:
        handles = [self.ev(e, env) for e in s.exprs]

        def go() -> None:
            self.run_block(s.body, env, done)
            self.release(s.writes, env)
        if s.deep:
            self.values.when_deep_closed(handles, go, s)
        else:
            _when_shallow_closed(self.flow, handles, go, s)

    def exec_Chain(self, s: ir.Chain, env: Env, done: Callback) -> None:
        links = s.links

        def start(i: int) -> None:
            link_stmt = links[i]
            for sym in link_stmt.writes:
                env.lookup(sym).incr()
            if i == len(links) - 1:
                self.exec_stmt(link_stmt, env, done)
                self.release(s.writes, env)
            else:
                # The next link waits for this one as a statement waits for a value: a link
                # that never ends (a struct copy whose field never closes) is then a deadlock,
                # reported as one, while a struct field nothing waits for is not (§13).
                finished = Future(f"the statement at line {link_stmt.line} to finish")
                self.exec_stmt(link_stmt, env, lambda: finished.set(None))
                self.flow.when_closed((finished,), lambda: start(i + 1), links[i + 1])
        start(0)

    def exec_Foreach(self, s: ir.Foreach, env: Env, done: Callback) -> None:
        ForeachRun(self, s, env, done).start()

    def exec_For(self, s: ir.For, env: Env, done: Callback) -> None:
        ForRun(self, s, env, done).start()

    def map_path(self, path: str) -> str:
        """The name of a mapped file in the run's file layer (refused if it
        escapes a configured store's root)."""
        return self.run.files.user_path(path)


def _target_name(target: ir.Expr) -> str:
    node = target
    while isinstance(node, (ir.Index, ir.Field)):
        node = node.base
    return f"{node.sym.name}[...]" if isinstance(node, ir.Var) else ""

