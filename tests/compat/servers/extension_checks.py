"""What 2.x's extension surface refuses, and how: each attempt printed with the exception's
type and message (run on ``mcp`` 2.x and unchanged on mcpkit)."""

from collections.abc import Sequence
from typing import Any, Literal

import mcp.types as types
from mcp.client import ClientExtension, ResultClaim, advertise
from mcp.server.extension import Extension, MethodBinding, ToolBinding
from mcp.server.mcpserver import MCPServer


async def handler(ctx: Any, params: Any) -> Any:
    return types.Result()


def echo(text: str) -> str:
    """Echo."""
    return text


class Claimed(types.Result):
    result_type: Literal["claimed"] = "claimed"
    token: str


class Untagged(types.Result):
    token: str


async def resolve(claimed: Any, ctx: Any) -> Any:
    return types.CallToolResult(content=[])


def attempt(label: str, make: Any) -> None:
    try:
        make()
    except Exception as exc:
        print(label, type(exc).__name__, exc)
    else:
        print(label, "accepted")


def bad_identifier() -> None:
    class NoPrefix(Extension):
        identifier = "no-slash"


def bad_client_identifier() -> None:
    class NoPrefix(ClientExtension):
        identifier = "com.example/"


class Tools(Extension):
    identifier = "com.example/tools"

    def tools(self) -> Sequence[ToolBinding]:
        return [ToolBinding(fn=echo, meta={"k": 1})]


class Search(Extension):
    identifier = "com.example/search"

    def methods(self) -> Sequence[MethodBinding]:
        return [MethodBinding("com.example/search", types.RequestParams, handler)]


class SearchAgain(Extension):
    identifier = "com.example/search-again"

    def methods(self) -> Sequence[MethodBinding]:
        return [MethodBinding("com.example/search", types.RequestParams, handler)]


class PerInstance(Extension):
    def __init__(self, identifier: str) -> None:
        self.identifier = identifier


attempt("identifier", bad_identifier)
attempt("client identifier", bad_client_identifier)
attempt("advertise", lambda: advertise("nope"))
attempt("advertise ok", lambda: advertise("com.example/ok", {"a": 1}))
attempt("spec method", lambda: MethodBinding("tools/call", types.RequestParams, handler))
attempt(
    "no versions",
    lambda: MethodBinding("x.y/z", types.RequestParams, handler, protocol_versions=frozenset()),
)
attempt("twice", lambda: MCPServer("x", extensions=[Tools(), Tools()]))
attempt("method twice", lambda: MCPServer("x", extensions=[Search(), SearchAgain()]))
attempt("per instance", lambda: MCPServer("x", extensions=[PerInstance("bad")]))
attempt("per instance ok", lambda: MCPServer("x", extensions=[PerInstance("com.example/ok")]))
attempt("claim core", lambda: ResultClaim(result_type="complete", model=Claimed, resolve=resolve))
attempt("claim untagged", lambda: ResultClaim(result_type="x", model=Untagged, resolve=resolve))
attempt("claim mismatch", lambda: ResultClaim(result_type="other", model=Claimed, resolve=resolve))
attempt(
    "claim legacy",
    lambda: ResultClaim(
        result_type="claimed",
        model=Claimed,
        resolve=resolve,
        protocol_versions=frozenset({"2025-11-25"}),
    ),
)
attempt("claim ok", lambda: ResultClaim(result_type="claimed", model=Claimed, resolve=resolve))
