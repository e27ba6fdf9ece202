"""The ``mcp.types`` models the compat client answers with, shaped as the official SDK 2.x's
where a user sees the difference: printed, their fields come in the SDK's order, a tool's
schemas are plain dicts and the ``logging`` and ``completions`` capabilities are models.

Each is a subclass of the ``mcp.types`` model of its name (``isinstance`` and every
attribute hold), made only at the compat client's boundary (:data:`RESULTS`, validated from
the wire); mcpkit's own client and server never build them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated, Any

from pydantic import BaseModel, Field

import mcpkit.compat.mcp.types as types
from mcpkit.types import McpModel

__all__ = ["RESULTS"]

ReprArgs = Iterator[tuple[str | None, Any]]


def _in_order(*names: str) -> Callable[[Any], ReprArgs]:
    """A ``__repr_args__`` giving ``names`` first, in this order, then any other field."""

    def __repr_args__(self: Any) -> ReprArgs:
        args = dict(BaseModel.__repr_args__(self))
        for name in names:
            if name in args:
                yield name, args.pop(name)
        yield from args.items()

    return __repr_args__


_NAMED = ("name", "title")


class Implementation(types.Implementation):
    """A server's (or client's) identity."""

    __repr_args__ = _in_order(*_NAMED, "version", "description", "website_url", "icons")


class LoggingCapability(McpModel):
    """The server sends log messages (its settings, usually none)."""


class CompletionsCapability(McpModel):
    """The server answers ``completion/complete`` (its settings, usually none)."""


class ServerTasksCapability(types.ServerTasksCapability):
    """What the server does with tasks."""

    __repr_args__ = _in_order("list", "cancel", "requests")


class ServerCapabilities(types.ServerCapabilities):
    """What the server declared."""

    logging: LoggingCapability | None = None  # type: ignore[assignment]
    completions: CompletionsCapability | None = None  # type: ignore[assignment]
    tasks: ServerTasksCapability | None = None
    __repr_args__ = _in_order(
        "experimental", "logging", "prompts", "resources", "tools", "completions", "extensions"
    )


class Tool(types.Tool):
    """A tool as listed, its schemas plain dicts."""

    __repr_args__ = _in_order(
        *_NAMED, "description", "input_schema", "execution", "output_schema", "icons"
    )


class Prompt(types.Prompt):
    """A prompt as listed."""

    __repr_args__ = _in_order(*_NAMED, "description", "arguments", "icons")


_RESOURCE = (*_NAMED, "uri", "description", "mime_type", "size", "icons", "annotations", "meta")


class Resource(types.Resource):
    """A resource as listed."""

    __repr_args__ = _in_order(*_RESOURCE)


class ResourceTemplate(types.ResourceTemplate):
    """A resource template as listed."""

    __repr_args__ = _in_order(*_NAMED, "uri_template", "description", "mime_type", "icons")


class ResourceLink(types.ResourceLink):
    """A link to a resource in a result's content."""

    __repr_args__ = _in_order(*_RESOURCE, "type")


#: A content block of a result: mcp.types' union, with the link printed as the SDK's.
ContentBlock = Annotated[
    types.TextContent
    | types.ImageContent
    | types.AudioContent
    | ResourceLink
    | types.EmbeddedResource,
    Field(discriminator="type"),
]


class CallToolResult(types.CallToolResult):
    """A tool's result."""

    content: list[ContentBlock]  # type: ignore[assignment]


class PromptMessage(types.PromptMessage):
    """One message of a prompt."""

    content: ContentBlock


class GetPromptResult(types.GetPromptResult):
    """A prompt's messages."""

    messages: list[PromptMessage]  # type: ignore[assignment]


class ListToolsResult(types.ListToolsResult):
    """One page of tools."""

    tools: list[Tool]  # type: ignore[assignment]


class ListPromptsResult(types.ListPromptsResult):
    """One page of prompts."""

    prompts: list[Prompt]  # type: ignore[assignment]


class ListResourcesResult(types.ListResourcesResult):
    """One page of resources."""

    resources: list[Resource]  # type: ignore[assignment]


class ListResourceTemplatesResult(types.ListResourceTemplatesResult):
    """One page of resource templates."""

    resource_templates: list[ResourceTemplate]  # type: ignore[assignment]


#: The models the compat client validates what it receives with, by ``mcp.types`` name.
RESULTS: dict[str, Any] = {
    cls.__name__: cls
    for cls in (
        Implementation,
        ServerCapabilities,
        CallToolResult,
        GetPromptResult,
        ListToolsResult,
        ListPromptsResult,
        ListResourcesResult,
        ListResourceTemplatesResult,
    )
}
