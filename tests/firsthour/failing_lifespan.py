"""A server whose lifespan fails (its database is unreachable)."""

import contextlib
from collections.abc import AsyncIterator

from mcpkit import Server


@contextlib.asynccontextmanager
async def lifespan(server: Server) -> AsyncIterator[None]:
    raise RuntimeError("database unreachable")
    yield


app = Server("failing", lifespan=lifespan)


@app.tool()
def ping() -> str:
    """Answer."""
    return "pong"
