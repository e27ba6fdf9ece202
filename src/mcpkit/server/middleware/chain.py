"""Building the chain: a server's handlers wrapped in its middleware.

:meth:`mcpkit.server.app.Server.handler_table` wraps each handler once, when the table is
built (:func:`wrap_request`); a session's notification handlers are wrapped when the
session is made (:func:`wrap_notification`). A server without middleware serves its
handlers as they are: nothing here runs on its hot path.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from mcpkit.jsonrpc import JSONObject
from mcpkit.server.middleware.base import (
    CallNext,
    MiddlewareContext,
    MiddlewareFunction,
    _link,
    hooks_of,
)

if TYPE_CHECKING:
    from mcpkit.server.middleware.base import MiddlewareServer
    from mcpkit.server.session import AppSession, ServerHandler, ServerRequestContext
    from mcpkit.session import NotificationHandler

__all__ = ["plain_result", "wrap_notification", "wrap_request"]


def plain_result(result: Any) -> Any:
    """A fresh, plain copy of a handler's result: the pre-encoded parts of list results
    (``orjson.Fragment``) decoded, nothing shared with the server's caches. Use it before
    changing a result in a middleware."""
    return orjson.loads(orjson.dumps(result))


def _chain(hooks: Sequence[MiddlewareFunction], terminal: CallNext) -> CallNext:
    call = terminal
    for hook in reversed(hooks):
        call = _link(hook, call)
    return call


def wrap_request(
    method: str,
    handler: ServerHandler,
    middleware: Sequence[Any],
    server: MiddlewareServer | None = None,
) -> ServerHandler:
    """``handler`` with the hooks of ``middleware`` (of ``server``) for ``method`` around it
    (``handler`` itself when none applies)."""
    hooks = [hook for m in middleware for hook in hooks_of(m, method, False)]
    if not hooks:
        return handler

    async def terminal(ctx: MiddlewareContext) -> Any:
        request = ctx.request
        assert request is not None
        params = ctx.params
        if params is not request.params:
            request.params = params  # a middleware replaced them: the handler sees the new
        return await handler(params, request)

    call = _chain(hooks, terminal)

    async def serve(params: JSONObject | None, request: ServerRequestContext) -> Any:
        return await call(MiddlewareContext(method, params, request, request.session, server))

    return serve


def wrap_notification(
    method: str,
    handler: NotificationHandler,
    middleware: Sequence[Any],
    session: AppSession,
    *,
    eager: bool = False,
) -> NotificationHandler:
    """``handler`` (of ``session``) with the hooks of ``middleware`` for the notification
    ``method`` around it. ``eager``: the handler's synchronous part runs at once, before the
    chain (the session's own bookkeeping, e.g. ``notifications/initialized``)."""
    hooks = [hook for m in middleware for hook in hooks_of(m, method, True)]
    if not hooks:
        return handler

    if eager:

        def serve_eager(params: JSONObject | None) -> Awaitable[None] | None:
            outcome = handler(params)

            async def rest(ctx: MiddlewareContext) -> None:
                nonlocal outcome
                pending, outcome = outcome, None
                if pending is not None:
                    await pending

            async def run() -> None:
                try:
                    await _chain(hooks, rest)(MiddlewareContext(method, params, None, session))
                finally:
                    if inspect.iscoroutine(outcome):  # a middleware dropped the notification
                        outcome.close()

            return run()

        return serve_eager

    async def terminal(ctx: MiddlewareContext) -> None:
        outcome = handler(ctx.params)
        if inspect.isawaitable(outcome):
            await outcome

    call = _chain(hooks, terminal)

    def serve(params: JSONObject | None) -> Awaitable[None] | None:
        return _run(call, MiddlewareContext(method, params, None, session))

    return serve


async def _run(call: Callable[[MiddlewareContext], Awaitable[Any]], ctx: MiddlewareContext) -> None:
    await call(ctx)


async def ping(params: JSONObject | None, request: ServerRequestContext) -> JSONObject:
    """``ping`` in the server's table (so middleware sees it)."""
    return {}


async def serve_initialize(params: JSONObject | None, request: ServerRequestContext) -> JSONObject:
    """``initialize`` in the server's table (so middleware sees it): the session's own."""
    return await request.session._initialize(params, request)
