"""Loops: `foreach` expanded lazily in chunks, `for` run one iteration at a time.

A `foreach` over a million items never builds a million objects at once: it
starts iterations a chunk at a time and parks itself while too many are still
running, resuming when they finish — or when the engine has nothing else to
do, so a loop whose bodies wait on each other can never deadlock by parking.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional

from engine.lang import ast
from engine.runtime.env import Env
from engine.runtime.evaluate import range_values
from engine.runtime.futures import READY, ArrayFuture, Container, Future, when_closed
from engine.runtime.values import link, new_value, resolve

if TYPE_CHECKING:
    from engine.runtime.interp import Interpreter

Callback = Callable[[], None]
CHUNK = 256
HIGH_WATER = 8192
LOW_WATER = 2048


class ForeachRun:
    """One execution of a `foreach` statement."""

    def __init__(self, interp: "Interpreter", s: ast.Foreach, env: Env, done: Callback) -> None:
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
        if isinstance(iterable, ast.RangeLit):
            bounds = [self.interp.ev(p, self.env) for p in (iterable.start, iterable.end, iterable.step)
                      if p is not None]

            def with_bounds() -> None:
                values = range_values(*(b.value for b in bounds))
                self.items = ((i, Future.of(v)) for i, v in enumerate(values))
                self.expand()
            when_closed(bounds, with_bounds, self.s)
            return
        handle = self.interp.ev(iterable, self.env)

        def with_array(array: ArrayFuture) -> None:
            def closed() -> None:
                elems = array.elems
                self.items = ((k, elems[k]) for k in sorted(elems))
                self.expand()
            when_closed((array,), closed, self.s)
        resolve(handle, iterable.type, with_array, self.s)

    def expand(self) -> None:
        s, env, items = self.s, self.env, self.items
        assert items is not None
        var_sym, key_sym = s.var_sym, s.key_sym  # type: ignore[attr-defined]
        run_block = self.interp.run_block
        for _ in range(CHUNK):
            item = next(items, None)
            if item is None:
                self.exhausted = True
                self.interp.release(s.writes, env)  # type: ignore[attr-defined]
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
            self.interp.park(self)
        else:
            READY.append(self.expand)

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
            self.interp.unpark(self)
            READY.append(self.expand)


class ForRun:
    """One execution of a sequential `for` loop: fresh loop variables per iteration."""

    def __init__(self, interp: "Interpreter", s: ast.For, env: Env, done: Callback) -> None:
        self.interp = interp
        self.s = s
        self.env = env
        self.done = done
        self.in_flight = 0
        self.stopped = False

    def start(self) -> None:
        first: dict[Any, Any] = {}
        for init in self.s.init:
            sym = init.sym  # type: ignore[attr-defined]
            first[sym] = new_value(sym.type, sym.name)
            link(self.interp.ev(init.value, self.env), first[sym], sym.type, node=init)
        self.step(Env(self.env, first))

    def step(self, loop_env: Env) -> None:
        cond = self.interp.ev(self.s.cond, loop_env)
        when_closed((cond,), lambda: self.decide(loop_env, cond), self.s)

    def decide(self, loop_env: Env, cond: Future) -> None:
        s = self.s
        if cond.value:
            self.in_flight += 1
            body_env = self.interp.run_block(s.body, loop_env, self.iteration_done)
            following: dict[Any, Any] = {}
            for up in s.update:
                sym = up.sym  # type: ignore[attr-defined]
                following[sym] = new_value(sym.type, sym.name)
                link(self.interp.ev(up.value, body_env), following[sym], sym.type, node=up)
            READY.append(lambda: self.step(Env(self.env, following)))
            return
        for init in s.init:
            outer = init.outer  # type: ignore[attr-defined]
            if outer is not None:
                sym = init.sym  # type: ignore[attr-defined]
                dest = self.env.lookup(outer)
                if isinstance(dest, Container):
                    dest.incr()  # the copy's own write reference: the loop's is released below
                link(loop_env.vars[sym], dest, outer.type, node=init)
        self.stopped = True
        self.interp.release(s.writes, self.env)  # type: ignore[attr-defined]
        if self.in_flight == 0:
            self.done()

    def iteration_done(self) -> None:
        self.in_flight -= 1
        if self.stopped and self.in_flight == 0:
            self.done()
