"""Making, reading and linking run-time values.

- `new_value(type)` creates the future for a variable of a static type;
- `when_deep_closed` waits until a value and everything inside it is closed;
- `to_python` turns a closed value into plain Python data for builtins;
- `from_python` turns a builtin's result back into futures;
- `ValueOps` does what waits or touches files, for one run (its dataflow and
  file layer): `when_deep_closed`, `resolve` a reference, `deliver` a builtin's
  result, `place_file`, and `link`, which makes one value the copy of another
  once that one is closed (scalars are set, files shared or copied, arrays
  copied element-wise) — or, for a struct, field by field as each closes
  (`copy_struct`).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional

from engine.errors import SwiftRuntimeError
from engine.lang import ir
from engine.lang.types import FILE, FLOAT, URL, ArrayType, StructType, Type, base_of
from engine.runtime.futures import ArrayFuture, Container, Dataflow, FileFuture, Future, StructFuture, UrlFuture

Callback = Callable[[], None]


def new_value(t: Type, name: str = "", mapped: bool = False, owned: bool = True) -> Any:
    """A fresh open value of type `t`. Containers start with one write reference
    (the creator's) when `owned`; otherwise none (they close with a parent)."""
    bt = base_of(t)
    if isinstance(bt, ArrayType):
        return ArrayFuture(name, 1 if owned else 0)
    if isinstance(bt, StructType):
        s = StructFuture(name, 1 if owned else 0)
        for fname, ftype in bt.fields.items():
            child = new_value(ftype, f"{name}.{fname}", owned=False)
            s.fields[fname] = child
            if isinstance(child, Container):
                s.adopt(child)
        return s
    if t is URL:  # identity: one object stands for the type (types.LIBRARY_TYPES)
        return UrlFuture(name, mapped=mapped)
    if bt == FILE:
        return FileFuture(name, mapped=mapped)
    return Future(name)


def is_container_type(t: Type) -> bool:
    return isinstance(base_of(t), (ArrayType, StructType))


class ValueOps:
    """What moves values between futures in one run: it waits in the run's dataflow and
    puts files in the run's file layer (`engine.runtime.store`)."""

    def __init__(self, flow: Dataflow, files: Any) -> None:
        self.flow = flow
        self.files = files

    def resolve(self, handle: Any, t: Type, callback: Callable[[Any], None], node: Optional[ir.Node] = None) -> None:
        """Call `callback(value)` with the container behind a container-typed handle,
        which may be a reference future (an element not inserted yet)."""
        if is_container_type(t) and type(handle) is Future:
            self.flow.when_closed((handle,), lambda: callback(handle.value), node)
        else:
            callback(handle)

    def when_deep_closed(self, items: list[Any], callback: Callback, node: Optional[ir.Node] = None) -> None:
        """Run `callback` once every item and all it contains are closed."""
        def step() -> None:
            pending: list[Any] = []
            for item in items:
                _open_parts(item, pending)
            if pending:
                self.flow.when_closed(pending, step, node)
            else:
                callback()
        step()

    def deliver(self, value: Any, dest: Any, t: Type, fresh_files: set[str]) -> None:
        """Store a builtin's result into `dest` and release the producer's write reference.

        A file result is either a local file the builtin just wrote (in
        `fresh_files`: it is moved into the run's file layer) or the path of an
        existing file (`input_file`, `glob`)."""
        bt = base_of(t)
        if isinstance(dest, ArrayFuture):
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for k, v in items:
                dest.insert(k, from_python(v, bt.elem))
            dest.decr()
        elif isinstance(dest, FileFuture):
            fresh = value in fresh_files
            self.place_file(value, dest, local=fresh)
        elif isinstance(dest, StructFuture):
            raise SwiftRuntimeError("internal error: library function returned a struct (please report)")
        elif bt == FLOAT and isinstance(value, int) and not isinstance(value, bool):
            dest.set(float(value))  # one impl serves int and float overloads (e.g. sum of [])
        else:
            dest.set(value)

    def place_file(self, src: str, dest: FileFuture, local: bool = False, done: Optional[Callback] = None) -> None:
        """Make `dest` hold the file `src`: a path in the run's file layer, or
        (`local`) a local file just written, which is moved in.

        An unmapped `dest` shares the source's path; a mapped one gets a copy at
        its own path (atomically: the store or a temp name + rename)."""
        files = self.files
        if not dest.mapped:
            if local and files.mode != "posix":
                path = files.new_temp()
                files.publish(src, path, move=True)
                src = path
            dest.close_at(src)
            if done:
                done()
            return

        if isinstance(dest, UrlFuture):
            raise SwiftRuntimeError(f"cannot assign to the mapped url '{dest.describe()}': a url names a"
                                    " remote object")

        def finish() -> None:
            assert dest.path is not None
            if local:
                files.publish(src, dest.path, move=True)
            elif dest.path != src:
                files.copy(src, dest.path)
            dest.set(dest.path)
            if done:
                done()
        self.flow.when_path_known((dest,), finish)

    def link(self, src: Any, dest: Any, t: Type, done: Optional[Callback] = None,
             node: Optional[ir.Node] = None) -> None:
        """`dest = src`: make `dest` a copy of `src` once it is closed (a struct: each
        field once it is closed, see `copy_struct`).

        A container `dest` loses one write reference (the assigning statement's) once
        the copy may write it no more: an array when it is copied, a struct at once."""
        if isinstance(dest, Container):
            self.resolve(src, t, lambda container: self._copy_container(container, dest, t, done, node), node)
            return
        if isinstance(dest, FileFuture):
            self.flow.when_closed((src,), lambda: self.place_file(src.value, dest, done=done), node)
            return
        if src.closed:
            dest.set(src.value)
            if done:
                done()
            return

        def copy_scalar() -> None:
            dest.set(src.value)
            if done:
                done()
        self.flow.when_closed((src,), copy_scalar, node)

    def _copy_container(self, src: Container, dest: Container, t: Type, done: Optional[Callback],
                        node: Optional[ir.Node]) -> None:
        if isinstance(src, StructFuture):
            assert isinstance(dest, StructFuture)
            self.copy_struct(src, dest, done)
            return

        def copy_array() -> None:
            assert isinstance(src, ArrayFuture) and isinstance(dest, ArrayFuture)
            dest.assign_whole(src.elems)
            dest.decr()
            if done:
                done()
        self.flow.when_closed((src,), copy_array, node)

    def copy_struct(self, src: StructFuture, dest: StructFuture, done: Optional[Callback] = None) -> None:
        """`dest = src` for structs (§13): every field of `dest`, at any depth, takes the
        value of its field in `src` as that one closes, never waiting for the others.

        A field that never closes is never passed on, and that is no deadlock unless
        something reads it (`Dataflow.forward`). The assigning statement's write
        reference on `dest` is released at once: an array field holds one of its own
        until it is copied. `done` runs once every field has been passed on."""
        pending = _Pending(done)
        self._pass_fields(src, dest, pending)
        dest.decr()
        pending.one()

    def _pass_fields(self, src: StructFuture, dest: StructFuture, pending: "_Pending") -> None:
        for name, value in src.fields.items():
            target = dest.fields[name]
            kind = type(target)
            if kind is StructFuture:
                self._pass_fields(value, target, pending)
            elif kind is ArrayFuture:
                target.expect_whole()  # so that it does not close with `dest` before it is copied
                if value.closed:
                    _pass_array(value, target)
                else:
                    pending.left += 1
                    self.flow.forward(value, functools.partial(self._pass_later, value, target, pending))
            elif value.closed:
                self._pass_value(value, target)
            else:
                pending.left += 1
                self.flow.forward(value, functools.partial(self._pass_later, value, target, pending))

    def _pass_later(self, src: Any, dest: Any, pending: "_Pending") -> None:
        """Pass on a field that has just closed (what `_pass_fields` forwards)."""
        if type(dest) is ArrayFuture:
            _pass_array(src, dest)
        else:
            self._pass_value(src, dest)
        pending.one()

    def _pass_value(self, src: Future, dest: Future) -> None:
        """A closed scalar or file field into the same field of another struct."""
        if isinstance(dest, FileFuture):
            self.place_file(src.value, dest)  # a struct's file fields are never mapped: no wait
        else:
            dest.set(src.value)


class _Pending:
    """Counts the fields a struct copy has still to pass on; runs `done` after the last."""

    __slots__ = ("left", "done")

    def __init__(self, done: Optional[Callback]) -> None:
        self.left = 1  # the copy's own setting up, counted down when it is over
        self.done = done

    def one(self) -> None:
        self.left -= 1
        if self.left == 0 and self.done is not None:
            self.done()


def _pass_array(src: ArrayFuture, dest: ArrayFuture) -> None:
    """A closed array field into the same field of another struct, which then closes."""
    dest.assign_whole(src.elems)
    dest.decr()


def _open_parts(obj: Any, out: list[Any]) -> None:
    if type(obj) is Future and isinstance(obj.value, Container):
        obj = obj.value
    if type(obj) is StructFuture:  # closed when its fields are (§13): wait for them, not for it
        for elem in obj.fields.values():
            _open_parts(elem, out)
        return
    if not obj.closed:
        out.append(obj)
        return
    if isinstance(obj, ArrayFuture):
        for elem in obj.elems.values():
            _open_parts(elem, out)


def to_python(obj: Any, shallow: bool = False) -> Any:
    """Plain data of a (deeply) closed value; `shallow` keeps only array keys."""
    if type(obj) is Future and isinstance(obj.value, Container):
        obj = obj.value
    if isinstance(obj, ArrayFuture):
        if shallow:
            return dict.fromkeys(obj.elems)
        return {k: to_python(v) for k, v in obj.elems.items()}
    if isinstance(obj, StructFuture):
        return {k: to_python(v) for k, v in obj.fields.items()}
    return obj.value


def from_python(value: Any, t: Type, name: str = "") -> Any:
    """A closed value of type `t` holding `value` (files: an existing path)."""
    bt = base_of(t)
    if isinstance(bt, ArrayType):
        arr = ArrayFuture(name)
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for k, v in items:
            arr.elems[k] = from_python(v, bt.elem)
        arr.closed = True
        return arr
    if bt == FILE:
        f = FileFuture(name, path=value)
        f.value, f.closed = value, True
        return f
    return Future.of(value, name)


