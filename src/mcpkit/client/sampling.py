"""Serving ``sampling/createMessage``: the server asks the client's LLM for a completion.

The user's handler receives the typed :class:`~mcpkit.types.CreateMessageRequestParams`
(messages, tools, toolChoice, includeContext, model preferences, ...) and the request
context, and returns a :class:`~mcpkit.types.CreateMessageResult` (or its wire dict).
To reject a request (for example the user declined) raise ``McpError(-1, "...")``.

The client declares ``sampling.tools`` only when the handler supports tools (an attribute
``supports_tools = True`` on the handler, or ``Client(sampling_handler=Sampling(handler,
tools=True))``); a request that
carries tools without it is answered -32602, as are tool results that are missing or mixed
with other content.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcpkit.client._util import maybe_await, parse_params, to_result_dict
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject

if TYPE_CHECKING:
    from mcpkit.session import RequestContext
    from mcpkit.types import CreateMessageRequestParams, CreateMessageResult

__all__ = [
    "USER_REJECTED",
    "Sampling",
    "SamplingHandler",
    "check_tool_messages",
    "sampling_capability",
    "serve_sampling",
]

#: Error code the spec suggests when the user rejects a sampling request.
USER_REJECTED = -1

SamplingHandler = Callable[
    ["CreateMessageRequestParams", "RequestContext"],
    "Awaitable[CreateMessageResult | dict[str, Any]] | CreateMessageResult | dict[str, Any]",
]


@dataclass(frozen=True, slots=True)
class Sampling:
    """A sampling handler with its settings: ``Client(sampling_handler=Sampling(handler,
    tools=True))``. ``tools`` / ``context`` declare ``sampling.tools`` /
    ``sampling.context`` (None: the handler's ``supports_tools`` / ``supports_context``
    attribute decides)."""

    handler: SamplingHandler
    tools: bool | None = None
    context: bool | None = None


def sampling_capability(handler: Any, tools: bool | None, context: bool | None) -> JSONObject:
    """The ``sampling`` capability object for ``handler``."""
    cap: JSONObject = {}
    if tools if tools is not None else bool(getattr(handler, "supports_tools", False)):
        cap["tools"] = {}
    if context if context is not None else bool(getattr(handler, "supports_context", False)):
        cap["context"] = {}
    return cap


def _blocks(content: Any) -> list[Any]:
    return content if isinstance(content, list) else [content]


def check_tool_messages(params: CreateMessageRequestParams) -> None:
    """Enforce the tool-use message rules; raise -32602 on a violation."""
    from mcpkit.types import ToolResultContent, ToolUseContent

    messages = params.messages
    for i, msg in enumerate(messages):
        blocks = _blocks(msg.content)
        kinds = {b.type for b in blocks}
        if "tool_result" in kinds and kinds != {"tool_result"}:
            raise McpError(INVALID_PARAMS, "Tool results mixed with other content")
        if msg.role == "assistant" and "tool_use" in kinds:
            wanted = {b.id for b in blocks if isinstance(b, ToolUseContent)}
            nxt = messages[i + 1] if i + 1 < len(messages) else None
            got = (
                {b.tool_use_id for b in _blocks(nxt.content) if isinstance(b, ToolResultContent)}
                if nxt is not None and nxt.role == "user"
                else set()
            )
            if not wanted <= got:
                raise McpError(INVALID_PARAMS, "Tool result missing in request")


def serve_sampling(
    handler: SamplingHandler, capability: JSONObject
) -> Callable[[JSONObject | None, RequestContext], Awaitable[JSONObject]]:
    """A session request handler for ``sampling/createMessage`` around ``handler``."""
    from mcpkit.types import CreateMessageRequestParams, CreateMessageResult

    tools_declared = "tools" in capability

    async def serve(params: JSONObject | None, ctx: RequestContext) -> JSONObject:
        typed = parse_params(CreateMessageRequestParams, params, "sampling/createMessage")
        if (typed.tools is not None or typed.tool_choice is not None) and not tools_declared:
            raise McpError(
                INVALID_PARAMS,
                "This client did not declare the 'sampling.tools' capability; "
                "the request must not carry tools or toolChoice",
            )
        check_tool_messages(typed)
        value = await maybe_await(handler(typed, ctx))
        return to_result_dict(CreateMessageResult, value, "sampling handler")

    return serve
