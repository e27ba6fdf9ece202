"""Calling a user's function, one way for every feature (tools, prompts, resources and
templates, completions).

An ``async def`` function (or an object whose ``__call__`` is one) is awaited on the event
loop. Anything else runs in the server's bounded worker pool
(:class:`~mcpkit.server.offload.Offloader`) so it cannot block the loop; if it returns an
awaitable (a sync function handing back a coroutine), that is awaited too.

An ``async def`` function whose own body never suspends (no ``await``, ``async with`` or
``async for``: :func:`never_suspends`) is marked so; the session engine may then run the
request it serves to completion inline, without a task of its own (as Python 3.12's eager
tasks do), since nothing in it can wait.
"""

from __future__ import annotations

import asyncio
import contextvars
import dis
import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Final

from mcpkit.server.offload import WorkerPool

__all__ = ["PLAIN_TYPES", "UserFunction", "awaited", "is_async_callable", "never_suspends"]

#: The instructions a coroutine suspends at (``await``, ``async with``, ``async for``).
_SUSPENDING: Final = frozenset(
    {"YIELD_VALUE", "SEND", "GET_AWAITABLE", "BEFORE_ASYNC_WITH", "GET_AITER", "GET_ANEXT"}
)


#: Types of the values sync functions usually return, none of them awaitable (the check
#: for one is skipped).
PLAIN_TYPES: Final = frozenset({str, dict, list, int, float, bool, type(None), bytes, tuple})


def is_async_callable(fn: Callable[..., Any]) -> bool:
    """True for an ``async def`` function or an object with an ``async def __call__``."""
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(fn, "__call__", None)  # noqa: B004
    return call is not None and inspect.iscoroutinefunction(call)


def never_suspends(fn: Callable[..., Any]) -> bool:
    """True for an ``async def`` function (not a wrapper object) whose own code has no
    suspension point: calling it runs to its end at the first ``send``."""
    if not inspect.isfunction(fn) or not inspect.iscoroutinefunction(fn):
        return False
    if getattr(fn, "_mcpkit_never_suspends", False):  # a wrapper that says so of itself
        return True
    return not any(i.opname in _SUSPENDING for i in dis.get_instructions(fn.__code__))


class UserFunction:
    """A user's function, told once whether it is async, then called with :meth:`call`."""

    __slots__ = ("fn", "is_async", "never_suspends")

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        #: Awaited on the loop (True) or run in the worker pool (False).
        self.is_async = is_async_callable(fn)
        #: An ``async def`` that cannot suspend (see :func:`never_suspends`).
        self.never_suspends = self.is_async and never_suspends(fn)

    async def call(self, workers: WorkerPool, /, *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)``: awaited when async, else in ``workers`` (started only
        then, so a server whose functions are all async never starts a thread)."""
        if self.is_async:
            return await self.fn(*args, **kwargs)
        # Run in a copy of the current context (what run_sync does, one call less).
        run = contextvars.copy_context().run
        if args:
            call = functools.partial(run, self.fn, *args, **kwargs)
            value = await workers.start_call(call, None, None)
        else:
            value = await workers.start_call(run, self.fn, kwargs)
        if type(value) not in PLAIN_TYPES and inspect.isawaitable(value):
            value = await awaited(value)
        return value


async def awaited(value: Awaitable[Any]) -> Any:
    """What a sync function handed back as an awaitable, awaited: in a task when the
    caller runs with none (continued in place by the pool's Handoff, a request served
    inline), as an awaited coroutine may expect (asyncio.timeout, cancel scopes)."""
    if asyncio.current_task() is None:
        return await asyncio.ensure_future(value)
    return await value
