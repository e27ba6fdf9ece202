"""``fastmcp.dependencies`` on mcpkit: :class:`Progress`, a tool parameter's default that
the server fills in at each call.

In a task of the tasks extension, :meth:`Progress.set_message` becomes the task's
``statusMessage`` (what ``tasks/get`` shows while it works); in an ordinary call the
progress is kept in memory only, as fastmcp does.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["Progress", "ProgressLike", "with_dependencies"]


class Progress:
    """Progress of the running tool: ``set_total``, ``increment``, ``set_message``; a
    fresh one is given to each call (``progress: Progress = Progress()``)."""

    def __init__(self) -> None:
        self._current: int | None = None
        self._total = 1
        self._message: str | None = None
        self._task: tuple[Any, str] | None = None  # (the task store, the task id)

    @property
    def current(self) -> int | None:
        """The progress so far (None before the first :meth:`increment`)."""
        return self._current

    @property
    def total(self) -> int:
        """The target value (1 unless set)."""
        return self._total

    @property
    def message(self) -> str | None:
        """The last message set."""
        return self._message

    async def set_total(self, total: int) -> None:
        """Set the target value (at least 1)."""
        if total < 1:
            raise ValueError("Total must be at least 1")
        self._total = total

    async def increment(self, amount: int = 1) -> None:
        """Add ``amount`` (at least 1) to the progress."""
        if amount < 1:
            raise ValueError("Amount must be at least 1")
        self._current = amount if self._current is None else self._current + amount

    async def set_message(self, message: str | None) -> None:
        """Set the status message (a task's ``statusMessage`` while it works)."""
        self._message = message
        if self._task is not None:
            store, task_id = self._task
            await store.set_message(task_id, message)

    @classmethod
    def _for_call(cls) -> Progress:
        """A fresh Progress bound to the task the current call runs as, if any."""
        from mcpkit.server.logging import current_context
        from mcpkit.server.tasks_extension import ModernTaskContext

        progress = cls()
        native = current_context.get()
        rctx = getattr(native, "_rctx", None)
        if isinstance(rctx, ModernTaskContext):
            progress._task = (rctx.manager.store, rctx.tid)
        return progress


ProgressLike = Progress


def _is_progress(param: inspect.Parameter) -> bool:
    return isinstance(param.default, Progress) or param.annotation is Progress


def with_dependencies(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` without its :class:`Progress` parameters (hidden from the input schema), each
    given a fresh Progress at every call; ``fn`` itself when it has none."""
    sig = inspect.signature(fn)
    hidden = [name for name, p in sig.parameters.items() if _is_progress(p)]
    if not hidden:
        return fn
    if not inspect.iscoroutinefunction(fn):
        raise TypeError(f"{fn.__name__}: a Progress parameter needs an async function")

    @functools.wraps(fn)
    async def call(*args: Any, **kwargs: Any) -> Any:
        for name in hidden:
            kwargs[name] = Progress._for_call()
        return await fn(*args, **kwargs)

    kept = [p for name, p in sig.parameters.items() if name not in hidden]
    call.__signature__ = sig.replace(parameters=kept)  # type: ignore[attr-defined]
    annotations = dict(getattr(fn, "__annotations__", {}))
    for name in hidden:
        annotations.pop(name, None)
    call.__annotations__ = annotations
    return call
