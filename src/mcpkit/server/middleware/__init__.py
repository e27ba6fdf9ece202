"""Middleware: an async chain around every request and notification a server handles.

```python
from mcpkit import Server
from mcpkit.server.middleware import Middleware, RateLimit, RequestLogging

app = Server("demo", middleware=[RequestLogging(), RateLimit(rate=10, burst=20)])

class Audit(Middleware):
    async def on_call_tool(self, ctx, call_next):
        result = await call_next(ctx)
        print(ctx.client_id, "called", ctx.name)
        return result

app.add_middleware(Audit())
```

The interface is in :mod:`.base` (:class:`MiddlewareContext`, :class:`Middleware`), the
chain in :mod:`.chain`; the built-in middleware: :class:`RequestLogging` and
:class:`Timing` (:mod:`.logging`), :class:`RateLimit` (:mod:`.rate_limit`),
:class:`InFlightLimit` and the per-tool :class:`ConcurrencyLimiter` (:mod:`.concurrency`),
:class:`ResponseSizeLimit` (:mod:`.size`), :class:`ResultCache` (:mod:`.cache`); their
errors in :mod:`.errors`. Names load on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpkit.server.middleware.base import (
        METHOD_HOOKS,
        CallNext,
        HookProvider,
        Middleware,
        MiddlewareContext,
        MiddlewareFunction,
        MiddlewareLike,
    )
    from mcpkit.server.middleware.cache import ResultCache
    from mcpkit.server.middleware.chain import plain_result
    from mcpkit.server.middleware.concurrency import ConcurrencyLimiter, InFlightLimit
    from mcpkit.server.middleware.errors import (
        OVERLOADED,
        RATE_LIMITED,
        RESPONSE_TOO_LARGE,
        Overloaded,
        RateLimited,
        ResponseTooLarge,
    )
    from mcpkit.server.middleware.logging import MethodStats, RequestLogging, Timing
    from mcpkit.server.middleware.rate_limit import RateLimit, TokenBucket
    from mcpkit.server.middleware.size import ResponseSizeLimit

_WHERE = {
    "METHOD_HOOKS": "base",
    "CallNext": "base",
    "HookProvider": "base",
    "Middleware": "base",
    "MiddlewareContext": "base",
    "MiddlewareFunction": "base",
    "MiddlewareLike": "base",
    "plain_result": "chain",
    "ConcurrencyLimiter": "concurrency",
    "InFlightLimit": "concurrency",
    "OVERLOADED": "errors",
    "RATE_LIMITED": "errors",
    "RESPONSE_TOO_LARGE": "errors",
    "Overloaded": "errors",
    "RateLimited": "errors",
    "ResponseTooLarge": "errors",
    "ResultCache": "cache",
    "MethodStats": "logging",
    "RequestLogging": "logging",
    "Timing": "logging",
    "RateLimit": "rate_limit",
    "TokenBucket": "rate_limit",
    "ResponseSizeLimit": "size",
}

__all__ = [
    "METHOD_HOOKS",
    "OVERLOADED",
    "RATE_LIMITED",
    "RESPONSE_TOO_LARGE",
    "CallNext",
    "ConcurrencyLimiter",
    "HookProvider",
    "InFlightLimit",
    "MethodStats",
    "Middleware",
    "MiddlewareContext",
    "MiddlewareFunction",
    "MiddlewareLike",
    "Overloaded",
    "RateLimit",
    "RateLimited",
    "RequestLogging",
    "ResponseSizeLimit",
    "ResponseTooLarge",
    "ResultCache",
    "Timing",
    "TokenBucket",
    "plain_result",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
