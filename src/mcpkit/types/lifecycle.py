"""Lifecycle: implementation info, icons, capabilities and the initialize handshake."""

from typing import Any, Literal, TypeAlias

from .base import (
    BaseMetadata,
    McpModel,
    NotificationBase,
    NotificationParams,
    RequestBase,
    RequestParams,
    Result,
)

IconTheme: TypeAlias = Literal["light", "dark"]
"""Background theme an icon is designed for."""

# --------------------------------------------------------------------------- icons


class Icon(McpModel):
    """An icon (URL or data: URI) with optional MIME type, sizes and theme."""

    src: str
    mime_type: str | None = None
    sizes: list[str] | None = None
    theme: IconTheme | None = None


class Icons(McpModel):
    """Mixin adding an optional list of icons for display in a UI."""

    icons: list[Icon] | None = None


class Implementation(BaseMetadata, Icons):
    """Name, version and presentation details of an MCP client or server implementation."""

    version: str
    description: str | None = None
    website_url: str | None = None


# -------------------------------------------------------------- client capabilities


class RootsCapability(McpModel):
    """Client capability: roots are supported (and list-change notifications, if set)."""

    list_changed: bool | None = None


class SamplingCapability(McpModel):
    """Client capability: sampling, optionally with context inclusion and tool use."""

    context: dict[str, Any] | None = None
    tools: dict[str, Any] | None = None


class ElicitationCapability(McpModel):
    """Client capability: elicitation in form mode and/or URL mode."""

    form: dict[str, Any] | None = None
    url: dict[str, Any] | None = None


class SamplingTasksCapability(McpModel):
    """Task support for sampling requests (``createMessage``)."""

    create_message: dict[str, Any] | None = None


class ElicitationTasksCapability(McpModel):
    """Task support for elicitation requests (``create``)."""

    create: dict[str, Any] | None = None


class ClientTasksRequestsCapability(McpModel):
    """Which server-to-client request types the client can run as tasks."""

    sampling: SamplingTasksCapability | None = None
    elicitation: ElicitationTasksCapability | None = None


class ClientTasksCapability(McpModel):
    """Client capability: task-augmented requests, listing and cancelling tasks."""

    cancel: dict[str, Any] | None = None
    requests: ClientTasksRequestsCapability | None = None
    # Declared last: the name shadows the builtin inside this class body.
    list: dict[str, Any] | None = None


class ClientCapabilities(McpModel):
    """Capabilities a client may support; the set is open to custom additions."""

    experimental: dict[str, dict[str, Any]] | None = None
    roots: RootsCapability | None = None
    sampling: SamplingCapability | None = None
    elicitation: ElicitationCapability | None = None
    tasks: ClientTasksCapability | None = None


# -------------------------------------------------------------- server capabilities


class PromptsCapability(McpModel):
    """Server capability: prompts (and list-change notifications, if set)."""

    list_changed: bool | None = None


class ResourcesCapability(McpModel):
    """Server capability: resources, with optional subscriptions and list-change notices."""

    subscribe: bool | None = None
    list_changed: bool | None = None


class ToolsCapability(McpModel):
    """Server capability: tools (and list-change notifications, if set)."""

    list_changed: bool | None = None


class ToolsTasksCapability(McpModel):
    """Task support for tool requests (``call``)."""

    call: dict[str, Any] | None = None


class ServerTasksRequestsCapability(McpModel):
    """Which client-to-server request types the server can run as tasks."""

    tools: ToolsTasksCapability | None = None


class ServerTasksCapability(McpModel):
    """Server capability: task-augmented requests, listing and cancelling tasks."""

    cancel: dict[str, Any] | None = None
    requests: ServerTasksRequestsCapability | None = None
    # Declared last: the name shadows the builtin inside this class body.
    list: dict[str, Any] | None = None


class ServerCapabilities(McpModel):
    """Capabilities a server may support; the set is open to custom additions."""

    experimental: dict[str, dict[str, Any]] | None = None
    logging: dict[str, Any] | None = None
    completions: dict[str, Any] | None = None
    prompts: PromptsCapability | None = None
    resources: ResourcesCapability | None = None
    tools: ToolsCapability | None = None
    tasks: ServerTasksCapability | None = None


# ------------------------------------------------------------------------ initialize


class InitializeRequestParams(RequestParams):
    """Params of ``initialize``: protocol version, client capabilities and client info."""

    protocol_version: str
    capabilities: ClientCapabilities
    client_info: Implementation


class InitializeRequest(RequestBase):
    """First request from client to server, asking to begin initialization."""

    method: Literal["initialize"] = "initialize"
    params: InitializeRequestParams


class InitializeResult(Result):
    """Server's answer to ``initialize``: chosen version, capabilities, info, instructions."""

    protocol_version: str
    capabilities: ServerCapabilities
    server_info: Implementation
    instructions: str | None = None


class InitializedNotification(NotificationBase):
    """Sent by the client once initialization has finished."""

    method: Literal["notifications/initialized"] = "notifications/initialized"
    params: NotificationParams | None = None
