"""Retries that honour the server: which failed requests are sent again, after how long, and
within what budget.

A failure is one of three kinds (:func:`classify`), and each kind says which requests may be
repeated:

- **refused** -- the server said the request did not run: ``RateLimited`` (-31429),
  ``Overloaded`` (-31503), HTTP 429 or 503. Any method is retried, after the time the server
  asked for (``data.retryAfterMs`` or the ``Retry-After`` header) when it named one.
- **unsent** -- the connection could not be made, so nothing reached the server. Any method.
- **lost** -- the connection broke after the request was sent (or a gateway answered 502/504):
  the server may have run it. Only requests that are safe to repeat: reads and lists
  (:data:`SAFE_METHODS`) and calls of tools annotated ``idempotentHint`` or
  ``readOnlyHint``.

Everything else (a tool's error, invalid params, a closed stdio session) is final. Waits grow
exponentially from ``backoff`` with random jitter when the server named no time, and all the
waits of one request together stay within ``budget`` seconds: a retry that would pass it is
not made, and the last error is raised.

The policy is pure (no I/O, no clock): :meth:`Retry.delay` answers "wait this long, then send
again" or "give up"; :class:`~mcpkit.client.Client` does the waiting and the sending, with a
new request id each time, and reports each retry to telemetry and to ``on_retry``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from mcpkit.errors import HTTP_ERROR, McpError, Overloaded, RateLimited

__all__ = ["SAFE_METHODS", "FailureKind", "Retry", "RetryEvent", "classify"]

FailureKind = Literal["refused", "unsent", "lost"]

#: Requests that read or list, or set what they set again: repeating one changes nothing.
SAFE_METHODS: Final = frozenset(
    {
        "ping",
        "server/discover",
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/list",
        "prompts/get",
        "completion/complete",
        "logging/setLevel",
        "tasks/get",
        "tasks/list",
        "tasks/result",
    }
)

# httpx's names for failures before the request left this machine (nothing was sent).
_UNSENT: Final = frozenset({"ConnectError", "ConnectTimeout", "PoolTimeout", "UnsupportedProtocol"})


def _seconds(data: Any) -> float | None:
    ms = data.get("retryAfterMs") if isinstance(data, dict) else None
    if isinstance(ms, int | float) and not isinstance(ms, bool) and ms >= 0:
        return ms / 1000
    return None


def classify(error: BaseException) -> tuple[FailureKind, float | None] | None:
    """The kind of a failed request's error and the wait the server asked for (seconds, or
    None when it named none); None for an error that no retry can help."""
    if isinstance(error, RateLimited | Overloaded):
        return "refused", _seconds(error.data)
    if not isinstance(error, McpError) or error.code != HTTP_ERROR:
        return None
    data = error.data if isinstance(error.data, dict) else {}
    status = data.get("status")
    if status in (429, 503):
        return "refused", _seconds(data)
    if status in (502, 504):
        return "lost", _seconds(data)
    exception = data.get("exception")
    if isinstance(exception, str):
        return ("unsent" if exception in _UNSENT else "lost"), None
    return None


@dataclass(frozen=True, slots=True)
class RetryEvent:
    """One retry about to happen: the ``attempt`` that failed (1 for the first send), the
    ``error`` it failed with, its ``kind`` and the ``delay`` before the next send."""

    method: str
    attempt: int
    kind: FailureKind
    delay: float
    error: BaseException


@dataclass(frozen=True, slots=True)
class Retry:
    """When a failed request is sent again (``Client(retry=Retry(...))``).

    ``attempts``: sends in all, the first included. ``budget``: seconds of waiting in all
    across the retries of one request. ``backoff``: the first wait when the server named
    none, doubled on each retry up to ``max_backoff``; ``jitter``: each wait is stretched by
    up to this fraction at random, so clients refused together do not return together.
    ``connection_lost``: retry requests cut off after they were sent (safe ones only; see
    the module). ``on_retry``: called with a :class:`RetryEvent` before each wait."""

    attempts: int = 4
    budget: float = 30.0
    backoff: float = 0.25
    max_backoff: float = 8.0
    jitter: float = 0.25
    connection_lost: bool = True
    on_retry: Callable[[RetryEvent], object] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("Retry.attempts must be at least 1 (the first send)")
        if self.budget < 0 or self.backoff < 0 or self.max_backoff < 0:
            raise ValueError("Retry.budget, backoff and max_backoff must not be negative")
        if not 0 <= self.jitter <= 1:
            raise ValueError("Retry.jitter must be between 0 and 1")

    def delay(
        self,
        error: BaseException,
        method: str,
        *,
        attempt: int,
        waited: float,
        repeatable: bool = False,
        rand: Callable[[], float] = random.random,
    ) -> tuple[FailureKind, float] | None:
        """After send number ``attempt`` of ``method`` failed with ``error`` and ``waited``
        seconds were already spent waiting: the failure's kind and how long to wait before
        sending again, or None to give up. ``repeatable``: the request is safe to repeat
        beyond :data:`SAFE_METHODS` (a tool annotated idempotent or read-only)."""
        if attempt >= self.attempts:
            return None
        found = classify(error)
        if found is None:
            return None
        kind, asked = found
        if kind == "lost" and not (self.connection_lost and (method in SAFE_METHODS or repeatable)):
            return None
        # The server's time, else exponential backoff; jitter only ever adds (never sooner
        # than the server asked).
        base = min(self.max_backoff, self.backoff * 2 ** (attempt - 1)) if asked is None else asked
        wait = base * (1 + self.jitter * rand())
        if waited + wait > self.budget:
            return None
        return kind, wait
