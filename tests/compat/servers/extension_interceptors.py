"""Two extensions intercepting ``tools/call`` (the first outermost: it answers one tool
itself; the second rewrites every result the tool gives and refuses one tool), and request
methods answering a model, a dict, a failure and an MCPError (2.x's ``mcp.server.extension``)."""

from collections.abc import Sequence
from typing import Any

import mcp.types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

seen: list[str] = []


class Params(types.RequestParams):
    word: str = "x"


class Echoed(types.Result):
    word: str
    seen: list[str]


async def echo(ctx: ServerRequestContext[Any, Any], params: Params) -> Echoed:
    return Echoed(word=params.word, seen=list(seen))


async def as_dict(ctx: ServerRequestContext[Any, Any], params: Params) -> dict[str, Any]:
    return {"word": params.word.upper(), "method": ctx.method}


async def fails(ctx: ServerRequestContext[Any, Any], params: Params) -> Echoed:
    raise ValueError("secret detail")


async def refuses(ctx: ServerRequestContext[Any, Any], params: Params) -> Echoed:
    raise MCPError(code=-32042, message="not today", data={"word": params.word})


class Outer(Extension):
    identifier = "com.example/outer"

    def settings(self) -> dict[str, Any]:
        return {"level": 1}

    def methods(self) -> Sequence[MethodBinding]:
        return [
            MethodBinding("com.example/echo", Params, echo),
            MethodBinding("com.example/dict", Params, as_dict),
            MethodBinding("com.example/fails", Params, fails),
            MethodBinding("com.example/refuses", Params, refuses),
            MethodBinding(
                "com.example/modern", Params, echo, protocol_versions=frozenset({"2026-07-28"})
            ),
        ]

    async def intercept_tool_call(
        self,
        params: types.CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        seen.append(f"outer {params.name}")
        if params.name == "short":
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="answered by outer")],
                structured_content={"result": "answered by outer"},
            )
        return await call_next(ctx)


class Inner(Extension):
    identifier = "com.example/inner"

    async def intercept_tool_call(
        self,
        params: types.CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        seen.append(f"inner {params.name} {sorted((params.arguments or {}).items())}")
        if params.name == "refused":
            raise ValueError("inner refuses")
        result = await call_next(ctx)
        result.content.append(types.TextContent(type="text", text=f"inner saw {ctx.method}"))
        return result


mcp = MCPServer("interceptors", extensions=[Outer(), Inner()])


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@mcp.tool()
def short() -> str:
    """Never runs: the outer extension answers."""
    raise AssertionError("not reached")


@mcp.tool()
def refused() -> str:
    """Never runs: the inner extension refuses."""
    return "no"


@mcp.tool()
def broken() -> str:
    """Fails."""
    raise ValueError("tool failed")


if __name__ == "__main__":
    mcp.run()
