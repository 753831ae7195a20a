"""Futures: the run-time values of the dataflow program.

Every variable is a future — open until assigned, then closed forever
(Turbine's data store). Scalars are `Future`s; files are `FileFuture`s (a path
that may be known before the file is closed); arrays are containers that close
when their write reference count drops to zero (no statement may write them
any more). A struct is its fields (§13): each field, at any depth, is a future
of its own, and the struct is closed when all of them are. Closing a future
never runs code directly: it moves its waiters to their run's ready queue
(`Dataflow.ready`), which keeps recursion shallow and execution
first-ready-first.

`Join` waits for several futures at once for a statement; a run's `Dataflow`
tracks its pending joins so that a deadlock can be reported with the variables
each waiting statement needs. A `Forward` passes a value on (a struct field
copied as it closes): it is no statement waiting, and a field nothing needs
may stay open forever without a deadlock.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Iterable, Optional, Protocol

from engine.errors import SwiftRuntimeError
from engine.lang import ir

Callback = Callable[[], None]


def countdown(n: int, done: Callback) -> Callback:
    """A callback that calls `done` on its n-th call (at once if n == 0)."""
    if n <= 1:
        if n == 0:
            done()
        return done
    left = [n]

    def one() -> None:
        left[0] -= 1
        if left[0] == 0:
            done()
    return one


class Dataflow:
    """One run's scheduling of dataflow: what is ready to run, and what still waits."""

    __slots__ = ("ready", "pending", "forwards")

    def __init__(self) -> None:
        self.ready: deque[Callback] = deque()  # run first-ready-first by the engine's loop
        self.pending: dict[int, Join] = {}  # joins still waiting, for deadlock reports
        self.forwards = 0  # values still to be passed on once they close (`forward`)

    def when_closed(self, items: Iterable[Any], callback: Callback, node: Optional[ir.Node] = None) -> None:
        """Run `callback` once every future/container in `items` is closed."""
        waiting = tuple(x for x in items if not x.closed)
        if not waiting:
            self.ready.append(callback)
            return
        join = Join(self, len(waiting), callback, node, waiting)
        for x in waiting:
            x.add_waiter(join)

    def forward(self, item: Any, callback: Callback) -> None:
        """Run `callback` once `item` (open) closes, to pass its value on: unlike
        `when_closed`, no statement waits here, so the run may end with it still open."""
        self.forwards += 1
        item.add_waiter(Forward(self, callback))

    def when_path_known(self, files: Iterable[FileFuture], callback: Callback,
                        node: Optional[ir.Node] = None) -> None:
        """Run `callback` once every file in `files` has a known path."""
        waiting = tuple(f for f in files if f.path is None)
        if not waiting:
            self.ready.append(callback)
            return
        join = Join(self, len(waiting), callback, node, waiting)
        for f in waiting:
            if f.path_waiters is None:
                f.path_waiters = [join]
            else:
                f.path_waiters.append(join)


class Join:
    """Fires `callback` (queues it on its run's ready queue) once all of `count` awaited
    events have happened."""

    __slots__ = ("flow", "count", "callback", "node", "awaited", "__weakref__")

    def __init__(self, flow: Dataflow, count: int, callback: Callback, node: Optional[ir.Node],
                 awaited: tuple[Any, ...]) -> None:
        self.flow = flow
        self.count = count
        self.callback = callback
        self.node = node
        self.awaited = awaited
        flow.pending[id(self)] = self

    def notify(self) -> None:
        self.count -= 1
        if self.count == 0:
            del self.flow.pending[id(self)]
            self.flow.ready.append(self.callback)


class Forward:
    """Queues `callback` when the one value it hears of closes (see `Dataflow.forward`)."""

    __slots__ = ("flow", "callback")

    def __init__(self, flow: Dataflow, callback: Callback) -> None:
        self.flow = flow
        self.callback = callback

    def notify(self) -> None:
        self.flow.forwards -= 1
        self.flow.ready.append(self.callback)


class Waiter(Protocol):
    """What hears of a value closing: a `Join`, a `Forward`, or a struct watching its fields."""

    def notify(self) -> None: ...


