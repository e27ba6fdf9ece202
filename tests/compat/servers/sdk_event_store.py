"""A 1.x-style low-level server behind ``StreamableHTTPSessionManager`` with an event store
of the official SDK's interface written here: it records every call made to it (tool
``calls`` answers the record) and awaits inside each method, as a store over a network does.
Served by uvicorn on the port given last; ``--stateless`` and ``--json`` set the manager's
flags. Runs unchanged on the official SDK and on mcpkit.
"""

import contextlib
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp.types as types
import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.applications import Starlette
from starlette.routing import Mount


class RecordingStore(EventStore):
    """Events in a list, under ids ``ev0``, ``ev1``, ...; every call recorded."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, Any]] = []
        self.calls: list[list[Any]] = []

    async def store_event(self, stream_id: str, message: Any) -> str:
        await anyio.sleep(0.001)
        event_id = f"ev{len(self.events)}"
        self.events.append((event_id, stream_id, message))
        dumped = None if message is None else message.model_dump(by_alias=True, exclude_none=True)
        self.calls.append(["store_event", stream_id, dumped])
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> Any:
        await anyio.sleep(0.001)
        self.calls.append(["replay_events_after", last_event_id])
        ids = [event[0] for event in self.events]
        if last_event_id not in ids:
            return None
        at = ids.index(last_event_id)
        stream = self.events[at][1]
        for event_id, stream_id, message in self.events[at + 1 :]:
            if stream_id == stream and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream


store = RecordingStore()
app = Server("recorded")


@app.call_tool()
async def call_tool(name: str, arguments: dict[str, Any]) -> list[types.TextContent]:
    ctx = app.request_context
    if name == "calls":
        return [types.TextContent(type="text", text=json.dumps(store.calls))]
    for n in range(2):
        await ctx.session.send_log_message(
            level="info", data=f"note {n}", logger="notes", related_request_id=ctx.request_id
        )
    return [types.TextContent(type="text", text="done")]


@app.list_tools()
async def list_tools() -> list[types.Tool]:
    schema = {"type": "object", "properties": {}}
    return [
        types.Tool(name="notes", description="Two log lines, then done", inputSchema=schema),
        types.Tool(name="calls", description="The store's calls so far", inputSchema=schema),
    ]


manager = StreamableHTTPSessionManager(
    app=app,
    event_store=store,
    stateless="--stateless" in sys.argv,
    json_response="--json" in sys.argv,
)


async def handle(scope: Any, receive: Any, send: Any) -> None:
    await manager.handle_request(scope, receive, send)


@contextlib.asynccontextmanager
async def lifespan(_app: Starlette) -> AsyncIterator[None]:
    async with manager.run():
        yield


starlette_app = Starlette(routes=[Mount("/mcp", app=handle)], lifespan=lifespan)

if __name__ == "__main__":
    uvicorn.run(starlette_app, host="127.0.0.1", port=int(sys.argv[-1]), log_level="error")
