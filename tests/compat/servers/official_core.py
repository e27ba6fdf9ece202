"""An official-SDK server: tools (structured output, direct CallToolResult, images, errors),
resources and templates, prompts, completion. Runs on the official SDK as it is, and on
mcpkit with its ``mcp.`` imports rewritten to ``mcpkit.compat.mcp.``."""

from __future__ import annotations

import base64
from typing import Annotated, TypedDict

from mcp.server.mcpserver import Icon, Image, MCPServer
from mcp.server.mcpserver.prompts.base import AssistantMessage, UserMessage
from mcp.types import (
    CallToolResult,
    Completion,
    CompletionArgument,
    CompletionContext,
    PromptReference,
    ResourceTemplateReference,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel, Field

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

mcp = MCPServer("core", instructions="An official-SDK style server.")


class Weather(BaseModel):
    city: str
    temperature: float = Field(description="Degrees Celsius")
    conditions: list[str]


class Point(TypedDict):
    x: int
    y: int


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@mcp.tool(title="Weather", annotations=ToolAnnotations(read_only_hint=True))
def weather(city: Annotated[str, Field(description="The city")], days: int = 1) -> Weather:
    """Weather for a city."""
    return Weather(city=city, temperature=21.5, conditions=["sunny"] * days)


@mcp.tool()
def point(x: int) -> Point:
    """A point on the diagonal."""
    return {"x": x, "y": x}


@mcp.tool()
def names() -> list[str]:
    """Some names."""
    return ["ada", "grace"]


@mcp.tool()
def mapping() -> dict[str, int]:
    """A mapping."""
    return {"one": 1, "two": 2}


@mcp.tool(structured_output=False)
def plain(text: str) -> str:
    """Plain text."""
    return text.upper()


@mcp.tool()
def untyped(n: int):
    """No return annotation."""
    return {"n": n, "items": [1, 2]}


@mcp.tool()
def direct(flag: bool) -> CallToolResult:
    """A CallToolResult returned as it is."""
    return CallToolResult(
        content=[TextContent(type="text", text=f"flag={flag}")],
        structured_content={"flag": flag},
        is_error=not flag,
    )


@mcp.tool()
def picture() -> Image:
    """An image."""
    return Image(data=PNG, format="png")


@mcp.tool()
def mixed():
    """Text and an image."""
    return ["here:", Image(data=PNG)]


@mcp.tool()
def fail(reason: str) -> str:
    """Always fails."""
    raise ValueError(f"failed because {reason}")


@mcp.tool(
    name="renamed",
    description="A tool with a given name.",
    icons=[Icon(src="https://example.com/i.png")],
)
async def some_function(values: list[float], scale: float = 1.0) -> float:
    return sum(values) * scale


@mcp.resource("config://app", title="App config", description="The configuration.")
def config() -> str:
    return "debug=false"


@mcp.resource("data://blob", mime_type="application/octet-stream")
def blob() -> bytes:
    return b"\x00\x01\x02"


@mcp.resource("data://json", mime_type="application/json")
def as_json() -> str:
    return '{"a": 1}'


@mcp.resource("users://{user_id}/profile")
def profile(user_id: str) -> str:
    """A user's profile."""
    return f"profile of {user_id}"


@mcp.resource("repos://{owner}/{repo}/readme", mime_type="text/markdown")
async def readme(owner: str, repo: str) -> str:
    """A repository's readme."""
    return f"# {owner}/{repo}"


@mcp.prompt()
def review(code: str) -> str:
    """Review some code."""
    return f"Please review:\n{code}"


@mcp.prompt(title="Debugging")
def debug_error(error: str, language: str = "python") -> list[object]:
    """Debug an error."""
    return [
        UserMessage(f"I see this {language} error: {error}"),
        AssistantMessage("What have you tried?"),
    ]


@mcp.completion()
async def complete(
    ref: PromptReference | ResourceTemplateReference,
    argument: CompletionArgument,
    context: CompletionContext | None,
) -> Completion | None:
    if isinstance(ref, ResourceTemplateReference) and argument.name == "repo":
        owner = (context.arguments or {}).get("owner") if context else None
        repos = {"acme": ["rocket", "roadrunner"]}.get(owner or "", ["mcp"])
        return Completion(values=[r for r in repos if r.startswith(argument.value)])
    if isinstance(ref, PromptReference) and argument.name == "language":
        return Completion(
            values=[x for x in ["python", "perl", "rust"] if x.startswith(argument.value)]
        )
    return None


if __name__ == "__main__":
    mcp.run()
