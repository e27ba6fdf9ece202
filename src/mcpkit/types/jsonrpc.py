"""JSON-RPC 2.0 envelopes: untyped requests, notifications, responses and errors."""

from typing import Annotated, Any, ClassVar, Literal, TypeAlias

from pydantic import Discriminator, SerializeAsAny, Tag

from .base import McpModel, NullPreservingModel, RequestId, Result


class JSONRPCRequest(McpModel):
    """A request that expects a response (method and params left untyped)."""

    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId
    method: str
    params: dict[str, Any] | None = None


class JSONRPCNotification(McpModel):
    """A notification, which expects no response (method and params left untyped)."""

    jsonrpc: Literal["2.0"] = "2.0"
    method: str
    params: dict[str, Any] | None = None


class JSONRPCResultResponse(McpModel):
    """A successful response carrying a result for the request with the same id."""

    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId
    # SerializeAsAny: a concrete result subclass (e.g. CallToolResult) dumps all its fields.
    result: SerializeAsAny[Result]


class Error(NullPreservingModel):
    """The error object of an error response: code, message and optional data."""

    _wire_nullable: ClassVar[tuple[str, ...]] = ("data",)

    code: int
    message: str
    data: Any = None


class JSONRPCErrorResponse(McpModel):
    """A response reporting that a request failed; ``id`` may be absent (e.g. parse errors)."""

    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId | None = None
    error: Error


JSONRPCError = JSONRPCErrorResponse
"""Name used for :class:`JSONRPCErrorResponse` up to revision 2025-06-18."""


def _response_kind(value: Any) -> str:
    if isinstance(value, dict):
        return "error" if "error" in value else "result"
    return "error" if isinstance(value, JSONRPCErrorResponse) else "result"


def _message_kind(value: Any) -> str:
    if isinstance(value, dict):
        if "method" in value:
            return "request" if "id" in value else "notification"
        return "error" if "error" in value else "result"
    if isinstance(value, JSONRPCRequest):
        return "request"
    if isinstance(value, JSONRPCNotification):
        return "notification"
    return _response_kind(value)


JSONRPCResponse: TypeAlias = Annotated[
    Annotated[JSONRPCResultResponse, Tag("result")] | Annotated[JSONRPCErrorResponse, Tag("error")],
    Discriminator(_response_kind),
]
"""A response to a request: either a result or an error."""

JSONRPCMessage: TypeAlias = Annotated[
    Annotated[JSONRPCRequest, Tag("request")]
    | Annotated[JSONRPCNotification, Tag("notification")]
    | Annotated[JSONRPCResultResponse, Tag("result")]
    | Annotated[JSONRPCErrorResponse, Tag("error")],
    Discriminator(_message_kind),
]
"""Any single JSON-RPC object that can be read from or written to the wire."""

JSONRPCBatchRequest: TypeAlias = list[
    Annotated[
        Annotated[JSONRPCRequest, Tag("request")]
        | Annotated[JSONRPCNotification, Tag("notification")],
        Discriminator(_message_kind),
    ]
]
"""A batch of requests/notifications (only revision 2025-03-26 allowed batching)."""

JSONRPCBatchResponse: TypeAlias = list[JSONRPCResponse]
"""A batch of responses (only revision 2025-03-26 allowed batching)."""
