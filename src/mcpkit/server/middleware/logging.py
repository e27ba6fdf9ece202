"""Request logging and timing with the standard :mod:`logging` module.

:class:`RequestLogging` writes one record per request (method, what it names, outcome,
duration, who asked) and, optionally, per notification; :class:`Timing` keeps per-method
counts and durations (:attr:`Timing.stats`) and logs the requests slower than a threshold.
Both put their facts in the record's ``extra`` (``mcp_method``, ``mcp_name``,
``mcp_outcome``, ``mcp_duration_ms``, ``mcp_client``, ``mcp_era``) for structured handlers.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

from mcpkit.errors import McpError
from mcpkit.logs import client_label
from mcpkit.server.middleware.base import CallNext, Middleware, MiddlewareContext

__all__ = ["MethodStats", "RequestLogging", "Timing"]


def _outcome(result: Any) -> str:
    if type(result) is dict and result.get("isError") is True:
        return "tool error"
    return "ok"


class RequestLogging(Middleware):
    """Log every request: ``tools/call echo: ok in 0.42 ms (connection:…, legacy)``.

    ``logger`` (a :class:`logging.Logger` or its name, default ``mcpkit.requests``) and
    ``level`` (default INFO) for what succeeded; an error response is logged at WARNING
    (``error -32602 Unknown tool: x``), an exception that becomes -32603 at ERROR.
    ``include_params``: add the params (cut at ``max_params_chars``) to the message.
    ``notifications``: log notifications too (at DEBUG)."""

    def __init__(
        self,
        logger: logging.Logger | str = "mcpkit.requests",
        level: int = logging.INFO,
        *,
        include_params: bool = False,
        max_params_chars: int = 500,
        notifications: bool = False,
    ) -> None:
        self.logger = logging.getLogger(logger) if isinstance(logger, str) else logger
        self.level = level
        self.include_params = include_params
        self.max_params_chars = max_params_chars
        self.notifications = notifications

    def hooks_for(self, method: str, notification: bool) -> list[Any]:
        if notification and not self.notifications:
            return []
        return [self.on_message]

    def _emit(self, level: int, ctx: MiddlewareContext, outcome: str, started: float) -> None:
        logger = self.logger
        if not logger.isEnabledFor(level):
            return
        ms = (time.perf_counter() - started) * 1000
        what = ctx.method if ctx.name is None else f"{ctx.method} {ctx.name}"
        client = client_label(ctx.client_id)  # a session id is a secret: its tag
        text = f"{what}: {outcome} in {ms:.2f} ms ({client}, {ctx.era})"
        if self.include_params and ctx.params:
            params = repr(ctx.params)
            if len(params) > self.max_params_chars:
                params = params[: self.max_params_chars] + "…"
            text += f" params={params}"
        logger.log(
            level,
            "%s",
            text,
            extra={
                "mcp_method": ctx.method,
                "mcp_name": ctx.name,
                "mcp_outcome": outcome,
                "mcp_duration_ms": ms,
                "mcp_client": client,
                "mcp_era": ctx.era,
            },
        )

    async def on_message(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
        started = time.perf_counter()
        ok_level = logging.DEBUG if ctx.request is None else self.level
        try:
            result = await call_next(ctx)
        except McpError as exc:
            self._emit(logging.WARNING, ctx, f"error {exc.code} {exc.message}", started)
            raise
        except asyncio.CancelledError:
            self._emit(ok_level, ctx, "cancelled", started)
            raise
        except Exception as exc:
            self._emit(logging.ERROR, ctx, f"failed ({type(exc).__name__}: {exc})", started)
            raise
        self._emit(ok_level, ctx, "notified" if ctx.request is None else _outcome(result), started)
        return result


@dataclass
class MethodStats:
    """What :class:`Timing` measured for one method (or tool)."""

    count: int = 0
    errors: int = 0
    total_seconds: float = 0.0
    max_seconds: float = 0.0

    @property
    def mean_ms(self) -> float:
        """Mean duration in milliseconds (0 before the first request)."""
        return self.total_seconds * 1000 / self.count if self.count else 0.0


class Timing(Middleware):
    """Time every request: :attr:`stats` maps ``"tools/call echo"`` (tool calls, prompts and
    reads by name) or the method to a :class:`MethodStats`; a request slower than
    ``slow_ms`` is logged at WARNING on ``logger``. Errors (an error response, a tool's
    ``isError`` result) count in ``errors``."""

    def __init__(
        self, *, slow_ms: float | None = None, logger: logging.Logger | str = "mcpkit.requests"
    ) -> None:
        self.slow_ms = slow_ms
        self.logger = logging.getLogger(logger) if isinstance(logger, str) else logger
        #: Per method (or ``method name``) statistics.
        self.stats: dict[str, MethodStats] = {}

    async def on_request(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
        started = time.perf_counter()
        failed = True
        try:
            result = await call_next(ctx)
            failed = type(result) is dict and result.get("isError") is True
            return result
        finally:
            elapsed = time.perf_counter() - started
            name = ctx.name
            key = ctx.method if name is None else f"{ctx.method} {name}"
            stats = self.stats.get(key)
            if stats is None:
                stats = self.stats[key] = MethodStats()
            stats.count += 1
            stats.errors += failed
            stats.total_seconds += elapsed
            if elapsed > stats.max_seconds:
                stats.max_seconds = elapsed
            if self.slow_ms is not None and elapsed * 1000 >= self.slow_ms:
                self.logger.warning(
                    "Slow request: %s took %.1f ms (%s)",
                    key,
                    elapsed * 1000,
                    client_label(ctx.client_id),
                    extra={"mcp_method": ctx.method, "mcp_duration_ms": elapsed * 1000},
                )
