"""Configured headers go to the configured origin only.

Headers the user gives the HTTP client transport (an API key, an ``Authorization`` value)
are meant for the MCP server they configured. Each request carrying them is marked with
that origin (``request.extensions``, which httpx keeps across redirects), and a request hook
drops them from any request to another origin (scheme, host and port), such as a redirect
the server answered with.
"""

from __future__ import annotations

from collections.abc import Iterable

import httpx

from mcpkit.fetch.policy import origin_of

__all__ = ["GUARD", "guard_client", "guarded"]

_DEFAULT_PORTS = {"http": 80, "https": 443}

#: The ``request.extensions`` key: (origin, lower-case names of the configured headers).
GUARD = "mcpkit.configured_headers"


async def _drop_foreign(request: httpx.Request) -> None:
    """The request hook: a marked request to another origin loses the configured headers."""
    guard = request.extensions.get(GUARD)
    if guard is None:
        return
    origin, names = guard
    url = request.url
    if (url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme)) != origin:
        for name in names:
            if name in request.headers:
                del request.headers[name]


def guard_client(client: httpx.AsyncClient) -> None:
    """Install the hook on ``client`` (once; it touches only marked requests)."""
    hooks = client.event_hooks
    if _drop_foreign not in hooks.get("request", []):
        client.event_hooks = {**hooks, "request": [*hooks.get("request", []), _drop_foreign]}


def guarded(url: str, headers: Iterable[str]) -> dict[str, object] | None:
    """The ``extensions`` marking requests to ``url`` that carry the configured ``headers``
    (names; with an auth, its ``DPoP`` proof too: httpx drops only ``Authorization``), None
    when there are none: nothing to guard."""
    headers = list(headers)
    if not headers:
        return None
    return {GUARD: (origin_of(url), tuple(name.lower() for name in headers))}