class Waitable:
    """Something statements wait for: it closes once, then wakes its waiters."""

    __slots__ = ("closed", "waiters", "name")

    def add_waiter(self, join: Waiter) -> None:
        if self.waiters is None:
            self.waiters = [join]
        else:
            self.waiters.append(join)

    def _wake(self) -> None:
        waiters = self.waiters
        if waiters:
            self.waiters = None
            for join in waiters:
                join.notify()


class Future(Waitable):
    """A single-assignment scalar (int, float, string, boolean, void)."""

    __slots__ = ("value",)

    def __init__(self, name: str = "") -> None:
        self.value: Any = None
        self.closed = False
        self.waiters: Optional[list[Waiter]] = None
        self.name = name

    @classmethod
    def of(cls, value: Any, name: str = "") -> "Future":
        f = cls(name)
        f.value = value
        f.closed = True
        return f

    def set(self, value: Any) -> None:
        if self.closed:
            raise SwiftRuntimeError(f"double assignment: '{self.name or 'value'}' is assigned twice")
        self.value = value
        self.closed = True
        self._wake()

    def describe(self) -> str:
        return self.name or "a temporary value"


class FileFuture(Future):
    """A file: `path` may be known (mapped, or allocated) before it is closed.

    The value, once closed, is the path. `mapping` is the future of a mapping
    expression whose value is not known yet.
    """

    __slots__ = ("path", "mapped", "path_waiters")

    def __init__(self, name: str = "", path: Optional[str] = None, mapped: bool = False) -> None:
        super().__init__(name)
        self.path = path
        self.mapped = mapped
        self.path_waiters: Optional[list[Join]] = None

    def set_path(self, path: str) -> None:
        self.path = path
        waiters = self.path_waiters
        if waiters:
            self.path_waiters = None
            for join in waiters:
                join.notify()

    def close_at(self, path: str) -> None:
        """The file at `path` is complete: close the future."""
        if self.path is None:
            self.set_path(path)
        self.set(path)


class UrlFuture(FileFuture):
    """A `url` (§12): its path is a URL, passed on as text and never staged."""

    __slots__ = ()


class Container(Waitable):
    """Base of arrays and structs: `writers` counts the statements that may still write it."""

    __slots__ = ("writers", "children")

    def __init__(self, name: str, writers: int = 0) -> None:
        self.writers = writers
        self.closed = False
        self.waiters: Optional[list[Waiter]] = None
        self.name = name
        # Sub-containers created implicitly (A[i][j] = ..., struct fields): they
        # have no writers of their own and take no more writes once their parent takes none.
        self.children: Optional[list[Container]] = None

    def incr(self, n: int = 1) -> None:
        if self.closed:
            raise SwiftRuntimeError(f"internal error: write to closed '{self.name}' (please report)")
        self.writers += n

    def decr(self, n: int = 1) -> None:
        self.writers -= n
        if self.writers == 0:
            self.writes_done()

    def writes_done(self) -> None:
        """No statement may write it any more."""
        raise NotImplementedError

    def _children_done(self) -> None:
        if self.children:
            # A child with writers of its own (a field assigned whole) is done by itself.
            for child in self.children:
                if not child.closed and child.writers == 0:
                    child.writes_done()

    def adopt(self, child: "Container") -> None:
        if self.children is None:
            self.children = [child]
        else:
            self.children.append(child)

    def describe(self) -> str:
        return self.name or "a temporary array"


