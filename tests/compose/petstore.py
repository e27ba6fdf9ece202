"""A petstore-style OpenAPI 3.0 document and a small in-memory API serving it (an
``httpx.MockTransport`` handler) for the OpenAPI tests."""

from __future__ import annotations

import json
from typing import Any

import httpx

SPEC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Petstore", "version": "1.2.3", "description": "Pets for sale."},
    "servers": [{"url": "{root}/v1", "variables": {"root": {"default": "https://pets.test"}}}],
    "paths": {
        "/pets": {
            "get": {
                "operationId": "listPets",
                "summary": "List all pets",
                "tags": ["pets"],
                "parameters": [
                    {"$ref": "#/components/parameters/Limit"},
                    {
                        "name": "tags",
                        "in": "query",
                        "schema": {"type": "array", "items": {"type": "string"}},
                    },
                    {"name": "X-Request-Id", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": {
                    "200": {
                        "description": "A list of pets",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "array",
                                    "items": {"$ref": "#/components/schemas/Pet"},
                                }
                            }
                        },
                    }
                },
            },
            "post": {
                "operationId": "createPet",
                "summary": "Create a pet",
                "tags": ["pets"],
                "requestBody": {"$ref": "#/components/requestBodies/NewPet"},
                "responses": {
                    "201": {
                        "description": "Created",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}
                        },
                    },
                    "default": {"$ref": "#/components/responses/Error"},
                },
            },
        },
        "/pets/{petId}": {
            "parameters": [
                {
                    "name": "petId",
                    "in": "path",
                    "required": True,
                    "description": "The id of the pet",
                    "schema": {"type": "integer"},
                }
            ],
            "get": {
                "operationId": "showPetById",
                "summary": "Info for a specific pet",
                "tags": ["pets"],
                "responses": {
                    "200": {
                        "description": "The pet",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}
                        },
                    },
                    "404": {"$ref": "#/components/responses/Error"},
                },
            },
            "put": {
                "operationId": "updatePet",
                "tags": ["pets"],
                "parameters": [{"name": "dryRun", "in": "query", "schema": {"type": "boolean"}}],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/NewPet"}}
                    },
                },
                "responses": {
                    "200": {
                        "description": "Updated",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}
                        },
                    }
                },
            },
            "delete": {
                "operationId": "deletePet",
                "tags": ["pets", "admin"],
                "responses": {"204": {"description": "Deleted"}},
            },
        },
        "/store/inventory": {
            "get": {
                "tags": ["store"],
                "summary": "Inventory by status",
                "parameters": [{"name": "session", "in": "cookie", "schema": {"type": "string"}}],
                "responses": {
                    "200": {
                        "description": "Counts",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "additionalProperties": {"type": "integer"},
                                }
                            }
                        },
                    }
                },
            }
        },
        "/categories": {
            "post": {
                "operationId": "addCategory",
                "tags": ["store"],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Category"}}
                    },
                },
                "responses": {
                    "200": {
                        "description": "The tree",
                        "content": {
                            "application/json": {
                                "schema": {"$ref": "#/components/schemas/Category"}
                            }
                        },
                    }
                },
            }
        },
    },
    "components": {
        "parameters": {
            "Limit": {
                "name": "limit",
                "in": "query",
                "description": "How many items to return at one time (max 100)",
                "schema": {"type": "integer", "maximum": 100, "format": "int32"},
            }
        },
        "requestBodies": {
            "NewPet": {
                "required": True,
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/NewPet"}}
                },
            }
        },
        "responses": {
            "Error": {
                "description": "An error",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
            }
        },
        "schemas": {
            "NewPet": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "example": "Rex"},
                    "tag": {"type": "string", "nullable": True},
                },
            },
            "Pet": {
                "allOf": [
                    {"$ref": "#/components/schemas/NewPet"},
                    {
                        "type": "object",
                        "required": ["id"],
                        "properties": {"id": {"type": "integer", "format": "int64"}},
                    },
                ],
                "type": "object",
            },
            "Category": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string"},
                    "children": {
                        "type": "array",
                        "items": {"$ref": "#/components/schemas/Category"},
                    },
                },
            },
            "Error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
            },
        },
    },
}


class PetStore:
    """The API behind :data:`SPEC`, as an httpx transport; ``requests`` records each one."""

    def __init__(self) -> None:
        self.pets: dict[int, dict[str, Any]] = {1: {"id": 1, "name": "Rex", "tag": "dog"}}
        self.requests: list[httpx.Request] = []
        self.transport = httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        if not path.startswith("/v1/"):
            return httpx.Response(404, json={"code": 404, "message": f"no route {path}"})
        parts = path[len("/v1/") :].split("/")
        method = request.method
        if parts == ["pets"] and method == "GET":
            limit = int(request.url.params.get("limit", "100"))
            tags = request.url.params.get_list("tags")
            pets = [p for p in self.pets.values() if not tags or p.get("tag") in tags]
            return httpx.Response(200, json=pets[:limit])
        if parts == ["pets"] and method == "POST":
            body = json.loads(request.content)
            if not isinstance(body.get("name"), str):
                return httpx.Response(400, json={"code": 400, "message": "name is required"})
            pet = {"id": max(self.pets, default=0) + 1, **body}
            self.pets[pet["id"]] = pet
            return httpx.Response(201, json=pet)
        if len(parts) == 2 and parts[0] == "pets":
            pet_id = int(parts[1])
            if pet_id not in self.pets:
                return httpx.Response(404, json={"code": 404, "message": f"no pet {pet_id}"})
            if method == "GET":
                return httpx.Response(200, json=self.pets[pet_id])
            if method == "PUT":
                updated = {**json.loads(request.content), "id": pet_id}
                if request.url.params.get("dryRun") != "true":
                    self.pets[pet_id] = updated
                return httpx.Response(200, json=updated)
            if method == "DELETE":
                del self.pets[pet_id]
                return httpx.Response(204)
        if parts == ["store", "inventory"]:
            counts: dict[str, int] = {}
            for pet in self.pets.values():
                counts[str(pet.get("tag"))] = counts.get(str(pet.get("tag")), 0) + 1
            return httpx.Response(200, json=counts)
        if parts == ["categories"]:
            return httpx.Response(200, json=json.loads(request.content))
        return httpx.Response(405, text="method not allowed")
