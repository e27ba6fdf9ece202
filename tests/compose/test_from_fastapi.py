"""Server.from_fastapi: a real FastAPI app's operations become tools, called in this process
(no port), with path, query and body parameters, typed answers, HTTP errors as tool errors,
the app's lifespan run inside the server's, over both eras."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastapi import FastAPI, HTTPException
from pydantic import BaseModel

from mcpkit import Client, Server

ERAS = ["legacy", "2026-07-28"]


class Item(BaseModel):
    name: str
    price: float


def make_app(events: list[str]) -> FastAPI:
    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        events.append("startup")
        app.state.items = {1: Item(name="lamp", price=12.5)}
        yield
        events.append("shutdown")

    app = FastAPI(title="shop", version="2.1.0", lifespan=lifespan)

    @app.get("/items/{item_id}", operation_id="get_item")
    async def get_item(item_id: int) -> Item:
        """Read one item."""
        item = app.state.items.get(item_id)
        if item is None:
            raise HTTPException(status_code=404, detail=f"no item {item_id}")
        return item

    @app.post("/items", operation_id="create_item")
    async def create_item(item: Item) -> dict[str, Any]:
        """Add an item."""
        new_id = max(app.state.items) + 1
        app.state.items[new_id] = item
        return {"id": new_id}

    @app.get("/search", operation_id="search")
    async def search(q: str, limit: int = 10) -> list[str]:
        return [name for name in ("lamp", "lampshade", "desk") if q in name][:limit]

    return app


@pytest.mark.parametrize("era", ERAS)
async def test_the_operations_of_a_fastapi_app_are_tools(era: str) -> None:
    events: list[str] = []
    server = Server.from_fastapi(make_app(events))
    assert (server.name, server.version) == ("shop", "2.1.0")
    async with Client(server, era=era) as client:  # type: ignore[arg-type]
        assert events == ["startup"]  # the app's lifespan runs inside the server's
        tools = {t.name: t for t in await client.list_tools()}
        assert set(tools) == {"get_item", "create_item", "search"}
        assert tools["get_item"].description and "Read one item" in tools["get_item"].description
        assert tools["get_item"].input_schema.required == ["item_id"]

        got = await client.call_tool("get_item", {"item_id": 1})
        assert not got.is_error and got.structured_content == {"name": "lamp", "price": 12.5}

        made = await client.call_tool("create_item", {"name": "desk", "price": 99})
        assert not made.is_error and made.structured_content == {"id": 2}
        again = await client.call_tool("get_item", {"item_id": 2})
        assert again.structured_content == {"name": "desk", "price": 99.0}

        found = await client.call_tool("search", {"q": "lamp", "limit": 1})
        assert found.content[0].text == '["lamp"]'  # an array answer: text only

        missing = await client.call_tool("get_item", {"item_id": 7})
        assert missing.is_error and "404" in missing.content[0].text
        assert "no item 7" in missing.content[0].text
    assert events == ["startup", "shutdown"]


async def test_route_filter_names_and_a_lifespan_of_its_own() -> None:
    seen: list[str] = []

    @contextlib.asynccontextmanager
    async def own(server: Server[Any]) -> AsyncIterator[dict[str, str]]:
        seen.append("own up")
        yield {"k": "v"}
        seen.append("own down")

    events: list[str] = []
    server = Server.from_fastapi(
        make_app(events),
        name="shop-tools",
        route_filter=lambda route: route.method == "GET",
        names={"get_item": "item"},
        lifespan=own,
    )
    async with Client(server) as client:
        assert sorted(t.name for t in await client.list_tools()) == ["item", "search"]
        assert (await client.call_tool("item", {"item_id": 1})).structured_content == {
            "name": "lamp",
            "price": 12.5,
        }
        assert client.server_info.name == "shop-tools"
    assert events == ["startup", "shutdown"] and seen == ["own up", "own down"]


def test_something_that_is_not_a_fastapi_app_is_refused() -> None:
    with pytest.raises(TypeError, match="FastAPI app"):
        Server.from_fastapi(object())
