"""The MCP server: :class:`Server` (decorators for tools, resources, prompts, completions),
:class:`Context` for handlers, and the :class:`Image` / :class:`Audio` content helpers.

The names of optional features (tasks, elicitation results, URI templates) load on first
use, so a server that does not use them does not import them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpkit._lazy import load_export
from mcpkit.server.app import AppSession, Server, ServerHTTPApp
from mcpkit.server.content import Audio, File, Image
from mcpkit.server.context import Context
from mcpkit.server.dependencies import Depends
from mcpkit.server.errors import ToolError
from mcpkit.server.prompts import assistant, user
from mcpkit.server.resources import ResourceNotFound

# public name -> submodule that defines it (loaded on first use)
_EXPORTS = {
    "ArgTransform": "transforms",
    "ElicitationError": "elicitation",
    "ElicitationResult": "elicitation",
    "MemoryTaskStore": "tasks",
    "TaskInfo": "tasks",
    "TaskManager": "tasks",
    "TaskStore": "tasks",
    "ToolResult": "transforms",
    "ToolSearch": "tool_search",
    "URITemplate": "uri_template",
}

if TYPE_CHECKING:
    from mcpkit.server.elicitation import ElicitationError, ElicitationResult
    from mcpkit.server.tasks import MemoryTaskStore, TaskInfo, TaskManager, TaskStore
    from mcpkit.server.tool_search import ToolSearch
    from mcpkit.server.transforms import ArgTransform, ToolResult
    from mcpkit.server.uri_template import URITemplate

__all__ = [
    "AppSession",
    "ArgTransform",
    "Audio",
    "Context",
    "Depends",
    "ElicitationError",
    "ElicitationResult",
    "File",
    "Image",
    "MemoryTaskStore",
    "ResourceNotFound",
    "Server",
    "ServerHTTPApp",
    "TaskInfo",
    "TaskManager",
    "TaskStore",
    "ToolError",
    "ToolResult",
    "ToolSearch",
    "URITemplate",
    "assistant",
    "user",
]


def __getattr__(name: str) -> Any:
    return load_export(__name__, name, _EXPORTS, globals(), prefix=__name__ + ".")
