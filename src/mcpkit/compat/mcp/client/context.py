"""``mcp.client.ClientRequestContext`` on mcpkit: what a client callback (sampling,
elicitation, roots) is told about the server's request it answers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ClientRequestContext"]


@dataclass
class ClientRequestContext:
    """The server's request a callback answers: its id and ``_meta``; ``session`` is the
    mcpkit session it arrived on."""

    session: Any
    request_id: Any
    meta: Any = None


def request_context(native: Any) -> ClientRequestContext:
    """The ``ClientRequestContext`` of mcpkit's request context ``native``."""
    return ClientRequestContext(
        session=getattr(native, "session", None),
        request_id=getattr(native, "request_id", None),
        meta=getattr(native, "meta", None),
    )
