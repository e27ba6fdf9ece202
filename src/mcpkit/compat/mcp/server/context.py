"""``mcp.server.context`` on mcpkit (2.x): the :class:`ServerRequestContext` a low-level
handler receives, and the middleware types."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic

from typing_extensions import TypeVar

from mcpkit.compat.mcp.server.mcpserver.context import ServerSession

__all__ = ["CallNext", "HandlerResult", "ServerMiddleware", "ServerRequestContext"]

LifespanContextT = TypeVar("LifespanContextT", default=Any)
RequestT = TypeVar("RequestT", default=Any)

HandlerResult = Any
CallNext = Callable[..., Awaitable[Any]]
ServerMiddleware = Callable[..., Awaitable[Any]]


@dataclass(kw_only=True)
class ServerRequestContext(Generic[LifespanContextT, RequestT]):
    """The request being served: the session, what the lifespan yielded, its method,
    params, id and ``_meta``."""

    session: ServerSession
    lifespan_context: LifespanContextT
    protocol_version: str
    method: str
    params: Mapping[str, Any] | None = None
    request_id: Any = None
    meta: Any = None
    request: RequestT | None = None
    close_sse_stream: Any = None
    close_standalone_sse_stream: Any = None
