"""An HTTP server with a tool that runs long: ``python http_server.py PORT``."""

import asyncio
import sys

from mcpkit import Server

app = Server("busy")


@app.tool()
async def slow() -> str:
    """Run for a minute."""
    await asyncio.sleep(60)
    return "done"


@app.tool()
def quick() -> str:
    """Answer at once."""
    return "quick"


if __name__ == "__main__":
    app.run("http", port=int(sys.argv[1]))
