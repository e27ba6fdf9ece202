"""One server showing every server feature of MCP, in readable code.

    python examples/server_everything.py            # serve on stdio
    python examples/server_everything.py http 8000  # serve Streamable HTTP on :8000/mcp
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from mcpkit import Context, Image, Server, ToolError
from mcpkit.server import AppSession, user

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5e1a0b10000000049454e44ae426082"
)


@asynccontextmanager
async def lifespan(app: Server) -> AsyncIterator[dict[str, int]]:
    yield {"answers": 42}  # state every handler can reach as ctx.lifespan


app = Server(
    "everything",
    version="1.0.0",
    title="Everything",
    instructions="A demo server: tools, resources, prompts, completion, logging.",
    website_url="https://example.com/everything",
    lifespan=lifespan,
)


# -- tools -----------------------------------------------------------------------------------


class Forecast(BaseModel):
    city: str
    days: int
    summary: str


@app.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
async def forecast(
    city: Annotated[str, Field(description="City name")],
    days: Annotated[int, Field(ge=1, le=7)] = 3,
    *,
    ctx: Context,
) -> Forecast:
    """Weather forecast for a city (structured output, progress and logging)."""
    await ctx.info(f"forecasting {city}")
    for day in range(1, days + 1):
        await ctx.progress(day, days, f"day {day}")
    return Forecast(city=city, days=days, summary="sunny")


@app.tool(title="Add two numbers")
def add(a: int, b: int) -> int:
    """Add two integers (a sync tool: it runs in a worker thread)."""
    return a + b


@app.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@app.tool()
def pixel() -> Image:
    """A one-pixel PNG."""
    return Image(data=PNG)


@app.tool()
def fail() -> str:
    """Always fails: the client gets isError with the message."""
    raise ToolError("this tool always fails")


@app.tool()
async def ask_llm(question: str, ctx: Context) -> str:
    """Ask the client's LLM (sampling)."""
    result = await ctx.sample(question, max_tokens=100, system_prompt="Be brief.")
    return getattr(result.content, "text", "")


class Contact(BaseModel):
    name: str
    email: str | None = None
    color: Literal["red", "green", "blue"] = "red"


@app.tool()
async def ask_user(ctx: Context) -> str:
    """Ask the user for contact details (elicitation)."""
    answer = await ctx.elicit("Who are you?", Contact)
    if answer.accepted and answer.data is not None:
        return f"hello {answer.data.name} ({answer.data.color})"
    return f"user chose {answer.action}"


@app.tool()
async def roots(ctx: Context) -> list[str]:
    """The client's roots."""
    return [str(r.uri) for r in await ctx.list_roots()]


@app.on_roots_changed
async def roots_changed(session: AppSession) -> None:
    """The client's roots changed (notifications/roots/list_changed): look at them again."""
    roots = await session.list_roots()
    await session.send_log("info", f"roots changed: {len(roots)} root(s)", "everything")


@app.tool()
async def connect(ctx: Context) -> str:
    """Connect a third-party account (URL-mode elicitation)."""
    url = "https://example.com/connect"
    if "url" not in (ctx.client_capabilities.get("elicitation") or {}):
        # The client cannot open URLs for us: it gets the -32042 error listing what to visit.
        raise ctx.url_elicitation_required("Connect your account first", url)
    answer = await ctx.elicit_url("Connect your example.com account", url, "connect-1")
    if answer.accepted:
        # ... once the out-of-band flow finished (here: at once), tell the client.
        await ctx.complete_elicitation("connect-1")
    return f"user chose {answer.action}"


@app.tool()
def files() -> list[object]:
    """A resource link and an embedded resource, with content annotations."""
    return [
        {
            "type": "resource_link",
            "uri": "test://static-text",
            "name": "static-text",
            "mimeType": "text/plain",
            "annotations": {"audience": ["user"], "priority": 0.5},
        },
        {
            "type": "resource",
            "resource": {"uri": "test://notes", "mimeType": "text/plain", "text": "a note"},
            "annotations": {"audience": ["assistant"], "lastModified": "2025-05-03T14:30:00Z"},
        },
    ]


@app.tool()
def touch(uri: str) -> str:
    """Tell the clients subscribed to a resource that it changed."""
    app.notify_resource_updated(uri)
    return f"notified subscribers of {uri}"


@app.tool()
async def answers(ctx: Context) -> int:
    """The lifespan state."""
    return int(ctx.lifespan["answers"])


@app.tool(task_support="optional")
async def long_job(steps: int, ctx: Context) -> str:
    """A long job: call it as a task (params.task) and poll tasks/get, or just call it."""
    for step in range(1, steps + 1):
        await asyncio.sleep(0.01)
        await ctx.progress(step, total=steps)
    return f"done after {steps} steps"


# -- resources -------------------------------------------------------------------------------


@app.resource("test://static-text", mime_type="text/plain", title="Static text")
def static_text() -> str:
    """A static text resource."""
    return "This is the content of the static text resource."


@app.resource("test://static-binary", mime_type="image/png")
def static_binary() -> bytes:
    """A static binary resource."""
    return PNG


@app.resource("weather://{city}/current", mime_type="application/json")
def current_weather(city: str) -> dict[str, str]:
    """Current weather for a city (a resource template)."""
    return {"city": city, "sky": "clear"}


@app.completion(resource_template="weather://{city}/current", argument="city")
def complete_city(value: str) -> list[str]:
    return [c for c in ("Oslo", "Osaka", "Ottawa", "Paris") if c.lower().startswith(value.lower())]


# -- prompts ---------------------------------------------------------------------------------


@app.prompt()
def review(code: str, language: Literal["python", "rust", "go"] = "python") -> str:
    """Ask for a code review."""
    return f"Please review this {language} code:\n\n{code}"


@app.prompt()
def describe_image() -> list[object]:
    """A prompt with an image."""
    return [user(Image(data=PNG)), "Please describe the image above."]


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        app.run("http", port=int(sys.argv[2]) if len(sys.argv) > 2 else 8000)
    else:
        asyncio.run(app.run_stdio())
