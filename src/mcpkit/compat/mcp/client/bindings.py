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

__all__ = ["BoundNotifications", "MessageTee"]

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


#: Notifications the official client applies itself and never hands to its callbacks.
_NOT_SURFACED: Final = frozenset(
    {"notifications/cancelled", "notifications/subscriptions/acknowledged"}
)


class MessageTee:
    """The official client's ``logging_callback(params)`` and ``message_handler(message)``:
    each server notification the client knows parsed as its ``mcp.types`` model, a log
    message to ``logging_callback`` then (unless it raised) to ``message_handler``, any
    other to ``message_handler``, one at a time in arrival order. A callback that raises
    is logged and costs only that delivery; cancellations are applied, never surfaced; a
    message that is no JSON reaches ``message_handler`` as the exception it raised.
    ``wrap`` turns a notification model into what ``message_handler`` receives."""

    def __init__(
        self,
        logging_callback: Callable[[Any], Any] | None,
        message_handler: Callable[[Any], Any] | None,
        wrap: Callable[[Any], Any] = lambda notification: notification,
    ) -> None:
        self._logging_callback = logging_callback
        self._message_handler = message_handler
        self._wrap = wrap
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start delivering (the client is being entered)."""
        self._task = asyncio.ensure_future(self._deliver())

    async def stop(self) -> None:
        """Deliver what already arrived, then stop (the client is leaving)."""
        task, self._task = self._task, None
        if task is None:
            return
        self._queue.put_nowait(None)
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(asyncio.shield(task), 5)
        task.cancel()
        with contextlib.suppress(BaseException):
            await task

    def __call__(self, method: str, params: Mapping[str, Any] | None) -> None:
        """``on_notification``: queue the notification's model."""
        if method in _NOT_SURFACED or self._task is None:
            return
        from pydantic import TypeAdapter, ValidationError

        from mcpkit.compat.mcp.types import ServerNotification

        wire: dict[str, Any] = {"method": method}
        if params is not None:
            wire["params"] = dict(params)
        try:
            notification = TypeAdapter(ServerNotification).validate_python(wire)
        except ValidationError:
            logger.debug("dropped %r: not a notification this client knows", method)
            return
        self._queue.put_nowait(notification)

    def invalid(self, data: Any) -> None:
        """A message off the wire that is no JSON: its pydantic ``ValidationError`` to
        ``message_handler``, as the SDK's transports hand it over."""
        if self._task is None or self._message_handler is None:
            return
        from pydantic import TypeAdapter, ValidationError

        raw = data if isinstance(data, bytes | str) else str(data)
        try:
            TypeAdapter(dict[str, Any]).validate_json(raw)
        except ValidationError as exc:
            self._queue.put_nowait(exc)

    async def _deliver(self) -> None:
        import inspect

        while (notification := await self._queue.get()) is not None:
            if isinstance(notification, Exception):
                try:
                    outcome = self._message_handler(notification)  # type: ignore[misc]
                    if inspect.isawaitable(outcome):
                        await outcome
                except Exception:
                    logger.exception("message_handler raised on transport exception")
                continue
            try:
                if notification.method == "notifications/message" and self._logging_callback:
                    outcome = self._logging_callback(notification.params)
                    if inspect.isawaitable(outcome):
                        await outcome
                if self._message_handler is not None:
                    outcome = self._message_handler(self._wrap(notification))
                    if inspect.isawaitable(outcome):
                        await outcome
            except Exception:
                logger.exception("notification callback for %r raised", notification.method)
