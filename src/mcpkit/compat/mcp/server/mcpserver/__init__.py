"""``mcp.server.mcpserver`` on mcpkit: :class:`MCPServer`, :class:`Context`, ``Image``,
``Audio``, ``Icon`` and the prompt messages (``Icon``, the messages and
``ElicitationResult`` are imported when first used)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mcpkit.compat.mcp.server.mcpserver.context import Context
from mcpkit.compat.mcp.server.mcpserver.server import MCPServer
from mcpkit.compat.mcp.server.mcpserver.utilities.types import Audio, Image

if TYPE_CHECKING:
    from mcpkit.compat.mcp.server.mcpserver.prompts.base import (
        AssistantMessage as AssistantMessage,
    )
    from mcpkit.compat.mcp.server.mcpserver.prompts.base import Message as Message
    from mcpkit.compat.mcp.server.mcpserver.prompts.base import UserMessage as UserMessage
    from mcpkit.server.elicitation import ElicitationResult as ElicitationResult
    from mcpkit.types import Icon as Icon

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

_LAZY = {
    "AssistantMessage": "mcpkit.compat.mcp.server.mcpserver.prompts.base",
    "Message": "mcpkit.compat.mcp.server.mcpserver.prompts.base",
    "UserMessage": "mcpkit.compat.mcp.server.mcpserver.prompts.base",
    "ElicitationResult": "mcpkit.server.elicitation",
    "Icon": "mcpkit.types",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
