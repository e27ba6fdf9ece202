"""What a request and a server say about themselves, for spans and metrics alike (no
OpenTelemetry or prometheus-client import here)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final, Protocol

from mcpkit.telemetry import semconv as sc

if TYPE_CHECKING:
    from mcpkit.server.middleware.base import MiddlewareContext

__all__ = [
    "CLIENT_ADDRESS",
    "ObservedServer",
    "active_sessions",
    "active_tasks",
    "created_task",
    "describe",
]

CLIENT_ADDRESS: Final = "client.address"


class _Session(Protocol):
    @property
    def era(self) -> str | None: ...


class _Tasks(Protocol):
    @property
    def running_count(self) -> int: ...


class ObservedServer(Protocol):
    """What telemetry reads of a server (a :class:`~mcpkit.Server` is one): its open
    sessions and its task manager."""

    @property
    def sessions(self) -> Iterable[_Session]: ...

    @property
    def task_manager(self) -> _Tasks: ...


def describe(ctx: MiddlewareContext) -> tuple[str | None, dict[str, Any]]:
    """The target (tool or prompt name) of the request ``ctx`` and its span attributes."""
    method = ctx.method
    params = ctx.params
    target = sc.target_of(method, params)
    attrs = sc.request_attributes(method, params, target)
    request = ctx.request
    if request is not None:
        attrs[sc.JSONRPC_REQUEST_ID] = str(request.request_id)
        envelope = request.envelope
        if envelope is not None:
            attrs[sc.MCP_PROTOCOL_VERSION] = envelope.protocol_version
    if sc.MCP_PROTOCOL_VERSION not in attrs:
        version = ctx.session.protocol_version
        if version is not None:
            attrs[sc.MCP_PROTOCOL_VERSION] = version.name
    session_id = ctx.session_id
    if session_id is not None:
        attrs[sc.MCP_SESSION_ID] = session_id
    attrs.update(sc.network_attributes(ctx.session.transport.info.kind))
    address = ctx.remote_address
    if address is not None:
        attrs[CLIENT_ADDRESS] = address
    return target, attrs


def created_task(method: str, result: Any) -> bool:
    """True when ``result`` answers a ``tools/call`` with a new task: a ``CreateTaskResult``
    (2025-11-25) or a result of ``resultType`` ``"task"`` (the 2026 tasks extension)."""
    if method != "tools/call" or type(result) is not dict:
        return False
    return type(result.get("task")) is dict or result.get("resultType") == "task"


def active_sessions(server: ObservedServer) -> int:
    """2025-era sessions open on ``server`` (2026-07-28 requests stand alone: no session)."""
    return sum(1 for session in list(server.sessions) if session.era != "modern")


def active_tasks(server: ObservedServer) -> int:
    """Tasks of ``server`` running in this process."""
    return server.task_manager.running_count
