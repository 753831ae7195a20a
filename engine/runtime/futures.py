"""Futures: the run-time values of the dataflow program.

Every variable is a future — open until assigned, then closed forever
(Turbine's data store). Scalars are `Future`s; files are `FileFuture`s (a path
that may be known before the file is closed); arrays and structs are
containers that close when their write reference count drops to zero (no
statement may write them any more). Closing a future never runs code
directly: it moves its waiters to their run's ready queue (`Dataflow.ready`),
which keeps recursion shallow and execution first-ready-first.

`Join` waits for several futures at once; a run's `Dataflow` tracks its
pending joins so that a deadlock can be reported with the variables each
waiting statement needs.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Iterable, Optional

from engine.errors import SwiftRuntimeError
from engine.lang import ir

Callback = Callable[[], None]

class Dataflow:
    """One run's scheduling of dataflow: what is ready to run, and what still waits."""

    __slots__ = ("ready", "pending")

    def __init__(self) -> None:
        self.ready: deque[Callback] = deque()  # run first-ready-first by the engine's loop
        self.pending: dict[int, Join] = {}  # joins still waiting, for deadlock reports

    def when_closed(self, items: Iterable[Any], callback: Callback, node: Optional[ir.Node] = None) -> None:
        """Run `callback` once every future/container in `items` is closed."""
        waiting = tuple(x for x in items if not x.closed)
        if not waiting:
            self.ready.append(callback)
            return
        join = Join(self, len(waiting), callback, node, waiting)
        for x in waiting:
            x.add_waiter(join)

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


class Waitable:
    """Something statements wait for: it closes once, then wakes its waiters."""

    __slots__ = ("closed", "waiters", "name")

    def add_waiter(self, join: Join) -> None:
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
        self.waiters: Optional[list[Join]] = None
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
    """Base of arrays and structs: closes when the write count drops to zero."""

    __slots__ = ("writers", "children")

    def __init__(self, name: str, writers: int = 0) -> None:
        self.writers = writers
        self.closed = False
        self.waiters: Optional[list[Join]] = None
        self.name = name
        # Sub-containers created implicitly (A[i][j] = ..., struct fields): they
        # have no writers of their own and close with their parent.
        self.children: Optional[list[Container]] = None

    def incr(self, n: int = 1) -> None:
        if self.closed:
            raise SwiftRuntimeError(f"internal error: write to closed '{self.name}' (please report)")
        self.writers += n

    def decr(self, n: int = 1) -> None:
        self.writers -= n
        if self.writers == 0:
            self.close()

    def close(self) -> None:
        self.closed = True
        if self.children:
            # A child with writers of its own (a field assigned whole) closes by itself.
            for child in self.children:
                if not child.closed and child.writers == 0:
                    child.close()
        self._wake()

    def adopt(self, child: "Container") -> None:
        if self.children is None:
            self.children = [child]
        else:
            self.children.append(child)

    def describe(self) -> str:
        return self.name or "a temporary array"


class ArrayFuture(Container):
    """An array: key → element (a Future, FileFuture or container)."""

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

    def assign_whole(self, elems: dict[Any, Any]) -> None:
        """`A = B`: take B's elements; an array already written by element is a double assignment."""
        if self.elems or self.whole:
            raise SwiftRuntimeError(f"double assignment: '{self.describe()}' is assigned as a whole"
                                    " and by element (or twice)")
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

    def close(self) -> None:
        super().close()
        if self.key_waiters:
            key, waiters = next(iter(self.key_waiters.items()))
            raise absent_key(self, key, waiters[0][1])


class StructFuture(Container):
    """A struct value: field name → element, all created up front."""

    __slots__ = ("fields",)

    def __init__(self, name: str = "", writers: int = 0) -> None:
        super().__init__(name, writers)
        self.fields: dict[str, Any] = {}


def absent_key(array: ArrayFuture, key: Any, where: str = "") -> SwiftRuntimeError:
    return SwiftRuntimeError(f"{where}array '{array.describe()}' has no element [{_key_text(key)}]"
                             " (it was closed without it)")


def _key_text(key: Any) -> str:
    from engine.runtime.builtins.textform import text_form
    return text_form(key)
