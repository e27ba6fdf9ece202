"""The running event loop, found without a system call.

On CPython 3.11 every ``asyncio.get_running_loop()`` (and so ``asyncio.current_task()``)
calls ``getpid()``, a system call, to notice a fork. The hot paths ask for the loop once
or twice per request; :func:`running_loop` answers from a per-thread memo instead: a
loop found running in this thread earlier and still running is the running one (a thread
runs one loop at a time), and a forked child forgets the memo (as 3.12's asyncio does).
"""

from __future__ import annotations

import asyncio
import os
import threading

__all__ = ["running_loop"]


class _Memo(threading.local):
    loop: asyncio.AbstractEventLoop | None = None


_memo = _Memo()


def running_loop() -> asyncio.AbstractEventLoop:
    """``asyncio.get_running_loop()``: the loop running in this thread (RuntimeError when
    none runs)."""
    loop = _memo.loop
    if loop is not None and loop.is_running():
        return loop
    loop = _memo.loop = asyncio.get_running_loop()
    return loop


def _forget() -> None:
    _memo.loop = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget)
