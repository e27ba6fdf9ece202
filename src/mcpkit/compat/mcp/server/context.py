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


#: ``async (ctx, call_next) -> result`` (``ServerMiddleware[State]`` names the lifespan's).
ServerMiddleware = Callable[
    [ServerRequestContext[LifespanContextT, Any], CallNext], Awaitable[HandlerResult]
]


def native_middleware(middleware: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """A 2.x ``async (ctx, call_next)`` middleware as mcpkit's: it gets a
    :class:`ServerRequestContext` of the message, and ``call_next`` runs the rest of the
    chain with the params of the context it is handed back (``dataclasses.replace(ctx,
    params=...)`` rewrites what the handler gets, as on the official SDK)."""

    async def run(mctx: Any, call_next: Callable[..., Awaitable[Any]]) -> Any:
        from mcpkit.compat._native import lifespan_of

        native = None
        if not mctx.is_notification:
            native = mctx.context
        version = native.protocol_version if native is not None else None
        ctx: ServerRequestContext[Any, Any] = ServerRequestContext(
            session=ServerSession(native) if native is not None else None,  # type: ignore[arg-type]
            lifespan_context=lifespan_of(native) if native is not None else None,
            protocol_version=version.name if version is not None else "",
            method=mctx.method,
            params=mctx.params,
            request_id=mctx.request_id,
            meta=mctx.meta,
        )

        async def next_(given: Any = None) -> Any:
            if given is not None and given.params is not ctx.params:
                mctx.params = dict(given.params) if given.params is not None else None
            return await call_next(mctx)

        return await middleware(ctx, next_)

    return run


class MiddlewareList(list[Any]):
    """``server.middleware``: appending (or inserting, extending) a 2.x middleware adds it
    to the mcpkit server's chain (the first added is the outermost)."""

    def __init__(self, native: Any, middleware: Any = ()) -> None:
        super().__init__()
        self._native = native
        self.extend(middleware)

    def append(self, middleware: Any) -> None:
        super().append(middleware)
        # An extension's tools/call interceptor stays innermost, at the handler, as there.
        innermost = getattr(self._native, "compat_innermost", None)
        if innermost is not None:
            self._native.middleware.remove(innermost)
        self._native.add_middleware(native_middleware(middleware))
        if innermost is not None:
            self._native.add_middleware(innermost)

    def extend(self, middleware: Any) -> None:
        for item in middleware:
            self.append(item)

    def insert(self, index: Any, middleware: Any) -> None:
        self.append(middleware)  # mcpkit's chain only grows at its inner end
