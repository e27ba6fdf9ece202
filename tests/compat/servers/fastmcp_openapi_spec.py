"""fastmcp's ``FastMCP.from_openapi`` with a document of its own (OpenAPI 3.0: ``$ref``
parameters and bodies, ``nullable``, ``readOnly``/``writeOnly``, boolean exclusive
bounds, a header, a repeated query list, a path name also a body property, an array body)
and an ``AsyncClient`` calling an app in process through an ASGI transport; a route map
function, a non-JSON error, a bodiless answer. With ``--provider``, the same served by
``FastMCP(providers=[OpenAPIProvider(...)])`` beside a provider whose API is down."""

import os
import sys

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

try:  # fastmcp 4.x's client
    import httpx2 as httpx
except ImportError:
    import httpx

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from fastmcp import FastMCP
from fastmcp.server.providers.openapi import MCPType, OpenAPIProvider, RouteMap

api = FastAPI()
ITEMS = {"a1": {"id": "a1", "name": "Anvil", "note": None, "tags": ["iron"]}}


@api.get("/items/{item_id}")
def get_item(item_id: str, request: Request):
    item = ITEMS.get(item_id)
    if item is None:
        return JSONResponse({"error": "not found", "id": item_id}, status_code=404)
    fields = request.query_params.getlist("fields")
    trace = request.headers.get("x-trace")
    shown = {k: v for k, v in item.items() if not fields or k in fields or k == "id"}
    return {**shown, **({"trace": trace} if trace else {})}


@api.post("/items")
async def add_item(request: Request):
    body = await request.json()
    item = {"id": f"a{len(ITEMS) + 1}", "note": None, "tags": [], **body}
    item.pop("secret", None)
    ITEMS[item["id"]] = item
    return JSONResponse(item, status_code=201)


@api.patch("/items/{name}")
async def rename(name: str, request: Request):
    body = await request.json()
    found = [i for i in ITEMS.values() if i["name"] == name]
    if not found:
        return JSONResponse({"error": f"no item named {name}"}, status_code=404)
    found[0]["name"] = body["name"]
    return found[0]


@api.delete("/items/{item_id}")
def delete_item(item_id: str):
    ITEMS.pop(item_id, None)
    return Response(status_code=204)


@api.get("/search")
def search(q: str, limit: int = 10):
    return [i["name"] for i in ITEMS.values() if q.lower() in i["name"].lower()][:limit]


@api.post("/notes")
async def notes(request: Request):
    return {"count": len(await request.json())}


@api.get("/stats")
def stats():
    return {"items": len(ITEMS)}


@api.get("/busy")
def busy():
    return JSONResponse({"error": "slow down"}, status_code=429)


@api.get("/boom")
def boom():
    return PlainTextResponse("kaput", status_code=500)


ITEM_ID = {"name": "item_id", "in": "path", "required": True, "schema": {"type": "string"}}
SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Stock", "version": "1"},
    "components": {
        "parameters": {"ItemId": {**ITEM_ID, "description": "The item's id"}},
        "schemas": {
            "Item": {
                "type": "object",
                "required": ["id", "name"],
                "properties": {
                    "id": {"type": "string", "readOnly": True},
                    "name": {"type": "string", "description": "What it is called"},
                    "note": {"type": "string", "nullable": True},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "secret": {"type": "string", "writeOnly": True},
                    "trace": {"type": "string"},
                },
            },
            "Rename": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"type": "string"}},
            },
        },
        "requestBodies": {
            "NewItem": {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}},
            }
        },
    },
    "paths": {
        "/items/{item_id}": {
            "parameters": [{"$ref": "#/components/parameters/ItemId"}],
            "get": {
                "operationId": "getItem",
                "summary": "One item",
                "tags": ["items"],
                "parameters": [
                    {
                        "name": "fields",
                        "in": "query",
                        "schema": {"type": "array", "items": {"type": "string"}},
                    },
                    {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": {
                    "200": {
                        "description": "The item",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Item"}}
                        },
                    },
                    "404": {"description": "No such item"},
                },
            },
            "delete": {
                "operationId": "deleteItem",
                "tags": ["items", "admin"],
                "responses": {"204": {"description": "Gone"}},
            },
        },
        "/items": {
            "post": {
                "operationId": "addItem",
                "description": "Add an item to the stock.",
                "requestBody": {"$ref": "#/components/requestBodies/NewItem"},
                "responses": {
                    "201": {
                        "description": "Added",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Item"}}
                        },
                    }
                },
            }
        },
        "/items/{name}": {
            "patch": {
                "summary": "Rename an item",
                "parameters": [
                    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Rename"}}
                    },
                },
                "responses": {
                    "200": {
                        "description": "Renamed",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Item"}}
                        },
                    }
                },
            }
        },
        "/search": {
            "get": {
                "operationId": "search__v2",
                "parameters": [
                    {"name": "q", "in": "query", "required": True, "schema": {"type": "string"}},
                    {
                        "name": "limit",
                        "in": "query",
                        "schema": {
                            "type": "integer",
                            "minimum": 0,
                            "exclusiveMinimum": True,
                            "default": 10,
                        },
                    },
                ],
                "responses": {
                    "200": {
                        "description": "Names",
                        "content": {
                            "application/json": {
                                "schema": {"type": "array", "items": {"type": "string"}}
                            }
                        },
                    }
                },
            }
        },
        "/notes": {
            "post": {
                "operationId": "countNotes",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "title": "Notes",
                                "type": "array",
                                "items": {"type": "string"},
                            }
                        }
                    },
                },
                "responses": {"200": {"description": "Counted"}},
            }
        },
        "/stats": {"get": {"operationId": "stats", "responses": {"200": {"description": "ok"}}}},
        "/boom": {"get": {"operationId": "boom", "responses": {"200": {"description": "never"}}}},
        "/busy": {"get": {"operationId": "busy", "responses": {"200": {"description": "never"}}}},
    },
}


def as_resource(route, kind):
    if route.path == "/stats":
        return MCPType.RESOURCE
    return None


client = httpx.AsyncClient(transport=httpx.ASGITransport(app=api), base_url="http://stock")
options = {
    "route_maps": [RouteMap(methods=["DELETE"], mcp_type=MCPType.TOOL, mcp_tags={"danger"})],
    "route_map_fn": as_resource,
    "mcp_names": {"addItem": "add_item"},
}
if "--provider" in sys.argv:  # fastmcp 3.x and 4.x's way: the provider itself
    # A second provider, its own client made for the document's server, nobody listening.
    down = {
        "openapi": "3.1.0",
        "info": {"title": "Down", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9/api"}],
        "paths": {
            "/ping": {"get": {"operationId": "ping", "responses": {"200": {"description": "ok"}}}}
        },
    }
    mcp = FastMCP(
        "Stock",
        providers=[OpenAPIProvider(SPEC, client=client, **options), OpenAPIProvider(down)],
    )
else:
    mcp = FastMCP.from_openapi(SPEC, client=client, name="Stock", **options)

if __name__ == "__main__":
    mcp.run()
