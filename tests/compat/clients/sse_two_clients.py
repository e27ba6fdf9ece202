"""Two official clients over HTTP+SSE at the URL given, both connected at once, then a third
after they left: each calls ``which`` and the answers are printed, one a line."""

import sys

import anyio
from mcp import ClientSession
from mcp.client.sse import sse_client

URL = sys.argv[1]


async def call(opened: anyio.Event, done: anyio.Event, out: list[str], index: int) -> None:
    async with sse_client(URL) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        opened.set()
        await done.wait()  # both connected before either calls
        result = await session.call_tool("which", {})
        out[index] = result.content[0].text


async def main() -> None:
    out = ["", ""]
    first, second, both = anyio.Event(), anyio.Event(), anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(call, first, both, out, 0)
        await first.wait()
        tg.start_soon(call, second, both, out, 1)
        await second.wait()
        both.set()
    later = [""]
    alone = anyio.Event()
    alone.set()
    await call(anyio.Event(), alone, later, 0)
    print("\n".join([*out, *later]))


anyio.run(main)
