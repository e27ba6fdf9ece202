"""One request forwarded upstream: :func:`call_upstream` (the client's progress relayed to
it, what the upstream says meanwhile related to the request it serves), :func:`send` (a
broken connection is -32603 for the client), :func:`as_task` (a tool that must be a
2025-11-25 task run as one to its result).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from contextlib import AbstractContextManager
from typing import Any, Final, Protocol

from mcpkit import versions
from mcpkit.envelope import build_request_meta
from mcpkit.errors import ConnectionClosed, McpError, TransportError
from mcpkit.jsonrpc import INTERNAL_ERROR, JSONObject
from mcpkit.session import RequestContext, Session


class Upstream(Protocol):
    """What a call needs of an upstream client (a :class:`~mcpkit.client.Client`)."""

    @property
    def session(self) -> Session: ...


class Route(Protocol):
    """What a call needs of its connection's :class:`~mcpkit.proxy.upstream.Link`."""

    @property
    def in_flight(self) -> list[Any]: ...

    def scope_for(self, rctx: Any) -> AbstractContextManager[Any] | None: ...


_MODERN: Final = versions.V2026_07_28

__all__ = [
    "Route",
    "Upstream",
    "after",
    "as_task",
    "call_upstream",
    "notify_quietly",
    "send",
    "with_envelope",
]


async def notify_quietly(client: Upstream, method: str) -> None:
    with contextlib.suppress(McpError, ConnectionClosed):
        await client.session.notify(method)


async def after(first: Awaitable[None], then: Awaitable[Any]) -> Any:
    await first
    return await then


async def send(
    client: Upstream, method: str, params: JSONObject | None, *, on_progress: Any = None
) -> Any:
    """One request upstream, as it is; a broken connection is -32603 for the client."""
    try:
        return await client.session.request(method, params, timeout=None, on_progress=on_progress)
    except McpError:
        raise
    except TransportError as exc:
        raise McpError(INTERNAL_ERROR, f"The upstream server is unreachable: {exc}") from None


async def as_task(client: Upstream, params: JSONObject, *, on_progress: Any = None) -> Any:
    """Run a tool that must be a 2025-11-25 task as one and return its result
    (``tasks/result`` waits for it); cancelled, the task is cancelled upstream."""
    created = await send(client, "tools/call", {**params, "task": {}}, on_progress=on_progress)
    task = created.get("task") if isinstance(created, dict) else None
    task_id = task.get("taskId") if isinstance(task, dict) else None
    if not isinstance(task_id, str):
        return created  # it ran as a plain call after all
    try:
        return await send(client, "tasks/result", {"taskId": task_id})
    except asyncio.CancelledError:
        with contextlib.suppress(McpError, ConnectionClosed):
            await asyncio.shield(
                client.session.request("tasks/cancel", {"taskId": task_id}, timeout=10)
            )
        raise


async def call_upstream(
    client: Upstream,
    link: Route,
    rctx: RequestContext,
    method: str,
    params: JSONObject | None,
) -> Any:
    """Forward ``method`` for ``rctx`` on ``client``: its progress to the client that asked
    for it, what the upstream says meanwhile related to it."""
    token = rctx.progress_token
    on_progress = None
    if token is not None:

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            note: JSONObject = {"progressToken": token, "progress": progress}
            if total is not None:
                note["total"] = total
            if message is not None:
                note["message"] = message
            with contextlib.suppress(ConnectionClosed, McpError):
                await rctx.notify("notifications/progress", note)

    link.in_flight.append(rctx)
    scope = link.scope_for(rctx)
    try:
        if scope is None:
            return await send(client, method, params, on_progress=on_progress)
        with scope:
            return await send(client, method, params, on_progress=on_progress)
    finally:
        link.in_flight.remove(rctx)


def with_envelope(
    params: JSONObject | None,
    capabilities: JSONObject,
    client_info: JSONObject | None,
    log_level: str,
) -> JSONObject:
    """``params`` for a 2026-07-28 upstream on behalf of a handshake-era client: its
    ``capabilities``, identity and ``log_level`` in the envelope (its own ``_meta`` kept,
    but for a progress token)."""
    body = dict(params or {})
    meta = body.get("_meta")
    extra = (
        {k: v for k, v in meta.items() if k != "progressToken"} if isinstance(meta, dict) else None
    )
    body["_meta"] = build_request_meta(
        versions.V2026_07_28.name,
        capabilities,
        client_info or None,
        log_level=log_level,
        extra=extra,
    )
    return body
