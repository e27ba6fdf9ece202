"""fastmcp's ``FastMCP.from_openapi`` with ``mask_error_details=True`` and
``validate_output=False`` and ``strict_input_validation=True``: the API's errors masked
but for a 429, unknown arguments refused, permissive output schemas
(a non-object still wrapped), a route map function and a component function that fail
(the route served as the maps say, the component as made), names from summaries and
paths, and a name used twice; a template over path parameters whose names are no URI
template variable names (``user-id``)."""

import os

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

try:  # fastmcp 4.x's client
    import httpx2 as httpx
except ImportError:
    import httpx

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from fastmcp import FastMCP
from fastmcp.server.providers.openapi import MCPType

api = FastAPI()


@api.get("/numbers")
def numbers():
    return [1, 2, 3]


@api.get("/thing/{n}")
def thing(n: int):
    if n == 0:
        return JSONResponse({"detail": "no thing 0"}, status_code=404)
    if n == 9:
        return JSONResponse({"detail": "later"}, status_code=429)
    return {"n": n, "extra": True}


@api.get("/users/{uid}/items/{iid}")
def item(uid: str, iid: str):
    return {"user": uid, "item": iid}


def listed(status, schema):
    return {status: {"description": "ok", "content": {"application/json": {"schema": schema}}}}


SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Masked", "version": "1"},
    "paths": {
        "/numbers": {
            "get": {
                "summary": "Get the numbers!",
                "responses": listed("200", {"type": "array", "items": {"type": "integer"}}),
            }
        },
        "/thing/{n}": {
            "get": {
                "operationId": "thing",
                "parameters": [
                    {"name": "n", "in": "path", "required": True, "schema": {"type": "integer"}}
                ],
                "responses": listed(
                    "200", {"type": "object", "properties": {"n": {"type": "integer"}}}
                ),
            },
            "put": {"operationId": "thing", "responses": {"204": {"description": "done"}}},
        },
        "/broken": {"get": {"responses": {"200": {"description": "ok"}}}},
        "/users/{user-id}/items/{item.id}": {
            "get": {
                "operationId": "item",
                "parameters": [
                    {"name": n, "in": "path", "required": True, "schema": {"type": "string"}}
                    for n in ("user-id", "item.id")
                ],
                "responses": listed("200", {"type": "object"}),
            }
        },
    },
}


def choose(route, kind):
    if route.path == "/broken":
        raise RuntimeError("no choice")
    if route.path.startswith("/users/"):
        return MCPType.RESOURCE_TEMPLATE
    return None


def customise(route, component):
    if route.method == "PUT":
        raise RuntimeError("not this one")
    component.tags.add("seen")


client = httpx.AsyncClient(transport=httpx.ASGITransport(app=api), base_url="http://masked")
mcp = FastMCP.from_openapi(
    SPEC,
    client=client,
    name="Masked",
    route_map_fn=choose,
    mcp_component_fn=customise,
    validate_output=False,
    mask_error_details=True,
    strict_input_validation=True,
)

if __name__ == "__main__":
    mcp.run()
