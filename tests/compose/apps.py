"""The servers the composition tests mount: a ``weather`` child using every feature, inside a
``gateway`` parent with a tool of its own. Run as a script it serves the gateway over stdio."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from mcpkit import Context, Server
from mcpkit.types import ResourceLink

NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def build_weather(events: list[str] | None = None) -> Server[Any]:
    """The child: tools talking back through Context, a resource, a template, a prompt,
    completions, a lifespan, and tools that change it while it is served."""
    log = events if events is not None else []

    @contextlib.asynccontextmanager
    async def lifespan(server: Server[Any]) -> AsyncIterator[dict[str, str]]:
        log.append("weather up")
        yield {"unit": "celsius"}
        log.append("weather down")

    weather: Server[Any] = Server("weather", "1.0", lifespan=lifespan)

    @weather.tool()
    async def forecast(city: str, ctx: Context) -> str:
        """Forecast for a city."""
        await ctx.progress(0.5, 1, "halfway")
        await ctx.info(f"forecasting {city}")
        return f"sunny in {city}, in {ctx.lifespan['unit']}"

    @weather.tool()
    async def greet(ctx: Context) -> str:
        """Asks the user for a name."""
        answer = await ctx.elicit("Your name?", NAME_SCHEMA, key="name")
        return f"hello {answer.data['name']}" if answer.accepted else answer.action  # type: ignore[index]

    @weather.tool()
    async def summarize(ctx: Context) -> str:
        """Asks the client's model."""
        result = await ctx.sample("Summarize the weather", max_tokens=20, key="llm")
        return f"llm: {getattr(result.content, 'text', '')}"

    @weather.tool()
    async def where(ctx: Context) -> str:
        """Lists the client's roots."""
        roots = await ctx.list_roots(key="roots")
        return ",".join(str(r.uri) for r in roots)

    @weather.tool()
    async def readme(ctx: Context) -> str:
        """Reads the child's own resource by the child's URI."""
        result = await ctx.read_resource("file:///readme.txt")
        return str(getattr(result.contents[0], "text", ""))

    @weather.tool()
    def link() -> list[ResourceLink]:
        """Links to the child's resource and to a foreign one."""
        return [
            ResourceLink(uri="file:///readme.txt", name="readme"),
            ResourceLink(uri="https://example.com/x", name="elsewhere"),
        ]

    @weather.tool()
    def grow(name: str) -> str:
        """Registers a tool named ``name`` in the child (or removes it when present)."""
        if name in weather.tools.tools:
            weather.remove_tool(name)
            return "removed"
        weather.add_tool(lambda: f"{name} here", name=name)
        return "added"

    @weather.tool()
    def touch() -> str:
        """Announces that the readme changed."""
        weather.notify_resource_updated("file:///readme.txt")
        return "touched"

    @weather.resource("file:///readme.txt", mime_type="text/plain")
    def readme_file() -> str:
        return "the readme"

    @weather.resource("weather://{city}/now")
    def now(city: str) -> str:
        return f"now in {city}"

    @weather.prompt()
    def ask(city: str, style: str = "short") -> str:
        """Ask about the weather."""
        return f"What is the weather in {city}? ({style})"

    @weather.completion(prompt="ask", argument="city")
    def complete_city(value: str) -> list[str]:
        return [c for c in ("Oslo", "Osaka", "Paris") if c.startswith(value)]

    @weather.completion(resource_template="weather://{city}/now", argument="city")
    def complete_template_city(value: str) -> list[str]:
        return [c for c in ("berlin", "bern") if c.startswith(value)]

    return weather


def build_gateway(events: list[str] | None = None) -> tuple[Server[Any], Server[Any]]:
    """The parent (with one tool of its own) and the child mounted in it as ``weather``."""
    gateway: Server[Any] = Server("gateway", "1.0")

    @gateway.tool()
    def own() -> str:
        """The gateway's own tool."""
        return "own"

    weather = build_weather(events)
    gateway.mount(weather, prefix="weather")
    return gateway, weather


if __name__ == "__main__":
    build_gateway()[0].run()
