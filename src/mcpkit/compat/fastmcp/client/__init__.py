"""``fastmcp.client`` on mcpkit: :class:`Client` (on :class:`mcpkit.Client`), its
transports and :class:`CallToolResult`."""

from __future__ import annotations

from mcpkit.compat.fastmcp.client.client import CallToolResult, Client
from mcpkit.compat.fastmcp.client.messages import MessageHandler
from mcpkit.compat.fastmcp.client.transports import (
    FastMCPTransport,
    MCPConfigTransport,
    NodeStdioTransport,
    PythonStdioTransport,
    SSETransport,
    StdioTransport,
    StreamableHttpTransport,
)

__all__ = [
    "CallToolResult",
    "Client",
    "FastMCPTransport",
    "MCPConfigTransport",
    "MessageHandler",
    "NodeStdioTransport",
    "PythonStdioTransport",
    "SSETransport",
    "StdioTransport",
    "StreamableHttpTransport",
]
