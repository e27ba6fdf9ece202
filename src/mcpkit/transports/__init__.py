"""Transports: stdio, in-memory, and (with the ``http`` extra) Streamable HTTP.

The transports load on first use: an HTTP server does not import stdio's, nor the reverse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpkit._lazy import load_export
from mcpkit.transports.base import MessageSink, Transport

# public name -> submodule that defines it
_EXPORTS = {
    "MemoryTransport": "memory",
    "StdioClientTransport": "stdio",
    "StdioServerTransport": "stdio",
}

if TYPE_CHECKING:
    from mcpkit.transports.memory import MemoryTransport
    from mcpkit.transports.stdio import StdioClientTransport, StdioServerTransport

__all__ = [
    "MemoryTransport",
    "MessageSink",
    "StdioClientTransport",
    "StdioServerTransport",
    "Transport",
]


def __getattr__(name: str) -> Any:
    return load_export(__name__, name, _EXPORTS, globals(), prefix=__name__ + ".")
