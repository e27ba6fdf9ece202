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
from contextvars import Context
from typing import Any, Generic, Self, TypeVar

__all__ = ["Handoff", "Resume", "resume"]

T = TypeVar("T")


class Handoff(asyncio.Future[T]):
    """A future its producer settles on the loop thread with :meth:`settle`, which then
    continues what waits on it at once, with no loop turn for the wake-up:

    - :attr:`then`, when set: a coroutine started outside any task and waiting on the
      future is continued in place (no task at all). Whoever sets :attr:`then` drives
      the waiting coroutine; setting it back to None before the future is settled hands
      the coroutine to a task instead (:func:`resume`);
    - else the first callback added (the wake-up of the task awaiting the future) runs
      right there, in its context, instead of being scheduled for the next loop turn
      (other callbacks are scheduled as usual).

    The worker pool of sync handlers (:mod:`mcpkit.server.offload`) settles its results
    with these; the session engine continues a request served inline this way."""

    #: Called with the future right after it is settled (set on the loop thread).
    then: Callable[[asyncio.Future[T]], None] | None = None
    #: The first callback added and its context, kept out of the future's own list.
    _waiter: tuple[Callable[[Any], object], Context | None] | None = None

    def add_done_callback(
        self, fn: Callable[[Self], object], /, *, context: Context | None = None
    ) -> None:
        """:meth:`asyncio.Future.add_done_callback`; the first one is kept apart, to run
        in place when :meth:`settle` settles the future."""
        if self._waiter is None and not self.done():
            self._waiter = (fn, context)
        else:
            super().add_done_callback(fn, context=context)

    def remove_done_callback(self, fn: Callable[[Self], object], /) -> int:
        """:meth:`asyncio.Future.remove_done_callback`."""
        removed = super().remove_done_callback(fn)
        waiter = self._waiter
        if waiter is not None and waiter[0] == fn:
            self._waiter = None
            removed += 1
        return removed

    def settle(self, ok: bool, value: Any) -> None:
        """Loop thread: set the result (``ok``) or the exception ``value``, then continue
        what waits (:attr:`then`, else the first callback) in place."""
        if ok:
            asyncio.Future.set_result(self, value)
        else:
            asyncio.Future.set_exception(self, value)
        then = self.then
        if then is not None:
            self.then = None
            then(self)
        else:
            self.wake()

    def wake(self) -> None:
        """Loop thread, the future just settled: continue what waits on it (the first
        callback added) in place."""
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            fn, context = waiter
            if context is None:
                fn(self)
            else:
                context.run(fn, self)

    def set_result(self, result: T, /) -> None:
        """:meth:`asyncio.Future.set_result` (what waits is woken on the next loop turn)."""
        super().set_result(result)
        self._schedule_waiter()

    def set_exception(self, exception: type | BaseException, /) -> None:
        """:meth:`asyncio.Future.set_exception` (what waits is woken on the next loop turn)."""
        super().set_exception(exception)
        self._schedule_waiter()

    def cancel(self, msg: Any | None = None) -> bool:
        """:meth:`asyncio.Future.cancel`; a :attr:`then` is called at once (it sees the
        cancellation), the first callback on the next loop turn as the others."""
        if not super().cancel(msg):
            return False
        self._schedule_waiter()
        then = self.then
        if then is not None:
            self.then = None
            then(self)
        return True

    def _schedule_waiter(self) -> None:
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            self.get_loop().call_soon(waiter[0], self, context=waiter[1])


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
