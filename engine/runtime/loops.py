"""Loops: `foreach` expanded lazily in chunks, `for` run one iteration at a time.

A `foreach` over a million items never builds a million objects at once: it
starts iterations a chunk at a time and parks itself while too many are still
running, resuming when they finish — or when the engine has nothing else to
do, so a loop whose bodies wait on each other can never deadlock by parking.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Optional, Protocol

from engine.lang import ir
from engine.lang.symbols import VarSym
from engine.runtime.env import Env
from engine.runtime.evaluate import range_values
from engine.runtime.futures import ArrayFuture, Container, Dataflow, Future
from engine.runtime.run import TaskSink
from engine.runtime.values import ValueOps, new_value

Callback = Callable[[], None]


class LoopHost(Protocol):
    """What a loop needs of the interpreter that runs it."""

    flow: Dataflow
    values: ValueOps
    tasks: TaskSink

    def ev(self, e: ir.Expr, env: Env) -> Any: ...

    def run_block(self, block: ir.Block, parent: Optional[Env], on_done: Callback,
                  preset: Optional[dict[VarSym, Any]] = None) -> Env: ...

    def release(self, writes: frozenset[VarSym], env: Env) -> None: ...


CHUNK = 256
HIGH_WATER = 8192
LOW_WATER = 2048


class ForeachRun:
    """One execution of a `foreach` statement."""

    def __init__(self, interp: LoopHost, s: ir.Foreach, env: Env, done: Callback) -> None:
        self.interp = interp
        self.s = s
        self.env = env
        self.done = done
        self.items: Optional[Iterator[tuple[Any, Any]]] = None
        self.in_flight = 0
        self.exhausted = False
        self.parked = False

    def start(self) -> None:
        iterable = self.s.iterable
        if isinstance(iterable, ir.RangeLit):
            bounds = [self.interp.ev(p, self.env) for p in (iterable.start, iterable.end, iterable.step)
                      if p is not None]

            def with_bounds() -> None:
                values = range_values(*(b.value for b in bounds))
                self.items = ((i, Future.of(v)) for i, v in enumerate(values))
                self.expand()
            self.interp.flow.when_closed(bounds, with_bounds, self.s)
            return
        handle = self.interp.ev(iterable, self.env)

        def with_array(array: ArrayFuture) -> None:
            def closed() -> None:
                elems = array.elems
                self.items = ((k, elems[k]) for k in sorted(elems))
                self.expand()
            self.interp.flow.when_closed((array,), closed, self.s)
        self.interp.values.resolve(handle, iterable.type, with_array, self.s)

    def expand(self) -> None:
        s, env, items = self.s, self.env, self.items
        assert items is not None
        var_sym, key_sym = s.value, s.key
        run_block = self.interp.run_block
        for _ in range(CHUNK):
            item = next(items, None)
            if item is None:
                self.exhausted = True
                self.interp.release(s.writes, env)
                if self.in_flight == 0:
                    self.done()
                return
            key, value = item
            preset = {var_sym: value}
            if key_sym is not None:
                preset[key_sym] = Future.of(key)
            self.in_flight += 1
            run_block(s.body, env, self.iteration_done, preset)
        if self.in_flight > HIGH_WATER:
            self.parked = True
            self.interp.tasks.park(self)
        else:
            self.interp.flow.ready.append(self.expand)

    def iteration_done(self) -> None:
        self.in_flight -= 1
        if self.exhausted:
            if self.in_flight == 0:
                self.done()
        elif self.parked and self.in_flight < LOW_WATER:
            self.resume()

    def resume(self) -> None:
        if self.parked:
            self.parked = False
            self.interp.tasks.unpark(self)
            self.interp.flow.ready.append(self.expand)


class ForRun:
    """One execution of a sequential `for` loop: fresh loop variables per iteration."""

    def __init__(self, interp: LoopHost, s: ir.For, env: Env, done: Callback) -> None:
        self.interp = interp
        self.s = s
        self.env = env
        self.done = done
        self.in_flight = 0
        self.stopped = False

    def start(self) -> None:
        first: dict[Any, Any] = {}
        for init in self.s.inits:
            sym = init.sym
            first[sym] = new_value(sym.type, sym.name)
            self.interp.values.link(self.interp.ev(init.value, self.env), first[sym], sym.type, node=init)
        self.step(Env(self.env, first))

    def step(self, loop_env: Env) -> None:
        cond = self.interp.ev(self.s.cond, loop_env)
        self.interp.flow.when_closed((cond,), lambda: self.decide(loop_env, cond), self.s)

    def decide(self, loop_env: Env, cond: Future) -> None:
        s = self.s
        if cond.value:
            self.in_flight += 1
            body_env = self.interp.run_block(s.body, loop_env, self.iteration_done)
            following: dict[Any, Any] = {}
            for up in s.updates:
                sym = up.sym
                following[sym] = new_value(sym.type, sym.name)
                self.interp.values.link(self.interp.ev(up.value, body_env), following[sym], sym.type, node=up)
            self.interp.flow.ready.append(lambda: self.step(Env(self.env, following)))
            return
        for init in s.inits:
            outer = init.outer
            if outer is not None:
                sym = init.sym
                dest = self.env.lookup(outer)
                if isinstance(dest, Container):
                    dest.incr()  # the copy's own write reference: the loop's is released below
                self.interp.values.link(loop_env.vars[sym], dest, outer.type, node=init)
        self.stopped = True
        self.interp.release(s.writes, self.env)
        if self.in_flight == 0:
            self.done()

    def iteration_done(self) -> None:
        self.in_flight -= 1
        if self.stopped and self.in_flight == 0:
            self.done()
