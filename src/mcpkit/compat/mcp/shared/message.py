"""``mcp.shared.message`` on mcpkit: the official SDK's message wrapper and its metadata
classes under their names, so a server that imports or builds them loads (mcpkit relates a
server's request to the call it belongs to by itself; these carry no meaning to it)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcpkit.types import JSONRPCMessage, RequestId

__all__ = [
    "ClientMessageMetadata",
    "CloseSSEStreamCallback",
    "MessageMetadata",
    "ResumptionToken",
    "ResumptionTokenUpdateCallback",
    "ServerMessageMetadata",
    "SessionMessage",
]

ResumptionToken = str
ResumptionTokenUpdateCallback = Callable[[ResumptionToken], Awaitable[None]]
CloseSSEStreamCallback = Callable[[], Awaitable[None]]


@dataclass
class ClientMessageMetadata:
    """Metadata of a client message (resumption)."""

    resumption_token: ResumptionToken | None = None
    on_resumption_token_update: Callable[[ResumptionToken], Awaitable[None]] | None = None
    headers: dict[str, str] | None = None


@dataclass
class ServerMessageMetadata:
    """Metadata of a server message: the request it relates to, the transport's context."""

    related_request_id: RequestId | None = None
    request_context: Any = None
    close_sse_stream: CloseSSEStreamCallback | None = None
    close_standalone_sse_stream: CloseSSEStreamCallback | None = None
    on_request_unanswered: Callable[[], Awaitable[None]] | None = None
    can_send_request: bool = True


MessageMetadata = ClientMessageMetadata | ServerMessageMetadata | None


@dataclass
class SessionMessage:
    """A JSON-RPC message with its metadata."""

    message: JSONRPCMessage
    metadata: MessageMetadata = None
