"""``NotificationBinding`` on mcpkit's compat client: the server notifications an extension
observes (``ClientExtension.notifications()``), delivered as the official client delivers
them. A notification whose method the negotiated revision does not define (a vendor's) and
that a binding names has its params validated by the binding's model and handed to its
handler, one at a time per binding, in arrival order, through a queue of 256 that drops
the oldest with a warning when full; params the model refuses are dropped with a warning;
a handler that raises costs only that delivery. Methods of the revision's own notifications
are never delivered to bindings."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from typing import Any, Final

__all__ = ["BoundNotifications"]

logger = logging.getLogger("mcp.client.session")

#: How many validated notifications wait for one binding's handler.
QUEUE_SIZE: Final = 256

_EVERY_ERA = frozenset(
    {
        "notifications/cancelled",
        "notifications/message",
        "notifications/progress",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
        "notifications/tools/list_changed",
    }
)
#: The server notifications each revision defines beside those of every revision.
_OF_VERSION: Final = {
    "2025-11-25": frozenset({"notifications/elicitation/complete"}),
    "2026-07-28": frozenset({"notifications/subscriptions/acknowledged"}),
}


def is_core(method: str, version: str | None) -> bool:
    """Whether ``method`` is a notification the revision ``version`` defines itself."""
    return method in _EVERY_ERA or method in _OF_VERSION.get(version or "2025-11-25", ())


class BoundNotifications:
    """The bindings of a client's extensions, by method, and their delivery."""

    def __init__(self, bindings: Mapping[str, Any], version: Callable[[], str | None]) -> None:
        self._bindings = dict(bindings)
        self._version = version
        self._queues: dict[str, asyncio.Queue[Any]] = {}
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        """Start one consumer per binding (the client is being entered)."""
        for method, binding in self._bindings.items():
            queue: asyncio.Queue[Any] = asyncio.Queue(QUEUE_SIZE)
            self._queues[method] = queue
            self._tasks.append(asyncio.ensure_future(self._deliver(binding, queue)))

    async def stop(self) -> None:
        """Stop the consumers (the client is leaving)."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        self._tasks.clear()
        self._queues.clear()

    def __call__(self, method: str, params: Mapping[str, Any] | None) -> None:
        """``on_notification``: queue a bound notification's validated params."""
        queue = self._queues.get(method)
        if queue is None or is_core(method, self._version()):
            return
        from pydantic import ValidationError

        binding = self._bindings[method]
        try:
            bound = binding.params_type.model_validate(params or {})
        except ValidationError:
            logger.warning("Failed to validate notification: %s", method, exc_info=True)
            return
        if queue.full():
            queue.get_nowait()
            logger.warning("notification queue for %r is full; dropped the oldest event", method)
        queue.put_nowait(bound)

    @staticmethod
    async def _deliver(binding: Any, queue: asyncio.Queue[Any]) -> None:
        while True:
            params = await queue.get()
            try:
                await binding.handler(params)
            except Exception:
                logger.exception("notification binding handler for %r raised", binding.method)
