"""An ``MCPServer`` (mcp 2.x) answering with JSON bodies (``json_response=True``) whose tools
ask the client mid-call (``ctx.elicit``, ``ctx.session.create_message``): with no SSE
stream there is no back-channel, so mcp 2.x refuses the request (``NoBackChannelError``).
Served by uvicorn on the port given last.
"""

import sys

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import SamplingMessage, TextContent
from pydantic import BaseModel

mcp = MCPServer("back-channel")


class Name(BaseModel):
    name: str


@mcp.tool()
async def ask(ctx: Context) -> str:
    """Ask the client for a name."""
    answer = await ctx.elicit("Your name?", schema=Name)
    return f"got {answer.action}"


@mcp.tool()
async def sample(ctx: Context) -> str:
    """Ask the client's model."""
    message = SamplingMessage(role="user", content=TextContent(type="text", text="hi"))
    result = await ctx.session.create_message(messages=[message], max_tokens=5)
    return str(result.content)


if __name__ == "__main__":
    app = mcp.streamable_http_app(json_response=True)
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[-1]), log_level="error")
