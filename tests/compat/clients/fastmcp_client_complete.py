"""fastmcp's Client.complete on both wires, against a server's bare `@mcp.completion` handler
(a prompt argument, and a template argument completed with the context of another)."""

import asyncio

from fastmcp import Client, FastMCP
from mcp_types import PromptReference, ResourceTemplateReference

mcp = FastMCP("c")


@mcp.prompt
def review(language: str) -> str:
    return language


@mcp.resource("repo://{owner}/{name}")
def repo(owner: str, name: str) -> str:
    return owner


@mcp.completion
def complete(ref, argument, context):
    if argument.name == "language":
        return [x for x in ["python", "perl", "rust"] if x.startswith(argument.value)]
    if argument.name == "name":
        owner = (context.arguments or {}).get("owner") if context else None
        return [f"{owner}-a", f"{owner}-b"]
    return None


async def go():
    for mode in ("auto", "legacy"):
        async with Client(mcp, mode=mode) as c:
            print(c.server_capabilities.completions is not None)
            r = await c.complete(
                PromptReference(type="ref/prompt", name="review"),
                {"name": "language", "value": "p"},
            )
            print(type(r).__name__, r.values, r.total, r.has_more)
            r = await c.complete(
                ResourceTemplateReference(type="ref/resource", uri="repo://{owner}/{name}"),
                {"name": "name", "value": ""},
                {"owner": "ada"},
            )
            print(r.values)


if __name__ == "__main__":
    asyncio.run(go())
