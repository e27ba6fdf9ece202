"""``mcp.server.fastmcp.prompts`` on mcpkit: the prompt message helpers."""

from __future__ import annotations

from mcpkit.compat.mcp.server.mcpserver.prompts.base import AssistantMessage, Message, UserMessage

__all__ = ["AssistantMessage", "Message", "UserMessage"]
