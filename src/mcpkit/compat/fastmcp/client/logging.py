"""``fastmcp.client.logging``: the type a ``log_handler`` receives."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeAlias

from mcpkit.compat.mcp.types import LoggingMessageNotificationParams

__all__ = ["LogHandler", "LogMessage"]

LogMessage: TypeAlias = LoggingMessageNotificationParams
LogHandler: TypeAlias = Callable[[LogMessage], Awaitable[None]]
