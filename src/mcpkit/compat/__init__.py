"""Run servers written for other Python MCP SDKs on mcpkit by changing one import.

- :mod:`mcpkit.compat.mcp` mirrors the official SDK's ``mcp`` package for what a high-level
  server uses (``mcp.server.mcpserver.MCPServer``, ``Context``, ``Image``, ``mcp.types``):
  rewrite ``mcp.`` to ``mcpkit.compat.mcp.`` in the imports.
- :mod:`mcpkit.compat.fastmcp` is the same for ``fastmcp``'s ``FastMCP`` and ``Context``.

Both are thin adapters over :class:`mcpkit.Server` (see :mod:`mcpkit.compat._adapt`): the
wire, the schemas' validation, both protocol eras and the transports are mcpkit's; the
adapters translate names and keep the other SDK's result conversion rules.
"""