class ArrayFuture(Container):
    """An array: key → element (a Future, FileFuture or container); it closes when no
    statement may write it any more."""

    __slots__ = ("elems", "key_waiters", "whole")

    def __init__(self, name: str = "", writers: int = 0) -> None:
        super().__init__(name, writers)
        self.elems: dict[Any, Any] = {}
        self.whole = False  # assigned as a whole by `A = B` (then no element may be written)
        # key -> (callback, "file:line: " of the reading statement) for elements not inserted yet
        self.key_waiters: Optional[dict[Any, list[tuple[Callable[[Any], None], str]]]] = None

    def insert(self, key: Any, obj: Any) -> None:
        if key in self.elems:
            raise SwiftRuntimeError(f"double assignment: element [{_key_text(key)}] of"
                                    f" '{self.describe()}' is assigned twice")
        if self.closed or self.whole:
            # Reachable when writes in separate `if`s both happen (§12): whole, then by element.
            raise SwiftRuntimeError(f"double assignment: element [{_key_text(key)}] of '{self.describe()}'"
                                    " is written after the array was assigned as a whole")
        self.elems[key] = obj
        if self.key_waiters:
            for callback, _ in self.key_waiters.pop(key, ()):
                callback(obj)

    def _check_unassigned(self) -> None:
        if self.elems or self.whole or self.closed:
            raise SwiftRuntimeError(f"double assignment: '{self.describe()}' is assigned as a whole"
                                    " and by element (or twice)")

    def expect_whole(self) -> None:
        """A whole assignment to this array (a struct field) is to come: refuse it now if
        the array was written already, else hold a write reference until it is done."""
        self._check_unassigned()
        self.incr()

    def assign_whole(self, elems: dict[Any, Any]) -> None:
        """`A = B`: take B's elements; an array already written by element is a double assignment."""
        self._check_unassigned()
        for key, obj in elems.items():
            self.insert(key, obj)
        self.whole = True

    def lookup(self, key: Any, callback: Callable[[Any], None], where: str = "") -> None:
        """Call `callback(element)` once element `key` exists (error, citing `where`, if never)."""
        obj = self.elems.get(key)
        if obj is not None:
            callback(obj)
        elif self.closed:
            raise absent_key(self, key, where)
        else:
            if self.key_waiters is None:
                self.key_waiters = {}
            self.key_waiters.setdefault(key, []).append((callback, where))

    def writes_done(self) -> None:
        self.close()

    def close(self) -> None:
        self.closed = True
        self._children_done()
        self._wake()
        if self.key_waiters:
            key, waiters = next(iter(self.key_waiters.items()))
            raise absent_key(self, key, waiters[0][1])


class StructFuture(Container):
    """A struct: field name → its future (a Future, FileFuture, array or struct), all
    created up front, so the same objects stand for the fields for the struct's life.

    A struct is its fields (§13): reading one waits for it alone, and the struct is
    closed when every field is (an array field when the array is). Whether it is
    closed is worked out only when something waits for the struct as a whole (the
    first waiter counts its open fields, at any depth, and hears of each one
    closing), so that a struct nobody waits for costs no more than its fields.
    `writers` counts the statements that may still write it; once none may, its array
    fields close (but for those a copy still holds, see `ValueOps.copy_struct`).
    """

    __slots__ = ("fields", "open_fields")

    def __init__(self, name: str = "", writers: int = 0) -> None:
        super().__init__(name, writers)
        self.fields: dict[str, Any] = {}
        self.open_fields: Optional[int] = None  # counted when the first waiter comes

    def incr(self, n: int = 1) -> None:
        # No check that it is closed: a statement of a branch taken late may still
        # start writing a struct whose fields all closed; its write of a field
        # already set is the double assignment reported then (§12).
        self.writers += n

    def writes_done(self) -> None:
        self._children_done()

    def add_waiter(self, join: Waiter) -> None:
        if self.open_fields is None:
            open_fields: list[Waitable] = []
            _open_fields(self, open_fields)
            self.open_fields = len(open_fields)
            for part in open_fields:
                part.add_waiter(self)
        if self.open_fields == 0:
            self.closed = True
            join.notify()
        else:
            super().add_waiter(join)

    def notify(self) -> None:
        """One of the open fields it watches has closed."""
        assert self.open_fields is not None
        self.open_fields -= 1
        if self.open_fields == 0:
            self.closed = True
            self._wake()

    def describe(self) -> str:
        return self.name or "a temporary struct"


def _open_fields(struct: StructFuture, out: list[Waitable]) -> None:
    """The fields of `struct`, at any depth through struct fields, still open."""
    for value in struct.fields.values():
        if type(value) is StructFuture:
            _open_fields(value, out)
        elif not value.closed:
            out.append(value)


def absent_key(array: ArrayFuture, key: Any, where: str = "") -> SwiftRuntimeError:
    return SwiftRuntimeError(f"{where}array '{array.describe()}' has no element [{_key_text(key)}]"
                             " (it was closed without it)")


def _key_text(key: Any) -> str:
    from engine.runtime.builtins.textform import text_form
    return text_form(key)
