"""Calling a user's function, one way for every feature (tools, prompts, resources and
templates, completions).

An ``async def`` function (or an object whose ``__call__`` is one) is awaited on the event
loop. Anything else runs in the server's bounded worker pool
(:class:`~mcpkit.server.offload.Offloader`) so it cannot block the loop; if it returns an
awaitable (a sync function handing back a coroutine), that is awaited too.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from mcpkit.server.offload import WorkerPool, run_sync

__all__ = ["UserFunction", "is_async_callable"]


def is_async_callable(fn: Callable[..., Any]) -> bool:
    """True for an ``async def`` function or an object with an ``async def __call__``."""
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(fn, "__call__", None)  # noqa: B004
    return call is not None and inspect.iscoroutinefunction(call)


class UserFunction:
    """A user's function, told once whether it is async, then called with :meth:`call`."""

    __slots__ = ("fn", "is_async")

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        #: Awaited on the loop (True) or run in the worker pool (False).
        self.is_async = is_async_callable(fn)

    async def call(self, workers: WorkerPool, /, *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)``: awaited when async, else in ``workers`` (started only
        then, so a server whose functions are all async never starts a thread)."""
        if self.is_async:
            return await self.fn(*args, **kwargs)
        value = await run_sync(workers.executor, functools.partial(self.fn, *args, **kwargs))
        if inspect.isawaitable(value):
            value = await value
        return value
