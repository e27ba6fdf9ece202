"""A thread pool built for one job: run a sync handler off the event loop and resume the
awaiting coroutine, cheaply.

``loop.run_in_executor`` on a :class:`~concurrent.futures.ThreadPoolExecutor` costs a
``concurrent.futures.Future`` (a ``Condition`` and an ``RLock``), a semaphore, a chained
asyncio future and one self-pipe write per call. :class:`Offloader` hands work over through
a C ``SimpleQueue`` and hands results back through a per-loop mailbox: the first result of a
burst wakes the loop (one write to the mailbox's ``eventfd``), every result that arrives
before the loop drains the mailbox rides along with it. Under load (many calls in flight)
that is one wake-up of the loop per burst instead of one per call; the drain continues
what waits on each result in place (:meth:`~mcpkit.eager.Handoff.settle`).

The run of a quick function is not handed back at all: while the loop has no callback ready
and no other run is in flight, the loop thread waits for it in place (the GIL released) for
at most :attr:`Offloader.inline_wait` and goes on with its outcome, with no wake-up or loop
turn; a function whose run outlasted that wait is handed back as above for its next calls
(:meth:`Offloader.start_call`), so a blocking function holds the loop at most that long,
once per backoff.

It is still a regular :class:`~concurrent.futures.Executor` (``submit``/``shutdown``), so
anything that expects one keeps working; :func:`run_sync` is the fast path.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import contextvars
import functools
import itertools
import logging
import os
import queue
import sys
import threading
import weakref
from _thread import allocate_lock as _allocate_lock
from asyncio import get_running_loop
from collections.abc import Awaitable, Callable, Generator
from concurrent.futures import Executor
from typing import Any, Final, Generic, TypeVar

from mcpkit.eager import Handoff

__all__ = ["Offloader", "WorkerPool", "run_sync"]

T = TypeVar("T")

logger = logging.getLogger("mcpkit.server")

_names = itertools.count()


class _Mailbox:
    """Results travelling from worker threads back to one event loop.

    The loop is woken through a descriptor of the mailbox's own (an ``eventfd``, else a
    pipe) that the loop watches with ``add_reader``: one write from the worker, one read
    and the drain on the loop, with no callback handle made per wake-up and no read that
    ends in an exception (the loop's own self-pipe reads until one). A loop without
    ``add_reader`` is woken with ``call_soon_threadsafe``."""

    __slots__ = ("__weakref__", "_rfd", "_wfd", "items", "loop", "ready", "scheduled")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        #: The loop, held weakly: the pool keeps its mailboxes by loop in a weak mapping,
        #: so a mailbox must not keep its loop (and its descriptor) alive.
        self.loop = weakref.ref(loop)
        self.items: collections.deque[tuple[Handoff[Any], bool, Any]] = collections.deque()
        self.scheduled = False
        #: The loop's queue of callbacks ready to run: a run is waited for in place only
        #: while it is empty (:meth:`Offloader.start_call`). A loop that does not show its
        #: queue (uvloop's) gets an empty one: there the wait's other bounds hold alone
        #: (one run in flight, a quick function, at most ``inline_wait``).
        ready = getattr(loop, "_ready", None)
        self.ready: collections.deque[Any] = (
            ready if isinstance(ready, collections.deque) else collections.deque()
        )
        self._rfd = self._wfd = -1
        self._watch(loop)

    def _watch(self, loop: asyncio.AbstractEventLoop) -> None:
        """Loop thread: open the wake-up descriptor and watch it (when the loop can)."""
        eventfd = getattr(os, "eventfd", None)
        if eventfd is not None:
            rfd = wfd = eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
            fds: tuple[int, ...] = (rfd,)
        else:
            rfd, wfd = os.pipe()
            os.set_blocking(rfd, False)
            os.set_blocking(wfd, False)
            fds = (rfd, wfd)
        try:
            loop.add_reader(rfd, self.deliver)
        except (NotImplementedError, AttributeError):  # e.g. the proactor loop on Windows
            for fd in fds:
                os.close(fd)
            return
        self._rfd, self._wfd = rfd, wfd
        weakref.finalize(self, _close, fds)

    def post(self, fut: Handoff[Any], ok: bool, value: Any) -> None:
        """Worker thread: queue one outcome, waking the loop only if no wake-up is pending."""
        self.items.append((fut, ok, value))
        # The loop clears ``scheduled`` *before* it drains: if we still see True here, the
        # drain that is due has not started yet and will find our item.
        if not self.scheduled:
            self.wake()

    def wake(self) -> None:
        """Worker thread: have the loop drain the mailbox (an item was just queued and no
        drain is due)."""
        self.scheduled = True
        wfd = self._wfd
        if wfd >= 0:
            # (to a loop closed meanwhile too: its mailbox and what it holds go with it)
            try:
                os.write(wfd, _ONE)
            except BlockingIOError:  # a pipe full of wake-ups: the loop is woken already
                pass
            except OSError:  # closed with its loop
                self.items.clear()
            return
        loop = self.loop()
        try:
            if loop is None:
                raise RuntimeError("the loop is gone")
            loop.call_soon_threadsafe(self.deliver)
        except RuntimeError:  # the loop is closed: nobody is waiting any more
            self.items.clear()

    def deliver(self) -> None:
        """Loop thread (the wake-up descriptor is readable, or called soon): empty the
        descriptor, then settle every queued future and continue what waits on it in place
        (:meth:`~mcpkit.eager.Handoff.settle`: no loop turn for the wake-up)."""
        rfd = self._rfd
        if rfd >= 0:
            try:  # noqa: SIM105 (a try costs nothing, contextlib.suppress three calls)
                os.read(rfd, 4096)
            except OSError:  # nothing to read after all (spurious)
                pass
        self.scheduled = False
        items = self.items
        pop = items.popleft
        while items:
            fut, ok, value = pop()
            # fut.settle(ok, value), inline (once per run)
            try:
                if ok:
                    _set_result(fut, value)
                else:
                    _set_exception(fut, value)
            except asyncio.InvalidStateError:  # the awaiting task was cancelled meanwhile
                continue
            except Exception:  # a bug if here
                logger.exception("Continuing after a sync call failed")
                continue
            try:
                then = fut.then
                if then is not None:
                    fut.then = None
                    then(fut)
                else:
                    fut.wake()
            except Exception:  # what waits answers every error itself: a bug if here
                logger.exception("Continuing after a sync call failed")


_set_result = asyncio.Future.set_result
_set_exception = asyncio.Future.set_exception

#: What a worker writes to wake the loop (an ``eventfd`` adds it to its counter).
_ONE: Final = (1).to_bytes(8, sys.byteorder)


def _close(fds: tuple[int, ...]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


#: Seconds the loop waits in place for the run of a quick ``def`` function (see
#: :meth:`Offloader.start_call`): the thread hand-off of a function that returns at once
#: takes tens of microseconds; a loop turn and its wake-up cost more than that.
INLINE_WAIT: Final = 0.001
#: Calls of a function not waited for in place after its first run past the wait (doubled
#: at each further one, up to _MAX_BACKOFF).
_BACKOFF: Final = 8
_MAX_BACKOFF: Final = 1 << 16
#: Functions with a backoff kept (all forgotten past it).
_MAX_BACKOFFS: Final = 4096


class _Waiter(Generic[T]):
    """A run the loop thread waits for in place: its worker stores the outcome and releases
    :attr:`lock`, unless the loop stopped waiting first (the two race for :attr:`claim`'s
    one item); then the worker settles :attr:`handoff` as for any other run. Awaited, it
    gives the outcome without suspending."""

    __slots__ = ("claim", "handoff", "lock", "ok", "value")

    def __init__(self) -> None:
        self.lock = _allocate_lock()
        self.claim: list[None] = [None]
        self.handoff: Handoff[T] | None = None
        self.ok = False
        self.value: Any = None

    def __await__(self) -> Generator[Any, None, T]:
        value = self.value
        self.value = None
        if self.ok:
            return value  # type: ignore[no-any-return]
        raise value
        yield  # pragma: no cover (a generator: awaited without suspending)


# A work item: (run, fn or None, kwargs, Handoff or _Waiter, its mailbox): ``run(fn, **kwargs)``
# (``run()`` without ``fn``) for the loop, or (callable, None, None, concurrent future, None).
_Item = tuple[Callable[..., Any], Any, "dict[str, Any] | None", Any, "_Mailbox | None"]


class Offloader(Executor):
    """A bounded pool of worker threads for sync handlers (threads start on demand)."""

    def __init__(
        self,
        max_workers: int | None = None,
        thread_name_prefix: str = "",
        inline_wait: float = INLINE_WAIT,
    ) -> None:
        if max_workers is None:
            max_workers = min(32, (os.cpu_count() or 1) + 4)
        if max_workers <= 0:
            raise ValueError("max_workers must be greater than 0")
        self._max_workers = max_workers
        self._prefix = thread_name_prefix or f"Offloader-{next(_names)}"
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        # One token per idle worker; deque append/pop are atomic, so no lock on the hot path.
        self._idle: collections.deque[None] = collections.deque()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._shutdown = False
        self._mailboxes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Mailbox] = (
            weakref.WeakKeyDictionary()
        )
        self._last: tuple[asyncio.AbstractEventLoop, _Mailbox] | None = None
        #: Seconds the loop waits in place for a quick function's run (0: never).
        self.inline_wait = inline_wait
        #: function -> [calls left not waited for in place, the next such count]
        self._backoff: dict[Any, list[int]] = {}

    # -- the fast path ---------------------------------------------------------------------------

    def _mailbox(self, loop: asyncio.AbstractEventLoop) -> _Mailbox:
        last = self._last
        if last is not None and last[0] is loop:
            return last[1]
        box = self._mailboxes.get(loop)
        if box is None:
            box = self._mailboxes[loop] = _Mailbox(loop)
        self._last = (loop, box)
        return box

    def start(self, fn: Callable[[], T]) -> Handoff[T]:
        """Run ``fn()`` in a worker thread; a future of the running loop for its outcome
        (a :class:`~mcpkit.eager.Handoff`: its ``then`` is called once it is settled).
        Call from the loop thread."""
        if self._shutdown:
            raise RuntimeError("cannot schedule new work after shutdown")
        loop = asyncio.get_running_loop()
        last = self._last
        box = last[1] if last is not None and last[0] is loop else self._mailbox(loop)
        return self._hand_off(fn, None, None, loop, box)

    def start_call(
        self, run: Callable[..., T], fn: Any, kwargs: dict[str, Any] | None
    ) -> Awaitable[T]:
        """Run ``run(fn, **kwargs)`` (with ``fn`` None: ``run()``) in a worker thread, with
        no closure or partial made for it (``run`` is usually a context's ``run``); an
        awaitable of its outcome. Call from the loop thread.

        While the loop has no callback ready, the run of a function ``fn`` is waited for in
        place for at most :attr:`inline_wait` seconds (the GIL released): a quick function's
        outcome is then at hand with no loop turn, and awaiting it does not suspend. A run
        that takes longer is handed back as usual (a :class:`~mcpkit.eager.Handoff`) and
        its function is not waited for again for a while (8 calls, doubling while it stays
        slow), so a slow or blocking function holds the loop at most once per backoff."""
        if self._shutdown:
            raise RuntimeError("cannot schedule new work after shutdown")
        loop = get_running_loop()
        last = self._last
        box = last[1] if last is not None and last[0] is loop else self._mailbox(loop)
        idle = self._idle
        if (
            fn is not None
            and not box.ready
            and len(idle) >= len(self._threads)
            and self._queue.empty()
            and self.inline_wait > 0.0
        ):
            # the only run in flight (else the loop is woken for the others anyway, and
            # this one could wait its turn behind them)
            backoff = self._backoff.get(fn)
            if backoff is None or backoff[0] <= 0:
                return self._wait_in_place(run, fn, kwargs, loop, box)
            backoff[0] -= 1
        fut: Handoff[T] = Handoff()  # (of the running loop: no keyword to parse)
        self._queue.put((run, fn, kwargs, fut, box))
        # _wake_or_spawn, inline (this runs for every call of a sync function)
        if idle:
            try:
                idle.pop()  # an idle worker will take the item
                return fut
            except IndexError:  # another thread took the last token meanwhile
                pass
        if len(self._threads) < self._max_workers:
            self._spawn()
        return fut

    def _hand_off(
        self,
        run: Callable[..., T],
        fn: Any,
        kwargs: dict[str, Any] | None,
        loop: asyncio.AbstractEventLoop,
        box: _Mailbox,
    ) -> Handoff[T]:
        """Queue the run with a :class:`~mcpkit.eager.Handoff` its worker settles."""
        fut: Handoff[T] = Handoff(loop=loop)
        self._queue.put((run, fn, kwargs, fut, box))
        # _wake_or_spawn, inline (this runs for every call of a sync function)
        idle = self._idle
        if idle:
            try:
                idle.pop()  # an idle worker will take the item
                return fut
            except IndexError:  # another thread took the last token meanwhile
                pass
        if len(self._threads) < self._max_workers:
            self._spawn()
        return fut

    def _wait_in_place(
        self,
        run: Callable[..., T],
        fn: Any,
        kwargs: dict[str, Any] | None,
        loop: asyncio.AbstractEventLoop,
        box: _Mailbox,
    ) -> Awaitable[T]:
        """Queue the run and wait for it here, the loop thread blocked for at most
        :attr:`inline_wait` seconds; past that, a :class:`~mcpkit.eager.Handoff` as usual."""
        spawn = False
        try:
            self._idle.pop()  # an idle worker will take the item
        except IndexError:
            if len(self._threads) >= self._max_workers:  # all busy: it would wait its turn
                return self._hand_off(run, fn, kwargs, loop, box)
            spawn = True
        waiter: _Waiter[T] = _Waiter()
        lock = waiter.lock
        lock.acquire()
        self._queue.put((run, fn, kwargs, waiter, box))
        if spawn:
            self._spawn()
        if not lock.acquire(True, self.inline_wait):
            fut: Handoff[T] = Handoff(loop=loop)
            waiter.handoff = fut  # before giving up the claim: the worker posts to it
            try:
                waiter.claim.pop()
            except IndexError:  # the worker claimed it just now: its outcome is set
                lock.acquire()
            else:  # the worker settles ``fut``; wait less for this function for a while
                backoff = self._backoff.get(fn)
                if backoff is None:
                    if len(self._backoff) >= _MAX_BACKOFFS:
                        self._backoff.clear()
                    self._backoff[fn] = [_BACKOFF, _BACKOFF * 2]
                else:
                    backoff[0] = backoff[1]
                    backoff[1] = min(backoff[1] * 2, _MAX_BACKOFF)
                return fut
        backoff = self._backoff.get(fn)
        if backoff is not None:  # quick again: the next slow run backs off less
            if backoff[1] <= _BACKOFF * 2:
                del self._backoff[fn]
            else:
                backoff[1] //= 2
        return waiter

    # -- Executor --------------------------------------------------------------------------------

    def submit(
        self, fn: Callable[..., T], /, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[T]:
        """:meth:`concurrent.futures.Executor.submit`."""
        if self._shutdown:
            raise RuntimeError("cannot schedule new work after shutdown")
        cf: concurrent.futures.Future[T] = concurrent.futures.Future()
        call = (lambda: fn(*args, **kwargs)) if (args or kwargs) else fn
        self._queue.put((call, None, None, cf, None))
        self._wake_or_spawn()
        return cf

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop the workers once the queued work is done (or cancelled, with ``cancel_futures``)."""
        with self._lock:
            self._shutdown = True
            threads = list(self._threads)
        if cancel_futures:
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    _cancel(item)
        for _ in threads:
            self._queue.put(None)
        if wait:
            for t in threads:
                t.join()

    # -- workers ---------------------------------------------------------------------------------

    def _wake_or_spawn(self) -> None:
        idle = self._idle
        if idle:
            try:
                idle.pop()  # an idle worker will take the item
                return
            except IndexError:  # another thread took the last token meanwhile
                pass
        if len(self._threads) < self._max_workers:
            self._spawn()

    def _spawn(self) -> None:
        with self._lock:
            if self._shutdown or len(self._threads) >= self._max_workers:
                return
            t = threading.Thread(
                target=self._work, name=f"{self._prefix}_{len(self._threads)}", daemon=True
            )
            self._threads.append(t)
        t.start()

    def _work(self) -> None:
        get = self._queue.get
        idle = self._idle
        while True:
            item = get()
            if item is None:
                return
            run, fn, kwargs, fut, box = item
            if box is None:
                if fut.set_running_or_notify_cancel():
                    try:
                        result = run()
                    except BaseException as exc:
                        fut.set_exception(_storable(exc))
                    else:
                        fut.set_result(result)
            else:
                try:
                    ok, value = True, run() if fn is None else run(fn, **kwargs)  # type: ignore[arg-type]
                except BaseException as exc:
                    ok, value = False, _storable(exc)
                if type(fut) is _Waiter:
                    fut.ok = ok
                    fut.value = value
                    try:
                        fut.claim.pop()
                    except IndexError:  # the loop stopped waiting: settle its Handoff
                        fut = fut.handoff
                    else:  # the loop waits on the lock: the outcome is its
                        idle.append(None)
                        fut.lock.release()
                        del item, run, fn, kwargs, fut, box, value
                        continue
                # Idle again before the loop is woken: what the outcome lets the loop do
                # next (another call of a quick function) finds this worker counted free.
                idle.append(None)
                # box.post, inline
                box.items.append((fut, ok, value))
                if not box.scheduled:
                    box.wake()
                del item, run, fn, kwargs, fut, box, value
                continue
            del item, run, fn, kwargs, fut, box
            idle.append(None)


def _storable(exc: BaseException) -> BaseException:
    """What a future can hold for ``exc``: asyncio's futures refuse ``StopIteration`` (it
    would end the coroutine awaiting it), so one is carried as a ``RuntimeError`` caused by
    it, as a coroutine raising it is."""
    if isinstance(exc, StopIteration):
        wrapped = RuntimeError(f"{type(exc).__name__} raised by a sync function")
        wrapped.__cause__ = exc
        return wrapped
    return exc


def _cancel(item: _Item) -> None:
    fut, box = item[3], item[4]
    if type(fut) is _Waiter:
        try:
            fut.claim.pop()
        except IndexError:  # the loop stopped waiting: cancel its Handoff
            handoff = fut.handoff
            if handoff is not None:  # (set before the loop gives up its claim)
                with contextlib.suppress(RuntimeError):
                    handoff.get_loop().call_soon_threadsafe(_cancel_handoff, handoff)
        else:  # the loop waits on the lock: wake it with the cancellation
            fut.value = asyncio.CancelledError()
            fut.lock.release()
    elif box is None:
        fut.cancel()
    else:
        with contextlib.suppress(RuntimeError):
            fut.get_loop().call_soon_threadsafe(_cancel_handoff, fut)


def _cancel_handoff(fut: Handoff[Any]) -> None:
    """Loop thread: cancel ``fut`` (what waits on it sees the cancellation)."""
    fut.cancel()


async def run_sync(executor: Executor, fn: Callable[[], T]) -> T:
    """Run the sync ``fn`` in ``executor`` (in a copy of the current context) and return its
    result without blocking the loop."""
    call: Callable[[], T] = functools.partial(contextvars.copy_context().run, fn)
    if type(executor) is Offloader:
        return await executor.start(call)
    return await asyncio.get_running_loop().run_in_executor(executor, call)


class WorkerPool:
    """The sync-handler pool of one server: an :class:`Offloader` started on first use and
    dropped by :meth:`shutdown` (the next use starts a fresh one)."""

    __slots__ = ("_executor", "inline_wait", "max_workers", "start_call", "thread_name_prefix")

    def __init__(
        self,
        max_workers: int | None = None,
        thread_name_prefix: str = "",
        inline_wait: float = INLINE_WAIT,
    ) -> None:
        if max_workers is None:
            max_workers = min(32, (os.cpu_count() or 1) + 4)
        self.max_workers = max_workers
        self.thread_name_prefix = thread_name_prefix
        #: :attr:`Offloader.inline_wait` of the executors this starts.
        self.inline_wait = inline_wait
        self._executor: Offloader | None = None
        #: :meth:`Offloader.start_call` of the running executor (one call, no lookup of
        #: it on the hot path); until there is one, starts it first.
        self.start_call: Callable[[Callable[..., Any], Any, dict[str, Any] | None], Awaitable[Any]]
        self.start_call = self._start_first

    def _start_first(
        self, run: Callable[..., Any], fn: Any, kwargs: dict[str, Any] | None
    ) -> Awaitable[Any]:
        return self.executor.start_call(run, fn, kwargs)

    @property
    def executor(self) -> Offloader:
        """The pool's executor (started now if it is not running)."""
        executor = self._executor
        if executor is None:
            executor = self._executor = Offloader(
                self.max_workers, self.thread_name_prefix, self.inline_wait
            )
            self.start_call = executor.start_call
        return executor

    @property
    def started(self) -> bool:
        """True while an executor is running (something sync was called since the start
        or the last :meth:`shutdown`)."""
        return self._executor is not None

    def shutdown(self) -> None:
        """Stop the workers without waiting; queued work is cancelled."""
        executor = self._executor
        self._executor = None
        self.start_call = self._start_first
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
