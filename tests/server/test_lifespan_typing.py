"""``Server`` is generic over what its lifespan yields: ``Server[State]`` is inferred from the
lifespan, ``Context[State]`` types ``ctx.lifespan`` (checked by ``mypy --strict``), and a
tool whose context parameter is annotated ``Context[State]`` gets its context at run time."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from mcpkit import Client, Context, Server
from tests.client.test_typed_results import _mypy

TYPED = """
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from mcpkit import Context, Server


@dataclass
class Db:
    url: str


@asynccontextmanager
async def lifespan(app: Server) -> AsyncIterator[Db]:
    yield Db("sqlite://")


app = Server("typed", lifespan=lifespan)
plain = Server("plain")
state: Db = app.lifespan_state


@app.tool()
async def where(*, ctx: Context[Db]) -> str:
    url: str = ctx.lifespan.url
    same: Db = ctx.server.lifespan_state
    named: str = ctx.server.name  # ctx.server is a ServerView[Db] of the Server's members
    registered: int = len(ctx.server.tools.tools) + len(ctx.server.resources.resources)
    return url + same.url + named + str(registered)
"""

WRONG = (
    TYPED
    + """

@app.tool()
async def wrong(*, ctx: Context[Db]) -> int:
    return ctx.lifespan.url


number: int = app.lifespan_state
"""
)


def test_lifespan_state_is_typed(tmp_path: Path) -> None:
    out, status = _mypy(tmp_path, TYPED)
    assert status == 0, out
    out, status = _mypy(tmp_path, WRONG)
    assert status == 1, out
    assert 'Incompatible return value type (got "str", expected "int")' in out, out
    assert 'expression has type "Db", variable has type "int"' in out, out


@dataclass
class State:
    greeting: str


@asynccontextmanager
async def _lifespan(app: Server) -> AsyncIterator[State]:
    yield State("hello")


async def test_parameterised_context_is_the_context_parameter() -> None:
    app = Server("typed", lifespan=_lifespan)

    @app.tool()
    async def greet(name: str, *, ctx: Context[State]) -> str:
        return f"{ctx.lifespan.greeting}, {name}"

    async with Client(app) as client:
        (tool,) = await client.list_tools()
        assert list(tool.input_schema.properties or {}) == ["name"]
        assert (await client.call_tool("greet", {"name": "Ada"})).text == "hello, Ada"
