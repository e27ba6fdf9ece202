"""``mcp.shared.transport_context`` on mcpkit: what a transport says of one inbound message
(2.x), for an entry that builds its own dispatch context (``stories/serve_one``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["TransportContext"]


@dataclass(kw_only=True, frozen=True)
class TransportContext:
    """The transport of a message: its ``kind``, whether a server-initiated request can
    reach the client on it (``can_send_request``), and its HTTP ``headers`` if any."""

    kind: str
    can_send_request: bool
    headers: Mapping[str, str] | None = None
