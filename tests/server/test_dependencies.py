"""Depends(...): parameters resolved per call (sync, async, generators with clean-up),
cached per call, overridable, hidden from the schema, with lifespan state and Context, in
both eras, in memory and over HTTP; a handler without them is registered as it is."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Annotated, Any

import pytest

from mcpkit import Client, Context, Depends, Server
from tests.ways import connect


class Pool:
    def __init__(self) -> None:
        self.events: list[str] = []
        self.next_id = 0


@contextlib.asynccontextmanager
async def lifespan(server: Server) -> AsyncIterator[Pool]:
    yield Pool()


async def connection(ctx: Context) -> AsyncIterator[str]:
    pool: Pool = ctx.lifespan
    pool.next_id += 1
    name = f"conn{pool.next_id}"
    pool.events.append(f"open {name}")
    try:
        yield name
    except ValueError as exc:
        pool.events.append(f"rollback {name}: {exc}")
        raise
    finally:
        pool.events.append(f"close {name}")


def settings() -> dict[str, Any]:
    # A sync dependency runs in the worker pool, not on the event loop's thread.
    return {"region": "eu", "thread": threading.current_thread().name}


def tracer_id(cfg: Annotated[dict[str, Any], Depends(settings)]) -> Iterator[str]:
    yield f"trace-{cfg['region']}"


def make_server() -> Server:
    app = Server("deps", lifespan=lifespan)

    @app.tool()
    async def lookup(
        sku: str,
        cfg: Annotated[dict[str, Any], Depends(settings)],
        db: str = Depends(connection),
        again: str = Depends(connection),  # the same dependency: resolved once per call
        trace: str = Depends(tracer_id),
    ) -> dict[str, Any]:
        """Look an item up."""
        return {
            "sku": sku,
            "db": db,
            "again": again,
            "region": cfg["region"],
            "trace": trace,
            "thread": cfg["thread"],
        }

    @app.tool()
    def sync_tool(n: int, ctx: Context, db: str = Depends(connection)) -> str:
        return f"{n} via {db} ({ctx.request_id is not None})"

    @app.tool()
    async def failing(db: str = Depends(connection)) -> str:
        raise ValueError("boom")

    @app.tool()
    def fresh(
        a: str = Depends(connection, use_cache=False), b: str = Depends(connection, use_cache=False)
    ) -> str:
        return f"{a} {b}"

    @app.prompt()
    def review(topic: str, cfg: dict[str, Any] = Depends(settings)) -> str:
        return f"Review {topic} in {cfg['region']}"

    @app.resource("items://{sku}")
    def item(sku: str, db: str = Depends(connection)) -> str:
        return f"{sku} from {db}"

    return app


async def test_dependencies_are_resolved_per_call(era: str, transport: str, wire: Any) -> None:
    app = make_server()
    async with connect(app, era, transport, wire) as client:
        tools = {t.name: t for t in await client.list_tools()}
        # Hidden from the schema (the Context too).
        assert tools["lookup"].input_schema.properties.keys() == {"sku"}
        assert tools["lookup"].description == "Look an item up."
        assert tools["sync_tool"].input_schema.properties.keys() == {"n"}
        assert tools["lookup"].output_schema is not None

        first = (await client.call_tool("lookup", {"sku": "A1"})).structured_content
        second = (await client.call_tool("lookup", {"sku": "B2"})).structured_content
        pool: Pool = app.lifespan_state
    assert first is not None and second is not None
    assert (first["db"], first["again"]) == ("conn1", "conn1")  # cached within the call
    assert second["db"] == "conn2"  # a new call, new resolution
    assert first["region"] == "eu" and first["trace"] == "trace-eu"
    assert first["thread"].startswith("mcpkit-tool")
    assert pool.events[:4] == ["open conn1", "close conn1", "open conn2", "close conn2"]


async def test_clean_up_sees_the_failure(era: str, wire: Any) -> None:
    app = make_server()
    async with connect(app, era, "memory", wire) as client:
        result = await client.call_tool("failing")
        # The client reads the masked message; the clean-up below still saw the exception.
        assert result.is_error and "boom" not in result.content[0].text  # type: ignore[union-attr]
        assert "(error id " in result.content[0].text  # type: ignore[union-attr]
        assert (await client.call_tool("sync_tool", {"n": 3})).content[
            0
        ].text == "3 via conn2 (True)"  # type: ignore[union-attr]
        assert (await client.call_tool("fresh")).content[0].text == "conn3 conn4"  # type: ignore[union-attr]
        prompt = await client.get_prompt("review", {"topic": "docs"})
        assert prompt.messages[0].content.text == "Review docs in eu"  # type: ignore[union-attr]
        read = await client.read_resource("items://X9")
        assert read.contents[0].text == "X9 from conn5"  # type: ignore[union-attr]
        prompts = await client.list_prompts()
        assert [a.name for a in prompts[0].arguments or []] == ["topic"]
        pool: Pool = app.lifespan_state
    assert pool.events[:3] == ["open conn1", "rollback conn1: boom", "close conn1"]


async def test_overrides_replace_a_dependency(wire: Any) -> None:
    app = make_server()

    async def fake_connection() -> str:
        return "fake-db"

    app.dependency_overrides[connection] = fake_connection
    async with Client(app, era="2026-07-28", tracer=wire()) as client:
        got = (await client.call_tool("lookup", {"sku": "A1"})).structured_content
        assert got is not None and got["db"] == "fake-db"
        app.dependency_overrides.clear()
        got = (await client.call_tool("lookup", {"sku": "A1"})).structured_content
        assert got is not None and got["db"] == "conn1"


def test_a_handler_without_dependencies_is_registered_as_it_is() -> None:
    app = Server("plain")

    def echo(text: str) -> str:
        return text

    app.add_tool(echo)
    assert app.tools.tools["echo"].fn is echo


def test_bad_dependencies_are_refused_at_registration() -> None:
    app = Server("s")

    def needs_input(value: int) -> int:
        return value

    with pytest.raises(TypeError, match="parameter 'value' must be a Depends"):

        @app.tool()
        def broken(x: int = Depends(needs_input)) -> int:
            return x

    def cyclic(c: int = Depends(lambda: 0)) -> int:
        return c

    cyclic.__defaults__ = (Depends(cyclic),)
    with pytest.raises(TypeError, match="depends on itself"):
        app.add_tool(cyclic, name="cyclic_tool")
    with pytest.raises(TypeError, match="needs a callable"):
        Depends(42)  # type: ignore[arg-type]


async def test_a_dependency_error_is_a_tool_error(wire: Any) -> None:
    app = Server("s")

    def unavailable() -> str:
        raise RuntimeError("database is down")

    @app.tool()
    def query(db: str = Depends(unavailable)) -> str:
        return db

    async with Client(app, era="2026-07-28", tracer=wire()) as client:
        result = await client.call_tool("query")
    # An unexpected exception of a dependency is masked like the tool's own.
    shown = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error and shown.startswith("Error executing tool 'query' (error id ")
    app.mask_errors = False
    async with Client(app, era="2026-07-28", tracer=wire()) as client:
        result = await client.call_tool("query")
    assert result.is_error and "database is down" in result.content[0].text  # type: ignore[union-attr]


async def test_no_context_unless_a_dependency_takes_one(wire: Any) -> None:
    app = Server("s")

    def first() -> int:
        return 1

    async def second(a: int = Depends(first)) -> int:
        return a + 1

    @app.tool()
    async def plain_deps(x: int, b: int = Depends(second)) -> int:
        return x + b

    @app.tool()
    async def ctx_deps(c: str = Depends(connection)) -> str:
        return c

    # Dependencies without a Context leave the tool without one (its cheaper call path).
    assert app.tools.tools["plain_deps"].context_param is None
    assert app.tools.tools["ctx_deps"].context_param is not None

    async def wants_context(ctx: Context) -> int:
        return 40

    app.dependency_overrides[second] = wants_context
    app.mask_errors = False  # the configuration error's message is what is checked
    async with Client(app, era="2026-07-28", tracer=wire()) as client:
        result = await client.call_tool("plain_deps", {"x": 2})
        assert result.is_error and "takes a Context" in result.content[0].text  # type: ignore[union-attr]
        app.dependency_overrides.clear()
        assert (await client.call_tool("plain_deps", {"x": 2})).structured_content == {"result": 4}


async def test_inline_when_nothing_can_wait(wire: Any) -> None:
    import asyncio

    app = Server("s")

    async def one() -> int:
        return 1

    @app.tool()
    async def quick(x: int, a: int = Depends(one)) -> int:
        return x + a

    @app.tool()
    async def with_cleanup(c: str = Depends(connection)) -> str:
        return c

    assert app.tools.tools["quick"].function.never_suspends
    assert not app.tools.tools["with_cleanup"].function.never_suspends

    async def slow_one() -> int:
        await asyncio.sleep(0.01)  # an override that waits: the call goes on in a task
        return 10

    async with Client(app, era="2026-07-28", tracer=wire()) as client:
        assert (await client.call_tool("quick", {"x": 1})).structured_content == {"result": 2}
        app.dependency_overrides[one] = slow_one
        assert (await client.call_tool("quick", {"x": 1})).structured_content == {"result": 11}
