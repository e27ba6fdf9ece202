"""``mcp.server.mcpserver.prompts`` on mcpkit: the prompt message helpers and
:class:`Prompt`."""

from __future__ import annotations

from mcpkit.compat.mcp.server.mcpserver.prompts.base import (
    AssistantMessage,
    Message,
    Prompt,
    UserMessage,
)

__all__ = ["AssistantMessage", "Message", "Prompt", "UserMessage"]
