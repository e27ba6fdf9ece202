"""``fastmcp.server.http`` on mcpkit: its app factories import (a server module that
imports them still loads); calling one raises NotImplementedError, as the app is mcpkit's
(``FastMCP.http_app()``)."""

from __future__ import annotations

from typing import Any

__all__ = ["create_sse_app", "create_streamable_http_app"]


def create_sse_app(*args: Any, **kwargs: Any) -> Any:
    """Not served on mcpkit: use ``FastMCP.http_app(transport="sse")``."""
    raise NotImplementedError(
        "fastmcp.server.http.create_sse_app is not supported on mcpkit: "
        'use FastMCP.http_app(transport="sse")'
    )


def create_streamable_http_app(*args: Any, **kwargs: Any) -> Any:
    """Not served on mcpkit: use ``FastMCP.http_app()``."""
    raise NotImplementedError(
        "fastmcp.server.http.create_streamable_http_app is not supported on mcpkit: "
        "use FastMCP.http_app()"
    )
