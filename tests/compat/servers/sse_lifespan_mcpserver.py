"""A 2.x ``MCPServer`` with a lifespan served by ``run(transport="sse")`` on the port given
last: each entry of the lifespan is numbered, and the ``which`` tool says which entry its
request sees and how many are open."""

import contextlib
import sys
from collections.abc import AsyncIterator

from mcp.server.mcpserver import Context, MCPServer

entered = 0
open_now = 0


@contextlib.asynccontextmanager
async def lifespan(server: MCPServer) -> AsyncIterator[dict[str, int]]:
    global entered, open_now
    entered += 1
    open_now += 1
    try:
        yield {"entry": entered}
    finally:
        open_now -= 1


mcp = MCPServer("sse-lifespan", lifespan=lifespan)


@mcp.tool()
def which(ctx: Context) -> str:
    """Which lifespan entry this request sees."""
    state = ctx.request_context.lifespan_context
    return f"entry {state['entry']} of {open_now} open"


if __name__ == "__main__":
    mcp.run(transport="sse", port=int(sys.argv[-1]))
