"""The OpenTelemetry semantic conventions for MCP, as far as mcpkit records them.

Names and values follow the GenAI conventions' *Model Context Protocol* page (status:
development): a span per request on each side, named ``"{mcp.method.name} {target}"``
where the target is the tool or prompt name (``"tools/call get_weather"``), else the method
alone; resource URIs are attributes, never part of the name (high cardinality).
``error.type`` is the JSON-RPC error code as a string (``"-32602"``), ``"tool_error"`` for a
``CallToolResult`` with ``isError``, else the exception's class name.

Pure functions and constants: nothing here imports OpenTelemetry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "DURATION_BUCKETS",
    "ERROR_TYPE",
    "GEN_AI_OPERATION_NAME",
    "GEN_AI_PROMPT_NAME",
    "GEN_AI_TOOL_NAME",
    "INSTRUMENTATION_NAME",
    "JSONRPC_REQUEST_ID",
    "MCP_METHOD_NAME",
    "MCP_PROTOCOL_VERSION",
    "MCP_RESOURCE_URI",
    "MCP_SESSION_ID",
    "NETWORK_PROTOCOL_NAME",
    "NETWORK_TRANSPORT",
    "RPC_RESPONSE_STATUS_CODE",
    "SERVER_ADDRESS",
    "SERVER_PORT",
    "TOOL_ERROR",
    "TRACE_KEYS",
    "error_message",
    "error_type_of_exception",
    "error_type_of_result",
    "metric_attributes",
    "network_attributes",
    "request_attributes",
    "span_name",
    "target_of",
]

#: The instrumentation scope of mcpkit's tracers and meters.
INSTRUMENTATION_NAME: Final = "mcpkit"

MCP_METHOD_NAME: Final = "mcp.method.name"
MCP_SESSION_ID: Final = "mcp.session.id"
MCP_PROTOCOL_VERSION: Final = "mcp.protocol.version"
MCP_RESOURCE_URI: Final = "mcp.resource.uri"
GEN_AI_TOOL_NAME: Final = "gen_ai.tool.name"
GEN_AI_PROMPT_NAME: Final = "gen_ai.prompt.name"
GEN_AI_OPERATION_NAME: Final = "gen_ai.operation.name"
JSONRPC_REQUEST_ID: Final = "jsonrpc.request.id"
RPC_RESPONSE_STATUS_CODE: Final = "rpc.response.status_code"
ERROR_TYPE: Final = "error.type"
NETWORK_TRANSPORT: Final = "network.transport"
NETWORK_PROTOCOL_NAME: Final = "network.protocol.name"
SERVER_ADDRESS: Final = "server.address"
SERVER_PORT: Final = "server.port"

#: ``error.type`` of a tool call whose result has ``isError: true``.
TOOL_ERROR: Final = "tool_error"
#: The W3C Trace Context and Baggage keys carried unprefixed in ``params._meta`` (SEP-414).
TRACE_KEYS: Final = ("traceparent", "tracestate", "baggage")
#: Bucket boundaries (seconds) the conventions advise for the operation duration histograms.
DURATION_BUCKETS: Final = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)

# Attributes of a span that also label the duration metrics (low cardinality).
_METRIC_KEYS: Final = (
    MCP_METHOD_NAME,
    ERROR_TYPE,
    GEN_AI_TOOL_NAME,
    GEN_AI_PROMPT_NAME,
    GEN_AI_OPERATION_NAME,
    RPC_RESPONSE_STATUS_CODE,
    MCP_PROTOCOL_VERSION,
    NETWORK_TRANSPORT,
    NETWORK_PROTOCOL_NAME,
    SERVER_ADDRESS,
    SERVER_PORT,
)
_URI_METHODS: Final = frozenset(("resources/read", "resources/subscribe", "resources/unsubscribe"))
# mcpkit transport kind -> (network.transport, network.protocol.name)
_NETWORK: Final[Mapping[str, tuple[str, str | None]]] = {
    "stdio": ("pipe", None),
    "http": ("tcp", "http"),
    "legacy-sse": ("tcp", "http"),
}


def target_of(method: str, params: Any) -> str | None:
    """The low-cardinality target of a request: the tool of ``tools/call``, the prompt of
    ``prompts/get``; None for every other method."""
    if (method == "tools/call" or method == "prompts/get") and type(params) is dict:
        name = params.get("name")
        if isinstance(name, str):
            return name
    return None


def span_name(method: str, target: str | None) -> str:
    """``"{mcp.method.name} {target}"``, or the method alone without a target."""
    return f"{method} {target}" if target else method


def request_attributes(method: str, params: Any, target: str | None) -> dict[str, Any]:
    """The attributes a request implies by itself (method, tool or prompt, resource URI)."""
    attrs: dict[str, Any] = {MCP_METHOD_NAME: method}
    if target is not None:
        if method == "tools/call":
            attrs[GEN_AI_TOOL_NAME] = target
            attrs[GEN_AI_OPERATION_NAME] = "execute_tool"
        else:
            attrs[GEN_AI_PROMPT_NAME] = target
    if method in _URI_METHODS and type(params) is dict:
        uri = params.get("uri")
        if isinstance(uri, str):
            attrs[MCP_RESOURCE_URI] = uri
    return attrs


def network_attributes(kind: str) -> dict[str, Any]:
    """``network.transport`` (and ``network.protocol.name``) of an mcpkit transport kind
    (``"stdio"``, ``"http"``, ``"legacy-sse"``; nothing for in-memory and custom ones)."""
    found = _NETWORK.get(kind)
    if found is None:
        return {}
    transport, protocol = found
    attrs: dict[str, Any] = {NETWORK_TRANSPORT: transport}
    if protocol is not None:
        attrs[NETWORK_PROTOCOL_NAME] = protocol
    return attrs


def error_type_of_result(method: str, result: Any) -> str | None:
    """``"tool_error"`` for a ``tools/call`` result with ``isError: true``, else None."""
    if method == "tools/call" and type(result) is dict and result.get("isError") is True:
        return TOOL_ERROR
    return None


def metric_attributes(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """The attributes of a span that also label its duration metric (low cardinality)."""
    return {key: attrs[key] for key in _METRIC_KEYS if key in attrs}


def error_type_of_exception(exc: BaseException) -> tuple[str, int | None]:
    """``error.type`` of a failed request and its JSON-RPC code (None when it has none):
    the code as a string for an :class:`~mcpkit.errors.McpError`, ``"timeout"`` for a
    timeout, else the exception's class name."""
    from mcpkit.errors import McpError, RequestTimeout

    if isinstance(exc, RequestTimeout):  # no response came: no code to report
        return "timeout", None
    if isinstance(exc, McpError):
        return str(exc.code), exc.code
    return type(exc).__qualname__, None


def error_message(exc: BaseException) -> str:
    """The span status description of a failure: the JSON-RPC error message when there is
    one, else the exception's text."""
    message = getattr(exc, "message", None)
    return message if isinstance(message, str) else str(exc) or type(exc).__name__
