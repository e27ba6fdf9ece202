"""Running a coroutine eagerly: step it at once, and only if it waits go on awaiting it.

Python 3.12's eager tasks do this for tasks; mcpkit runs on 3.11 too, and uses it for plain
awaits as well. The caller runs a coroutine up to its first suspension itself
(``coro.send(None)``, outside any ``await``): when it finished there (``StopIteration``),
its value is at hand with no timer, task or loop turn spent on it. When it suspended,
:class:`Resume` continues it inside the awaiting task (under that task's timeouts and
cancellation), from where it stopped.

Used by the session engine (a request whose handler cannot suspend is served inline) and by
the HTTP server (a request body that has already arrived is read without arming the body
timeout).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Generator
from typing import Any, Generic, TypeVar

__all__ = ["Handoff", "Resume", "resume"]

T = TypeVar("T")


class Handoff(asyncio.Future[T]):
    """A future whose producer, having settled it on the loop thread, calls :attr:`then`
    (when set) with it at once: a coroutine started outside any task and waiting on it is
    then continued in place (no task, no loop turn for its wake-up). Whoever sets
    :attr:`then` drives the waiting coroutine; setting it back to None before the future
    is settled hands the coroutine to a task instead (:func:`resume`).

    The worker pool of sync handlers (:mod:`mcpkit.server.offload`) settles its results
    with these; the session engine continues a request served inline this way."""

    #: Called with the future right after it is settled (set on the loop thread).
    then: Callable[[asyncio.Future[T]], None] | None = None


class Resume(Generic[T]):
    """Hands the future a started coroutine waits on to the task awaiting this, then passes
    the task's sends and throws (cancellation) on to that coroutine; its value is the
    coroutine's."""

    __slots__ = ("coro", "waiting_on")

    def __init__(self, coro: Coroutine[Any, Any, T], waiting_on: Any) -> None:
        self.coro = coro
        self.waiting_on = waiting_on

    def __await__(self) -> Generator[Any, Any, T]:
        coro, waiting_on = self.coro, self.waiting_on
        self.waiting_on = None
        while True:
            try:
                sent = yield waiting_on
            except BaseException as exc:
                try:
                    waiting_on = coro.throw(exc)
                except StopIteration as stop:
                    return stop.value  # type: ignore[no-any-return]
            else:
                try:
                    waiting_on = coro.send(sent)
                except StopIteration as stop:
                    return stop.value  # type: ignore[no-any-return]


async def resume(coro: Coroutine[Any, Any, T], waiting_on: Any) -> T:
    """Drive ``coro``, started outside any task and now waiting on ``waiting_on``, to its
    end inside the task awaiting this (a task's own coroutine, for ``create_task``)."""
    return await Resume(coro, waiting_on)
