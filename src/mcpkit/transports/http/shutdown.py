"""Ending open SSE streams when the process is asked to stop.

An ASGI server (uvicorn) waits for open responses to finish before it runs the lifespan
shutdown, and an SSE stream never finishes by itself: without help a held GET stream stalls
every Ctrl-C until the server's graceful timeout. Two hooks end the streams as soon as a stop
begins: :func:`watch_signals` chains a handler in front of whatever handles SIGINT/SIGTERM
(uvicorn's own, when an app is mounted in a host application the user serves), and
:mod:`mcpkit.transports.http.serve` calls :meth:`StreamCloser.close_streams` when its server
starts shutting down.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
import time
import weakref
from collections.abc import Callable
from types import FrameType
from typing import Any, Protocol, runtime_checkable

__all__ = ["StreamCloser", "watch_signals"]


@runtime_checkable
class StreamCloser(Protocol):
    """An app whose open streams can be ended at shutdown (new ones end at once too)."""

    def close_streams(self) -> None: ...


_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: Each watched app: the loop it serves on, and when the handlers were last looked at.
_apps: weakref.WeakKeyDictionary[StreamCloser, tuple[asyncio.AbstractEventLoop, float]] = (
    weakref.WeakKeyDictionary()
)
_previous: dict[int, Callable[[int, FrameType | None], Any]] = {}
#: Seconds between two looks at the installed handlers for one app (``signal.getsignal``
#: costs several µs for a Python handler: every stream of a busy server would pay it).
_RECHECK = 1.0


def _hook(signum: int, frame: FrameType | None) -> None:
    for app, (loop, _) in list(_apps.items()):
        with contextlib.suppress(RuntimeError):  # that loop is closed
            loop.call_soon_threadsafe(app.close_streams)
    previous = _previous.get(signum)
    if previous is not None:
        previous(signum, frame)


def watch_signals(app: StreamCloser) -> None:
    """Have SIGINT and SIGTERM end ``app``'s streams, then run the handler already installed.

    Only a Python-level handler is chained (a default or ignored disposition is left alone:
    the process then dies at once or not at all, and nothing waits for streams). Cheap to
    call repeatedly (the handlers are looked at again at most once a second per app); a
    no-op off the main thread.
    """
    loop = asyncio.get_running_loop()
    now = time.monotonic()
    seen = _apps.get(app)
    if seen is not None and seen[0] is loop and now - seen[1] < _RECHECK:
        return
    _apps[app] = (loop, now)
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in _SIGNALS:
        current = signal.getsignal(signum)
        if current is _hook or not callable(current):
            continue
        _previous[signum] = current
        signal.signal(signum, _hook)
