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

from pydantic import AnyUrl, BaseModel, Field

import mcpkit.compat.mcp.types as types
from mcpkit.types import McpModel

__all__ = ["RESULTS", "as_sdk1"]

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


LoggingCapability = types.LoggingCapability
CompletionsCapability = types.CompletionsCapability


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


class InitializeResult(types.InitializeResult):
    """The server's ``initialize`` answer."""

    capabilities: ServerCapabilities
    server_info: Implementation


RESULTS["InitializeResult"] = InitializeResult

#: The fields of the official SDK 1.x's models (snake_case names) where they differ from
#: the ``mcp.types`` model of the name: its order, and what it has.
_SDK1_FIELDS: dict[str, tuple[str, ...]] = {
    "Annotations": ("audience", "priority"),
    "Icon": ("src", "mime_type", "sizes"),
    "Implementation": ("name", "title", "version", "website_url", "icons"),
    "Prompt": ("name", "title", "description", "arguments", "icons", "meta"),
    "PromptArgument": ("name", "description", "required"),
    "Resource": _RESOURCE,
    "ResourceLink": (*_RESOURCE, "type"),
    "ResourceTemplate": (
        *_NAMED,
        *("uri_template", "description", "mime_type", "icons", "annotations", "meta"),
    ),
    "ServerCapabilities": (
        *("experimental", "logging", "prompts", "resources", "tools", "completions", "tasks"),
    ),
    "ServerTasksCapability": ("list", "cancel", "requests"),
    "Tool": (
        *(*_NAMED, "description", "input_schema", "output_schema", "icons", "annotations"),
        *("meta", "execution"),
    ),
}

#: Each model class and its subclass printing as 1.x's model of the name.
_SDK1_CLASSES: dict[type, type] = {}


def _sdk1_repr_args(self: Any) -> ReprArgs:
    """1.x's repr: its fields by their 1.x (camelCase) names, in its order; a field 1.x's
    model does not have only when set (1.x keeps it as an extra)."""
    fields = type(self).model_fields
    names = _SDK1_FIELDS.get(type(self).__name__, tuple(fields))
    for name in names:
        if name in fields:
            value = getattr(self, name)
            if name == "uri" and isinstance(value, str):
                value = AnyUrl(value)  # 1.x's type for a URI
            yield ("meta" if name == "meta" else fields[name].alias or name), value
    for name, field in fields.items():
        value = getattr(self, name)
        if name not in names and value is not None:
            yield field.alias or name, value
    yield from (self.__pydantic_extra__ or {}).items()


def as_sdk1(value: Any) -> Any:
    """``value`` (a model, and every model in it) printing as the official SDK 1.x's."""
    if isinstance(value, McpModel):
        cls: Any = type(value)
        for name in cls.model_fields:
            as_sdk1(getattr(value, name))
        if cls not in _SDK1_CLASSES.values():
            sub = _SDK1_CLASSES.get(cls)
            if sub is None:
                namespace = {
                    "__module__": cls.__module__,
                    "__qualname__": cls.__qualname__,
                    "__doc__": cls.__doc__,
                    "__repr_args__": _sdk1_repr_args,
                }
                sub = _SDK1_CLASSES[cls] = type(cls)(cls.__name__, (cls,), namespace)
            value.__class__ = sub
    elif isinstance(value, list):
        for item in value:
            as_sdk1(item)
    elif isinstance(value, dict):
        for item in value.values():
            as_sdk1(item)
    return value
