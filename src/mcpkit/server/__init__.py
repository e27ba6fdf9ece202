"""The MCP server: :class:`Server` (decorators for tools, resources, prompts, completions),
:class:`Context` for handlers, and the :class:`Image` / :class:`Audio` content helpers."""

from mcpkit.server.app import AppSession, Server, ServerHTTPApp
from mcpkit.server.content import Audio, Image
from mcpkit.server.context import Context
from mcpkit.server.elicitation import ElicitationError, ElicitationResult
from mcpkit.server.prompts import assistant, user
from mcpkit.server.resources import ResourceNotFound
from mcpkit.server.tasks import MemoryTaskStore, TaskInfo, TaskManager, TaskStore
from mcpkit.server.uri_template import URITemplate

__all__ = [
    "AppSession",
    "Audio",
    "Context",
    "ElicitationError",
    "ElicitationResult",
    "Image",
    "MemoryTaskStore",
    "ResourceNotFound",
    "Server",
    "ServerHTTPApp",
    "TaskInfo",
    "TaskManager",
    "TaskStore",
    "URITemplate",
    "assistant",
    "user",
]
