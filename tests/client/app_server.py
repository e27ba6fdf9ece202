"""An mcpkit ``Server`` for the client tests (in memory as ``app``; on stdio when run)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from pydantic import BaseModel

from mcpkit import Context, Server

events: list[str] = []


@asynccontextmanager
async def lifespan(app: Server) -> AsyncIterator[dict[str, Any]]:
    events.append("start")
    yield {"greeting": "hi"}
    events.append("stop")


app = Server("client-test-app", version="3.1.4", instructions="Be brief.", lifespan=lifespan)


class Forecast(BaseModel):
    city: str
    temp: float


@app.tool()
async def forecast(city: str, *, ctx: Context) -> Forecast:
    """Forecast with progress and a log line."""
    await ctx.info(f"forecasting {city}")
    await ctx.progress(1, 2, "fetching")
    await ctx.progress(2, 2, "done")
    return Forecast(city=city, temp=21.5)


@app.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@app.tool()
async def ask(question: str, *, ctx: Context) -> str:
    """Ask the client's LLM."""
    result = await ctx.sample(question, max_tokens=20)
    content = result.content
    return str(getattr(content, "text", content))


@app.tool()
async def who(*, ctx: Context) -> str:
    """Ask the user for a name (with defaults)."""
    answer = await ctx.elicit(
        "Who are you?",
        {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "age": {"type": "integer", "default": 30},
            },
            "required": ["name"],
        },
    )
    return f"{answer.action}: {answer.content}"


@app.tool()
async def count_roots(*, ctx: Context) -> int:
    """How many roots the client has."""
    return len(await ctx.list_roots())


@app.resource("res://hello", mime_type="text/plain")
def hello() -> str:
    """A greeting."""
    return "hello from the app"


@app.prompt()
def greet(who: str) -> str:
    """Greet someone."""
    return f"Say hello to {who}"


if __name__ == "__main__":
    app.run()
