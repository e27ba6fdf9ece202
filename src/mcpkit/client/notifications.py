"""The notifications a client receives, routed to its parts and to the user's hooks.

:class:`ClientHooks` holds the user's hooks (each optional, sync or async; a hook that
raises is logged, never raised into the session). :class:`NotificationRouter` installs the
session's notification handlers: ``notifications/message`` (to the ``on_log`` of the call
on whose response stream it came, see :mod:`mcpkit.client.request_scope`, else the
client's; default: the ``mcpkit.client.server`` logger), ``notifications/resources/updated``,
``notifications/elicitation/complete`` (the URL elicitation bookkeeping first),
``notifications/tasks/status`` (the task requestor first), the three
``notifications/*/list_changed`` (the tool catalogue forgotten, the list refreshed first
with ``auto_refresh``), ``notifications/cancelled`` and every notification to
``on_notification``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

from mcpkit.client._util import call_hook, logger
from mcpkit.client.request_scope import related_scope
from mcpkit.client.results import notification_params
from mcpkit.errors import ConnectionClosed, McpError
from mcpkit.jsonrpc import JSONObject

if TYPE_CHECKING:
    from mcpkit.client.catalogue import ToolCatalogue
    from mcpkit.client.task_requestor import TaskRequestor
    from mcpkit.client.url_elicitation import UrlElicitations
    from mcpkit.session import ClientSession, ProgressCallback
    from mcpkit.types import (
        CancelledNotificationParams,
        LoggingMessageNotificationParams,
        TaskStatusNotificationParams,
    )

__all__ = [
    "LOG_LEVELS",
    "CancelledHook",
    "ClientHooks",
    "ListKind",
    "LogHook",
    "NotificationHook",
    "NotificationRouter",
    "TaskStatusHook",
]

ListKind: TypeAlias = Literal["tools", "prompts", "resources"]
"""Which list a ``notifications/*/list_changed`` is about."""
LogHook: TypeAlias = "Callable[[LoggingMessageNotificationParams], object]"
"""``on_log(params)``: a ``notifications/message``."""
NotificationHook: TypeAlias = Callable[[str, "JSONObject | None"], object]
"""``on_notification(method, params)``: every notification, raw."""
CancelledHook: TypeAlias = "Callable[[CancelledNotificationParams], object]"
"""``on_cancelled(params)``: the server cancelled a request of its own."""
TaskStatusHook: TypeAlias = "Callable[[TaskStatusNotificationParams], object]"
"""``on_task_status(task)``: a ``notifications/tasks/status``."""

#: The logging levels of MCP and the Python levels their messages are logged at.
LOG_LEVELS: Final = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}
_LIST_CHANGED: Final[dict[str, ListKind]] = {
    "notifications/tools/list_changed": "tools",
    "notifications/prompts/list_changed": "prompts",
    "notifications/resources/list_changed": "resources",
}
server_log = logging.getLogger("mcpkit.client.server")


@dataclass(frozen=True, slots=True)
class ClientHooks:
    """The user's hooks, as given to :class:`~mcpkit.client.Client` (``hooks=``).

    ``on_progress(progress, total, message)`` is the default progress callback of calls
    without their own; ``auto_refresh``: a cached list is refreshed when the server says it
    changed, before ``on_list_changed``. The others are notification hooks (see the module
    docstring)."""

    on_log: LogHook | None = None
    on_notification: NotificationHook | None = None
    on_list_changed: Callable[[ListKind], object] | None = None
    on_resource_updated: Callable[[str], object] | None = None
    on_elicitation_complete: Callable[[str], object] | None = None
    on_cancelled: CancelledHook | None = None
    on_task_status: TaskStatusHook | None = None
    on_progress: ProgressCallback | None = None
    auto_refresh: bool = False


class NotificationRouter:
    """Routes one client's incoming notifications (see the module docstring).

    ``refresh(kind)`` lists ``kind`` again, when :attr:`auto_refresh` is set; ``spawn`` runs
    a hook's awaitable in the background, tied to the connection."""

    def __init__(
        self,
        hooks: ClientHooks,
        *,
        catalogue: ToolCatalogue,
        tasks: TaskRequestor,
        elicitations: UrlElicitations,
        refresh: Callable[[ListKind], Awaitable[None]],
        spawn: Callable[[Awaitable[Any]], None],
        auto_refresh: bool = False,
        observers: Sequence[Callable[[str, JSONObject | None], None]] = (),
    ) -> None:
        self.hooks = hooks
        self._catalogue = catalogue
        self._tasks = tasks
        self._elicitations = elicitations
        self._refresh = refresh
        self._spawn = spawn
        #: Refresh a list when it changed, before calling ``on_list_changed``.
        self.auto_refresh = auto_refresh
        #: Called with every notification before the hooks (the response cache, listeners).
        self.observers = tuple(observers)
        self._session: ClientSession | None = None

    def install(self, session: ClientSession) -> None:
        """Register the handlers on ``session``."""
        self._session = session
        session.observe_notifications(self._any)
        session.set_notification_handler("notifications/tasks/status", self._task_status)
        session.set_notification_handler("notifications/message", self._log)
        session.set_notification_handler("notifications/resources/updated", self._updated)
        session.set_notification_handler(
            "notifications/elicitation/complete", self._elicitation_complete
        )
        for method, kind in _LIST_CHANGED.items():
            session.set_notification_handler(method, self._list_changed_handler(kind))

    def _log(self, params: JSONObject | None) -> Any:
        from mcpkit.types import LoggingMessageNotificationParams

        typed = notification_params(
            LoggingMessageNotificationParams, params, "notifications/message"
        )
        if typed is None:
            return None
        # A message on the stream of a request sent with its own on_log goes there.
        scope = related_scope(self._session) if self._session is not None else None
        if scope is not None and scope.open and scope.on_log is not None:
            return call_hook(scope.on_log, typed)
        if self.hooks.on_log is not None:
            return call_hook(self.hooks.on_log, typed)
        name = f"mcpkit.client.server.{typed.logger}" if typed.logger else server_log.name
        logging.getLogger(name).log(LOG_LEVELS.get(typed.level, logging.INFO), "%s", typed.data)
        return None

    def _updated(self, params: JSONObject | None) -> Any:
        from mcpkit.types import ResourceUpdatedNotificationParams

        typed = notification_params(
            ResourceUpdatedNotificationParams, params, "notifications/resources/updated"
        )
        if typed is None or self.hooks.on_resource_updated is None:
            return None
        return call_hook(self.hooks.on_resource_updated, typed.uri)

    def _elicitation_complete(self, params: JSONObject | None) -> Any:
        from mcpkit.types import ElicitationCompleteNotificationParams

        typed = notification_params(
            ElicitationCompleteNotificationParams, params, "notifications/elicitation/complete"
        )
        if typed is None or not self._elicitations.complete(typed.elicitation_id):
            return None
        if self.hooks.on_elicitation_complete is not None:
            return call_hook(self.hooks.on_elicitation_complete, typed.elicitation_id)
        return None

    def _task_status(self, params: JSONObject | None) -> Any:
        from mcpkit.types import TaskStatusNotificationParams

        typed = notification_params(
            TaskStatusNotificationParams, params, "notifications/tasks/status"
        )
        if typed is None:
            return None
        self._tasks.status_notification(params, typed)
        if self.hooks.on_task_status is not None:
            return call_hook(self.hooks.on_task_status, typed)
        return None

    def _list_changed_handler(self, kind: ListKind) -> Callable[[JSONObject | None], Any]:
        def handle(params: JSONObject | None) -> Any:
            if kind == "tools":
                self._catalogue.forget()
            if self.auto_refresh:
                self._spawn(self._refreshed(kind))
                return None
            if self.hooks.on_list_changed is not None:
                return call_hook(self.hooks.on_list_changed, kind)
            return None

        return handle

    async def _refreshed(self, kind: ListKind) -> None:
        try:
            await self._refresh(kind)
        except (McpError, ConnectionClosed) as exc:
            logger.warning("Could not refresh the %s list: %s", kind, exc)
            return
        if self.hooks.on_list_changed is not None:
            outcome = call_hook(self.hooks.on_list_changed, kind)
            if outcome is not None:
                await outcome

    def _any(self, method: str, params: JSONObject | None) -> None:
        for observer in self.observers:
            observer(method, params)
        if method == "notifications/subscriptions/acknowledged":
            return  # the opening of a listen stream (see mcpkit.client.listen), no event
        if method == "notifications/cancelled":
            self._cancelled(params)
        if self.hooks.on_notification is not None:
            outcome = call_hook(self.hooks.on_notification, method, params)
            if outcome is not None:
                self._spawn(outcome)

    def _cancelled(self, params: JSONObject | None) -> None:
        if self.hooks.on_cancelled is None:
            return
        from mcpkit.types import CancelledNotificationParams

        typed = notification_params(CancelledNotificationParams, params, "notifications/cancelled")
        if typed is not None:
            outcome = call_hook(self.hooks.on_cancelled, typed)
            if outcome is not None:
                self._spawn(outcome)
