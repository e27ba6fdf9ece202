"""An extension's ``tools/call`` interceptor and middleware added before and after the
server is made: the tool reports the order they ran in (2.x: every middleware outside
the interceptors, which run at the handler)."""

from typing import Any

import mcp.types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension
from mcp.server.mcpserver import MCPServer

order: list[str] = []


class Audit(Extension):
    identifier = "com.example/audit"

    async def intercept_tool_call(
        self,
        params: types.CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        order.append("interceptor")
        return await call_next(ctx)


def recording(name: str) -> Any:
    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        if ctx.method == "tools/call":
            order.append(name)
        return await call_next(ctx)

    return middleware


mcp = MCPServer("ordered", extensions=[Audit()], middleware=[recording("given")])
mcp.middleware.append(recording("appended"))


@mcp.tool()
def report() -> str:
    """The order the wrappers of this call ran in."""
    ran = ", ".join(order)
    order.clear()
    return ran


if __name__ == "__main__":
    mcp.run()
