"""``fastmcp.client.messages``: :class:`MessageHandler`, a ``message_handler`` whose hooks
are called per kind of notification."""

from __future__ import annotations

from typing import Any

import mcpkit.compat.mcp.types as t

__all__ = ["MessageHandler"]

_HOOKS: dict[type[Any], str] = {
    t.CancelledNotification: "on_cancelled",
    t.ProgressNotification: "on_progress",
    t.LoggingMessageNotification: "on_logging_message",
    t.ToolListChangedNotification: "on_tool_list_changed",
    t.ResourceListChangedNotification: "on_resource_list_changed",
    t.PromptListChangedNotification: "on_prompt_list_changed",
    t.ResourceUpdatedNotification: "on_resource_updated",
}


class MessageHandler:
    """Override the hooks for the notifications of interest: ``on_message`` (everything),
    ``on_notification``, ``on_exception``, and one per kind (``on_tool_list_changed``,
    ``on_progress``, ``on_logging_message``, ...)."""

    async def __call__(self, message: Any) -> None:
        await self.dispatch(message)

    async def dispatch(self, message: Any) -> None:
        """Call ``on_message``, then the hooks for ``message``'s kind."""
        await self.on_message(message)
        if isinstance(message, Exception):
            await self.on_exception(message)
            return
        await self.on_notification(message)
        hook = _HOOKS.get(type(message))
        if hook is not None:
            await getattr(self, hook)(message)

    async def on_message(self, message: Any) -> None:
        """Every message."""

    async def on_notification(self, message: Any) -> None:
        """Every notification."""

    async def on_exception(self, message: Exception) -> None:
        """A transport error."""

    async def on_progress(self, message: Any) -> None:
        """``notifications/progress``."""

    async def on_logging_message(self, message: Any) -> None:
        """``notifications/message``."""

    async def on_tool_list_changed(self, message: Any) -> None:
        """``notifications/tools/list_changed``."""

    async def on_resource_list_changed(self, message: Any) -> None:
        """``notifications/resources/list_changed``."""

    async def on_prompt_list_changed(self, message: Any) -> None:
        """``notifications/prompts/list_changed``."""

    async def on_resource_updated(self, message: Any) -> None:
        """``notifications/resources/updated``."""

    async def on_cancelled(self, message: Any) -> None:
        """``notifications/cancelled``."""
