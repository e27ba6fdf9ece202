"""A fastmcp server the client scripts start: over stdio, or over Streamable HTTP with
``--http PORT``, or over HTTP+SSE with ``--sse PORT``."""

import sys

from fastmcp import FastMCP

mcp = FastMCP("Echo Server")


@mcp.tool
def echo_tool(text: str) -> str:
    """Echo the input text"""
    return text


@mcp.resource("echo://{text}")
def echo_template(text: str) -> str:
    """Echo the input text"""
    return f"Echo: {text}"


@mcp.prompt("echo")
def echo_prompt(text: str) -> str:
    return text


if __name__ == "__main__":
    if sys.argv[1:2] in (["--http"], ["--sse"]):
        transport = sys.argv[1][2:]
        mcp.run(transport, host="127.0.0.1", port=int(sys.argv[2]), show_banner=False)
    else:
        mcp.run()
