"""Server.from_openapi: a petstore-style API as tools (served by an httpx.MockTransport)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcpkit import Client, Server
from mcpkit.server.openapi import Route, add_openapi_tools, load_spec
from tests.compose.petstore import SPEC, PetStore


def api(store: PetStore, **options: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=store.transport, **options)


def data(result: Any) -> Any:
    return json.loads(result.content[0].text)


async def test_petstore_tools_and_schemas() -> None:
    store = PetStore()
    app = Server.from_openapi(SPEC, client=api(store))
    assert (app.name, app.version, app.instructions) == ("Petstore", "1.2.3", "Pets for sale.")
    async with Client(app) as c:
        tools = {t.name: t for t in await c.list_tools()}
        assert set(tools) == {
            "listPets",
            "createPet",
            "showPetById",
            "updatePet",
            "deletePet",
            "get_store_inventory",  # no operationId: method and path
            "addCategory",
        }
        listing = tools["listPets"]
        assert listing.title == "List all pets" and listing.annotations.read_only_hint is True  # type: ignore[union-attr]
        props = listing.input_schema.properties or {}
        assert set(props) == {"limit", "tags", "X-Request-Id"}
        assert props["limit"]["maximum"] == 100 and "description" in props["limit"]
        assert listing.output_schema is None  # an array is not an object
        create = tools["createPet"]
        assert create.input_schema.required == ["name"]  # the body's properties, merged
        assert create.input_schema.properties["tag"] == {"type": ["string", "null"]}  # type: ignore[index]
        assert create.output_schema is not None and create.output_schema.type == "object"
        show = tools["showPetById"]
        assert show.input_schema.required == ["petId"]
        assert tools["deletePet"].annotations.destructive_hint is True  # type: ignore[union-attr]
        category = tools["addCategory"].input_schema.model_dump(by_alias=True)
        assert category["properties"]["children"]["items"] == {"$ref": "#/$defs/Category"}
        assert "Category" in category["$defs"]  # a recursive schema, kept as a definition

        # Calls
        pets = await c.call_tool("listPets", {"limit": 5, "tags": ["dog"], "X-Request-Id": "r1"})
        assert data(pets) == [{"id": 1, "name": "Rex", "tag": "dog"}]
        sent = store.requests[-1]
        assert str(sent.url) == "https://pets.test/v1/pets?limit=5&tags=dog"
        assert sent.headers["x-request-id"] == "r1"
        made = await c.call_tool("createPet", {"name": "Tom", "tag": None})
        assert not made.is_error
        assert made.structured_content == {"id": 2, "name": "Tom", "tag": None}
        assert json.loads(store.requests[-1].content) == {"name": "Tom", "tag": None}
        shown = await c.call_tool("showPetById", {"petId": 2})
        assert shown.structured_content == {"id": 2, "name": "Tom", "tag": None}
        updated = await c.call_tool("updatePet", {"petId": 2, "name": "Tim", "dryRun": True})
        assert updated.structured_content == {"id": 2, "name": "Tim"}
        assert store.requests[-1].url.params["dryRun"] == "true"
        assert store.pets[2]["name"] == "Tom"  # a dry run
        inventory = await c.call_tool("get_store_inventory", {"session": "s 1"})
        assert inventory.structured_content == {"dog": 1, "None": 1}
        assert store.requests[-1].headers["cookie"] == "session=s%201"
        tree = {"name": "root", "children": [{"name": "leaf", "children": []}]}
        assert (await c.call_tool("addCategory", tree)).structured_content == tree
        deleted = await c.call_tool("deletePet", {"petId": 2})
        assert not deleted.is_error and 2 not in store.pets

        # Errors: a non-2xx status, bad arguments, a failed request
        missing = await c.call_tool("showPetById", {"petId": 99})
        assert missing.is_error
        assert missing.content[0].text == 'HTTP 404 Not Found: {"code":404,"message":"no pet 99"}'  # type: ignore[union-attr]
        wrong = await c.call_tool("showPetById", {"petId": "x"})
        assert wrong.is_error and "petId" in wrong.content[0].text  # type: ignore[union-attr]
        assert len(store.requests) == 8  # the bad arguments never reached the API


async def test_filters_names_and_base_url() -> None:
    store = PetStore()
    seen: list[Route] = []

    def only_reads(route: Route) -> bool:
        seen.append(route)
        return route.method == "GET" and "pets" in route.tags

    app = Server.from_openapi(
        SPEC,
        client=api(store, base_url="https://pets.test"),
        base_url="/v1",  # relative: joined to the client's base URL
        route_filter=only_reads,
        names={"listPets": "list_pets", "GET /pets/{petId}": "get_pet"},
        name="pets",
    )
    assert {(r.method, r.path) for r in seen} >= {("DELETE", "/pets/{petId}"), ("GET", "/pets")}
    assert next(r for r in seen if r.operation_id == "deletePet").tags == ("pets", "admin")
    async with Client(app) as c:
        assert sorted(t.name for t in await c.list_tools()) == ["get_pet", "list_pets"]
        assert (await c.call_tool("get_pet", {"petId": 1})).structured_content["name"] == "Rex"  # type: ignore[index]
        assert str(store.requests[-1].url) == "https://pets.test/v1/pets/1"


async def test_unreachable_api_and_body_that_breaks_the_schema() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    down = Server.from_openapi(
        SPEC, client=httpx.AsyncClient(transport=httpx.MockTransport(refuse))
    )

    def liar(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"name": 3})

    lying = Server.from_openapi(SPEC, client=httpx.AsyncClient(transport=httpx.MockTransport(liar)))
    async with Client(down) as c:
        result = await c.call_tool("showPetById", {"petId": 1})
        assert result.is_error and "connection refused" in result.content[0].text  # type: ignore[union-attr]
    async with Client(lying) as c:
        result = await c.call_tool("showPetById", {"petId": 1})
        assert result.is_error and "does not match" in result.content[0].text  # type: ignore[union-attr]


async def test_documents_as_text_files_and_existing_servers(tmp_path: Path) -> None:
    path = tmp_path / "petstore.json"
    path.write_text(json.dumps(SPEC))
    assert load_spec(path) == SPEC and load_spec(str(path)) == SPEC
    assert load_spec(json.dumps(SPEC)) == SPEC
    app: Server[Any] = Server("mine")
    app.add_tool(lambda: "x", name="listPets")
    store = PetStore()
    added = add_openapi_tools(app, SPEC, client=api(store), output_schemas=False)
    assert added[0] == "listPets_2"  # a taken name gets a suffix
    async with Client(app) as c:
        tools = {t.name: t for t in await c.list_tools()}
        assert tools["showPetById"].output_schema is None
        shown = await c.call_tool("showPetById", {"petId": 1})
        assert data(shown) == {"id": 1, "name": "Rex", "tag": "dog"}
    with pytest.raises(ValueError, match="OpenAPI 3"):
        Server.from_openapi({"swagger": "2.0", "paths": {}}, client=api(store))
    with pytest.raises(ValueError, match="local"):
        Server.from_openapi(
            {"openapi": "3.1.0", "paths": {"/x": {"$ref": "other.json#/x"}}}, client=api(store)
        )


async def test_own_client_is_made_and_closed() -> None:
    app = Server.from_openapi(SPEC)  # the document names its server
    async with app.running():
        pass
    with pytest.raises(ValueError, match="client="):
        Server.from_openapi({"openapi": "3.0.0", "paths": {}})
