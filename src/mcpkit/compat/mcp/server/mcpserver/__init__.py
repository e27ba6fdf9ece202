"""``mcp.server.mcpserver`` on mcpkit: :class:`MCPServer`, :class:`Context`, ``Image``,
``Audio``, ``Icon`` and the prompt messages."""

from __future__ import annotations

from mcpkit.compat.mcp.server.mcpserver.context import Context
from mcpkit.compat.mcp.server.mcpserver.prompts.base import AssistantMessage, Message, UserMessage
from mcpkit.compat.mcp.server.mcpserver.server import MCPServer
from mcpkit.compat.mcp.server.mcpserver.utilities.types import Audio, Image
from mcpkit.server.elicitation import ElicitationResult
from mcpkit.types import Icon

__all__ = [
    "AssistantMessage",
    "Audio",
    "Context",
    "ElicitationResult",
    "Icon",
    "Image",
    "MCPServer",
    "Message",
    "UserMessage",
]
