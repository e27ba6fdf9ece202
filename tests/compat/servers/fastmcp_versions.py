"""fastmcp's component versions, one version per name: a versioned tool, prompt, resource
and template listed with ``_meta.fastmcp.version`` and ``versions``, and served."""

import os

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

from fastmcp import FastMCP

mcp = FastMCP("versions")


@mcp.tool(version="2.0", tags={"math"})
def calc(a: int, b: int = 0) -> int:
    """Add two numbers."""
    return a + b


@mcp.tool(version=3)
def lookup(key: str) -> str:
    return key.upper()


@mcp.tool
def plain() -> str:
    return "x"


@mcp.prompt(version="1.1")
def greet(name: str) -> str:
    return f"Hello {name}"


@mcp.resource("config://app", version="5")
def config() -> str:
    return "on"


@mcp.resource("users://{uid}", version="1")
def user(uid: str) -> str:
    return f"user {uid}"


if __name__ == "__main__":
    mcp.run()
