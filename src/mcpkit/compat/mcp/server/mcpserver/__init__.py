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
    from mcpkit.compat.mcp.server.extension import Extension as Extension
    from mcpkit.compat.mcp.server.extension import MethodBinding as MethodBinding
    from mcpkit.compat.mcp.server.extension import ResourceBinding as ResourceBinding
    from mcpkit.compat.mcp.server.extension import ToolBinding as ToolBinding
    from mcpkit.compat.mcp.server.extension import (
        require_client_extension as require_client_extension,
    )
    from mcpkit.compat.mcp.server.mcpserver.prompts.base import (
        AssistantMessage as AssistantMessage,
    )
    from mcpkit.compat.mcp.server.mcpserver.prompts.base import Message as Message
    from mcpkit.compat.mcp.server.mcpserver.prompts.base import UserMessage as UserMessage
    from mcpkit.compat.mcp.server.mcpserver.resolve import (
        AcceptedElicitation as AcceptedElicitation,
    )
    from mcpkit.compat.mcp.server.mcpserver.resolve import (
        CancelledElicitation as CancelledElicitation,
    )
    from mcpkit.compat.mcp.server.mcpserver.resolve import (
        DeclinedElicitation as DeclinedElicitation,
    )
    from mcpkit.compat.mcp.server.mcpserver.resolve import Elicit as Elicit
    from mcpkit.compat.mcp.server.mcpserver.resolve import ListRoots as ListRoots
    from mcpkit.compat.mcp.server.mcpserver.resolve import Resolve as Resolve
    from mcpkit.compat.mcp.server.mcpserver.resolve import Sample as Sample
    from mcpkit.compat.mcp.server.mcpserver.resources.templates import (
        ResourceSecurity as ResourceSecurity,
    )
    from mcpkit.compat.mcp.server.request_state import (
        InvalidRequestState as InvalidRequestState,
    )
    from mcpkit.compat.mcp.server.request_state import (
        RequestStateSecurity as RequestStateSecurity,
    )
    from mcpkit.server.elicitation import ElicitationResult as ElicitationResult
    from mcpkit.types import Icon as Icon

__all__ = [
    "AcceptedElicitation",
    "AssistantMessage",
    "Audio",
    "CancelledElicitation",
    "Context",
    "DeclinedElicitation",
    "Elicit",
    "ElicitationResult",
    "Icon",
    "Image",
    "InvalidRequestState",
    "ListRoots",
    "MCPServer",
    "Message",
    "RequestStateSecurity",
    "Resolve",
    "ResourceSecurity",
    "Sample",
    "UserMessage",
    "require_client_extension",
]

_RESOLVE = "mcpkit.compat.mcp.server.mcpserver.resolve"
_EXTENSION = "mcpkit.compat.mcp.server.extension"
_LAZY = {
    "Extension": _EXTENSION,
    "MethodBinding": _EXTENSION,
    "ResourceBinding": _EXTENSION,
    "ToolBinding": _EXTENSION,
    "require_client_extension": _EXTENSION,
    "AcceptedElicitation": _RESOLVE,
    "CancelledElicitation": _RESOLVE,
    "DeclinedElicitation": _RESOLVE,
    "Elicit": _RESOLVE,
    "ListRoots": _RESOLVE,
    "Resolve": _RESOLVE,
    "Sample": _RESOLVE,
    "ResourceSecurity": "mcpkit.compat.mcp.server.mcpserver.resources.templates",
    "AssistantMessage": "mcpkit.compat.mcp.server.mcpserver.prompts.base",
    "Message": "mcpkit.compat.mcp.server.mcpserver.prompts.base",
    "UserMessage": "mcpkit.compat.mcp.server.mcpserver.prompts.base",
    "ElicitationResult": "mcpkit.server.elicitation",
    "InvalidRequestState": "mcpkit.compat.mcp.server.request_state",
    "RequestStateSecurity": "mcpkit.compat.mcp.server.request_state",
    "Icon": "mcpkit.types",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
