"""Logging to the client: ``logging/setLevel`` and ``notifications/message``.

Each session has its own minimum level (set by the client with ``logging/setLevel``; until
then everything is sent). On the 2026-07-28 wire there is no ``logging/setLevel``: a request
carries its own ``io.modelcontextprotocol/logLevel`` and gets ``notifications/message`` only
when it does (at that level or above). ``ctx.log(...)`` and the ``ctx.debug/info/...``
helpers send a ``notifications/message`` only when the level is at or above it.
:class:`McpLogHandler` bridges Python's :mod:`logging`: records logged while a request is
being served go to that request's client, other records to every connected client.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Final, Literal

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.server.session import current_context

if TYPE_CHECKING:
    from mcpkit.server.session import ServerHandler, ServerRequestContext, SessionHolder

__all__ = [
    "LEVELS",
    "LoggingLevel",
    "McpLogHandler",
    "current_context",
    "handlers",
    "level_from_python",
    "parse_level",
    "set_level",
]

LoggingLevel = Literal[
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"
]
#: Severity of each level (RFC 5424 order, lowest first).
LEVELS: Final[dict[str, int]] = {
    "debug": 0,
    "info": 1,
    "notice": 2,
    "warning": 3,
    "error": 4,
    "critical": 5,
    "alert": 6,
    "emergency": 7,
}


def parse_level(params: JSONObject | None) -> int:
    """The severity requested by ``logging/setLevel`` params; -32602 when invalid."""
    level = params.get("level") if isinstance(params, dict) else None
    if not isinstance(level, str) or level not in LEVELS:
        raise McpError(
            INVALID_PARAMS,
            f"logging/setLevel: 'level' must be one of {', '.join(LEVELS)}",
        )
    return LEVELS[level]


async def set_level(params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
    """``logging/setLevel``: the session's threshold for ``notifications/message``."""
    rctx.session.log_level = parse_level(params)
    return {}


def handlers() -> dict[str, ServerHandler]:
    """``logging/setLevel``, by method."""
    return {"logging/setLevel": set_level}


def level_from_python(levelno: int) -> LoggingLevel:
    """The MCP level for a Python :mod:`logging` level number."""
    if levelno >= logging.CRITICAL:
        return "critical"
    if levelno >= logging.ERROR:
        return "error"
    if levelno >= logging.WARNING:
        return "warning"
    if levelno >= logging.INFO:
        return "info"
    return "debug"


class McpLogHandler(logging.Handler):
    """A :mod:`logging` handler that forwards records to MCP clients (see the module doc).

    ``logging.getLogger("myapp").addHandler(app.log_handler())``. Safe to use from worker
    threads (sync tools): records are handed to the event loop.
    """

    def __init__(self, server: SessionHolder, level: int = logging.NOTSET) -> None:
        super().__init__(level)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith("mcpkit"):
            return  # never echo the SDK's own logs back over the wire
        try:
            message = self.format(record) if self.formatter else record.getMessage()
        except Exception:
            self.handleError(record)
            return
        level = level_from_python(record.levelno)
        data: Any = message
        ctx = current_context.get()
        envelope = None
        if ctx is not None:
            sessions: list[Any] = [ctx.session]
            related = ctx.request_id
            envelope = ctx.envelope
        else:
            sessions = list(self.server.sessions)
            related = None
        for session in sessions:
            loop = session.loop
            coro_args = (level, data, record.name, related, None, envelope)
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                session.spawn(session.send_log(*coro_args))
            else:
                loop.call_soon_threadsafe(lambda s=session, a=coro_args: s.spawn(s.send_log(*a)))
