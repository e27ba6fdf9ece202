"""Transports: stdio, in-memory, and (with the ``http`` extra) Streamable HTTP."""

from mcpkit.transports.base import MessageSink, Transport
from mcpkit.transports.memory import MemoryTransport
from mcpkit.transports.stdio import StdioClientTransport, StdioServerTransport

__all__ = [
    "MemoryTransport",
    "MessageSink",
    "StdioClientTransport",
    "StdioServerTransport",
    "Transport",
]
