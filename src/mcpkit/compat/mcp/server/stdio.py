"""``mcp.server.stdio`` on mcpkit: ``async with stdio_server() as (read, write)`` gives the
streams a low-level ``Server.run`` serves stdin/stdout on (mcpkit's stdio transport)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

__all__ = ["StdioStream", "stdio_server"]


class StdioStream:
    """One side of stdin/stdout, for ``Server.run`` (mcpkit's transport does the I/O)."""

    __slots__ = ("side",)

    def __init__(self, side: str) -> None:
        self.side = side

    def __repr__(self) -> str:
        return f"<stdio {self.side}>"


@contextlib.asynccontextmanager
async def stdio_server(
    stdin: Any = None, stdout: Any = None
) -> AsyncIterator[tuple[StdioStream, StdioStream]]:
    """The ``(read_stream, write_stream)`` of this process's stdin and stdout."""
    yield StdioStream("read"), StdioStream("write")
