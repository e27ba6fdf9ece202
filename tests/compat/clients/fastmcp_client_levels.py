"""fastmcp's Client: logging levels on both wires, prompt arguments that are not strings,
binary resource contents, the JSON-RPC errors of an unknown resource and prompt."""

import asyncio

from fastmcp import Client, Context, FastMCP
from mcp.shared.exceptions import MCPError

mcp = FastMCP("levels")


@mcp.tool
async def talk(ctx: Context) -> str:
    await ctx.debug("dbg")
    await ctx.info("inf")
    await ctx.error("err")
    return "ok"


@mcp.prompt
def p(n: int, flag: bool = False) -> str:
    return f"n={n!r} flag={flag!r}"


@mcp.resource("bin://x", mime_type="application/octet-stream")
def b() -> bytes:
    return b"\x00\x01"


async def log(m):
    print("log", m.level, m.data)


async def go():
    for mode in ("auto", "legacy"):
        async with Client(mcp, mode=mode, log_handler=log) as c:
            try:
                await c.set_logging_level("error")
                print(mode, "set ok")
            except Exception as e:
                print(mode, type(e).__name__, getattr(getattr(e, "error", None), "code", None))
            print((await c.call_tool("talk")).data)
            pr = await c.get_prompt("p", {"n": 3, "flag": True})
            print([m.content.text for m in pr.messages])
            rc = await c.read_resource("bin://x")
            print([(type(x).__name__, x.blob, x.mime_type) for x in rc])
            for bad in (lambda: c.read_resource("nothing://here"), lambda: c.get_prompt("nope")):
                try:
                    await bad()
                except MCPError as exc:
                    print("refused:", exc.error.code, exc.error.message)


if __name__ == "__main__":
    asyncio.run(go())
