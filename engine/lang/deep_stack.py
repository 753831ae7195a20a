"""Room for the compiler's recursive passes on deeply nested programs.

The checker and the AST passes recurse once per level of nesting (blocks,
`if`s, operators). Python's default limit of 1000 levels, and the main
thread's 8 MiB C stack, would turn an ordinary long expression (`1 + 1 + ...`
with 500 terms) into a crash. The compiler therefore runs in a thread of its
own with a large stack and a raised recursion limit; a program deeper than
even that is a compile error, never a traceback.
"""

from __future__ import annotations

import sys
import threading
from typing import Callable, TypeVar

T = TypeVar("T")

STACK_BYTES = 1 << 30          # reserved, not committed: pages are touched only as deep as the program goes
RECURSION_LIMIT = 100_000      # about 10 KiB of C stack per level at worst


def call_with_deep_stack(fn: Callable[[], T]) -> T:
    """Return `fn()`, run in a thread with a large stack; its exception is re-raised here."""
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = fn()
        except BaseException as error:  # noqa: BLE001 - handed back to the caller's thread
            outcome["error"] = error

    old_limit = sys.getrecursionlimit()
    old_size = threading.stack_size(STACK_BYTES)
    sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
    try:
        thread = threading.Thread(target=target, name="swiftcloud-compile")
        thread.start()
    finally:
        threading.stack_size(old_size)
    try:
        thread.join()
    finally:
        sys.setrecursionlimit(old_limit)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
