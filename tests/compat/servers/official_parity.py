"""An ``mcp`` 2.x ``MCPServer`` with what published servers rely on beyond the basics: the
middleware of ``mcp.server.context`` given to the constructor (observing every message,
refusing a call, rewriting a call's parameters), ``ToolError`` and other failures, the
output schemas of ``typing.Dict``, a bare ``dict`` and a plain annotated class, an indented
docstring, ``Context[...]``, ``UrlElicitationRequiredError``, the ``mcp.client`` names a
server file imports (a server that is also a client), and ``TransportSecuritySettings`` over
HTTP.

    python official_parity.py              # stdio
    python official_parity.py http PORT    # Streamable HTTP on 127.0.0.1:PORT
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any, Dict  # noqa: UP035

from mcp import ClientSession, StdioServerParameters
from mcp.client.session import ClientSession as SessionClass
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp.types import ElicitRequestURLParams

seen: list[str] = []


async def observe(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """Records every method, requests and notifications alike."""
    seen.append(ctx.method)
    return await call_next(ctx)


async def guard(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """Refuses one tool, and sends a call of ``alias`` to ``echo`` with its arguments."""
    params = dict(ctx.params or {})
    if ctx.method == "tools/call" and params.get("name") == "forbidden":
        raise MCPError(-32001, "forbidden by the guard")
    if ctx.method == "tools/call" and params.get("name") == "alias":
        ctx = dataclasses.replace(ctx, params={**params, "name": "echo"})
    return await call_next(ctx)


middleware: list[ServerMiddleware[Any]] = [observe, guard]
mcp = MCPServer("parity", middleware=middleware)


class Reading:
    """A plain class with annotations (not a model, not a dataclass)."""

    sensor: str
    value: float

    def __init__(self, sensor: str, value: float) -> None:
        self.sensor = sensor
        self.value = value

    def __repr__(self) -> str:
        return f"Reading({self.sensor})"

    __str__ = __repr__


@mcp.tool()
def echo(text: str) -> str:
    """Echo the text.

    Args:
        text: What to send back.
            Indented further.
    """
    return text


@mcp.tool()
def forbidden() -> str:
    """Never reached: the guard refuses it."""
    return "reached"


@mcp.tool()
def methods() -> list[str]:
    """The methods the middleware saw so far."""
    return list(seen)


@mcp.tool()
def refuse(why: str) -> str:
    """A ToolError: its message is shown."""
    raise ToolError(f"refused: {why}")


@mcp.tool()
def crash() -> str:
    """Any other exception: its message is not shown on 2.x."""
    raise RuntimeError("secret detail")


@mcp.tool()
def typing_dict() -> Dict[str, Any]:  # noqa: UP006
    """typing.Dict: wrapped under result."""
    return {"a": 1}


@mcp.tool()
def bare_dict() -> dict:  # type: ignore[type-arg]
    """A bare dict: no output schema."""
    return {"b": 2}


@mcp.tool()
def builtin_dict() -> dict[str, int]:
    """dict[str, int]."""
    return {"c": 3}


@mcp.tool()
def reading(sensor: str) -> Reading:
    """A plain annotated class as structured output."""
    return Reading(sensor, 21.5)


@mcp.tool()
async def context_info(ctx: Context[dict[str, Any]]) -> str:
    """Context with its generic argument."""
    await ctx.info("context says hi")
    return f"request {ctx.request_id is not None}"


@mcp.tool()
def sign_in() -> str:
    """Needs a URL elicitation first."""
    raise UrlElicitationRequiredError(
        [
            ElicitRequestURLParams(
                mode="url",
                message="Sign in first",
                url="https://example.com/login",
                elicitation_id="login-1",
            )
        ]
    )


@mcp.tool()
def client_names() -> list[str]:
    """The mcp.client names this file imports, as a server that is also a client uses them."""
    params = StdioServerParameters(command="true", args=["x"])
    assert SessionClass is ClientSession and callable(stdio_client)
    return [params.command, *params.args, str(callable(streamable_http_client))]


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        mcp.run(
            transport="streamable-http",
            host="127.0.0.1",
            port=int(sys.argv[2]),
            transport_security=TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=["127.0.0.1:*", "mcp.example.com:*"],
                allowed_origins=["https://app.example.com"],
            ),
        )
    else:
        mcp.run()
