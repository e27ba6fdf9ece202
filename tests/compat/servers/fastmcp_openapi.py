"""fastmcp's ``FastMCP.from_fastapi``: a FastAPI app's routes served as tools, resources and
resource templates by route maps (methods, patterns, tags, exclusions), with ``mcp_names``,
``tags`` and ``mcp_component_fn``; path, query and body parameters, enums, nested models,
and the app's 404 and 422 answers; over HTTP (``--port N``), the MCP request's headers
passed on to the app."""

import os
import sys

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

from enum import StrEnum

from fastapi import FastAPI, HTTPException, Query, Request
from fastmcp import FastMCP
from fastmcp.server.providers.openapi import MCPType, RouteMap
from pydantic import BaseModel, Field

app = FastAPI(title="Pet shop", version="1.2.0")


class Kind(StrEnum):
    cat = "cat"
    dog = "dog"


class Owner(BaseModel):
    name: str
    email: str | None = None


class PetIn(BaseModel):
    """A pet to add."""

    name: str = Field(description="The pet's name")
    kind: Kind
    age: int = Field(0, ge=0)
    owner: Owner | None = None
    tags: list[str] = []


class Pet(PetIn):
    id: int


PETS: dict[int, Pet] = {
    1: Pet(id=1, name="Tom", kind=Kind.cat, age=3, tags=["grey"]),
    2: Pet(id=2, name="Rex", kind=Kind.dog, owner=Owner(name="Ada")),
}


@app.get("/pets", tags=["pets"], operation_id="list_pets")
def list_pets(kind: Kind | None = None, limit: int = Query(10, le=100)) -> list[Pet]:
    """List the pets, of one kind if given."""
    pets = [p for p in PETS.values() if kind is None or p.kind == kind]
    return pets[:limit]


@app.get("/pets/{pet_id}", tags=["pets"], operation_id="get_pet__by_id")
def get_pet(pet_id: int) -> Pet:
    """One pet by its id."""
    if pet_id not in PETS:
        raise HTTPException(status_code=404, detail=f"Pet {pet_id} not found")
    return PETS[pet_id]


@app.get("/owners/{owner}/pets/{pet_id}", tags=["pets", "owners"])
def owner_pet(owner: str, pet_id: int) -> dict[str, str | int]:
    return {"owner": owner, "pet_id": pet_id}


@app.post("/pets", tags=["pets", "write"], operation_id="create_pet", status_code=201)
def create_pet(pet: PetIn) -> Pet:
    """Add a pet."""
    new = Pet(id=max(PETS) + 1, **pet.model_dump())
    PETS[new.id] = new
    return new


@app.put("/pets/{pet_id}/name", tags=["pets", "write"], summary="Rename a pet")
def rename(pet_id: int, name: str) -> Pet:
    if pet_id not in PETS:
        raise HTTPException(status_code=404, detail="no such pet")
    PETS[pet_id].name = name
    return PETS[pet_id]


@app.delete("/pets/{pet_id}", tags=["admin"], operation_id="delete_pet", status_code=204)
def delete_pet(pet_id: int) -> None:
    PETS.pop(pet_id, None)


@app.get("/stats", tags=["internal"])
def stats() -> dict[str, int]:
    return {"pets": len(PETS)}


@app.get("/health")
def health() -> str:
    return "ok"


@app.get("/kinds", operation_id="kinds")
def kinds() -> list[Kind]:
    """The kinds of pet."""
    return list(Kind)


@app.get("/whoami", operation_id="whoami")
def whoami(request: Request) -> dict[str, str]:
    """The headers of this request that came from the MCP client."""
    return {k: v for k, v in request.headers.items() if k.startswith(("mcp-", "x-"))}


def customise(route, component) -> None:
    if route.operation_id == "kinds":
        component.description = "Every kind of pet we keep."


mcp = FastMCP.from_fastapi(
    app,
    route_maps=[
        RouteMap(mcp_type=MCPType.EXCLUDE, tags={"internal"}),
        RouteMap(
            methods=["GET"], pattern=r"^/pets/\{pet_id\}$", mcp_type=MCPType.RESOURCE_TEMPLATE
        ),
        RouteMap(
            methods=["GET"],
            pattern=r"^/owners/",
            mcp_type=MCPType.RESOURCE_TEMPLATE,
            mcp_tags={"owned"},
        ),
        RouteMap(methods=["GET"], pattern=r"^/(health|kinds)$", mcp_type=MCPType.RESOURCE),
    ],
    mcp_names={"list_pets": "pets", "create_pet": "add_pet"},
    mcp_component_fn=customise,
    tags={"shop"},
)

if __name__ == "__main__":
    if "--port" in sys.argv:
        mcp.run("http", port=int(sys.argv[sys.argv.index("--port") + 1]))
    else:
        mcp.run()
