"""A stdio server with a tool that runs long; it says when it starts and, in the file named
by ``$BUSY_MARKER``, how it ended."""

import asyncio
import os

from mcpkit import Context, Server

app = Server("busy")


def mark(how: str) -> None:
    with open(os.environ["BUSY_MARKER"], "w") as f:
        f.write(how)


@app.tool()
async def slow(ctx: Context) -> str:
    """Run for a minute."""
    await ctx.info("working")
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        mark("cancelled")
        raise
    return "done"


if __name__ == "__main__":
    app.run()
