"""fastmcp's ``FastMCP.from_openapi`` building requests: each tool's request is answered by
an app that echoes what reached it (the raw path, the query string, the headers and cookies
sent, the body), so the answers show how the arguments were placed: query parameters in
each style (``form`` exploded or not, ``spaceDelimited``, ``pipeDelimited``,
``deepObject``), path parameters of every kind (lists, objects, booleans, reserved
characters), header and cookie parameters, JSON bodies with null fields, form and
multipart bodies."""

import os

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

try:  # fastmcp 4.x's client
    import httpx2 as httpx
except ImportError:
    import httpx

from fastapi import FastAPI, Request
from fastmcp import FastMCP

api = FastAPI()


@api.api_route("/{rest:path}", methods=["GET", "POST", "PUT"])
async def echo(rest: str, request: Request):
    body = (await request.body()).decode()
    kind = request.headers.get("content-type") or ""
    if "boundary=" in kind:  # random on each request: named the same on both
        boundary = kind.split("boundary=", 1)[1]
        body, kind = body.replace(boundary, "BOUNDARY"), kind.replace(boundary, "BOUNDARY")
    return {
        "method": request.method,
        "path": request.scope["raw_path"].decode(),
        "query": request.scope["query_string"].decode(),
        "headers": {k: v for k, v in request.headers.items() if k.startswith("x-")},
        "cookie": request.headers.get("cookie"),
        "type": kind or None,
        "body": body,
    }


def q(name, schema, **more):
    return {"name": name, "in": "query", "schema": schema, **more}


ARRAY = {"type": "array", "items": {"type": "string"}}
OBJECT = {"type": "object", "properties": {"r": {"type": "integer"}, "g": {"type": "integer"}}}
OK = {"200": {"description": "ok"}}
SPEC = {
    "openapi": "3.1.0",
    "info": {"title": "Echo", "version": "1"},
    "paths": {
        "/query": {
            "get": {
                "operationId": "query",
                "parameters": [
                    q("plain", ARRAY),
                    q("joined", ARRAY, explode=False),
                    q("spaced", ARRAY, style="spaceDelimited"),
                    q("piped", ARRAY, style="pipeDelimited"),
                    q("deep", OBJECT, style="deepObject", explode=True),
                    q("flat", OBJECT),
                    q("pairs", OBJECT, explode=False),
                    q("flag", {"type": "boolean"}),
                    q("n", {"type": "number"}),
                    q("text", {"type": "string"}),
                ],
                "responses": OK,
            }
        },
        "/path/{ids}/{obj}/{flag}/{name}": {
            "get": {
                "operationId": "path",
                "parameters": [
                    {"name": "ids", "in": "path", "required": True, "schema": ARRAY},
                    {"name": "obj", "in": "path", "required": True, "schema": OBJECT},
                    {"name": "flag", "in": "path", "required": True, "schema": {"type": "boolean"}},
                    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}},
                ],
                "responses": OK,
            }
        },
        "/headers": {
            "get": {
                "operationId": "headers",
                "parameters": [
                    {"name": "X-List", "in": "header", "schema": ARRAY},
                    {"name": "X-Obj", "in": "header", "schema": OBJECT},
                    {"name": "X-Obj-Exploded", "in": "header", "schema": OBJECT, "explode": True},
                    {"name": "X-Flag", "in": "header", "schema": {"type": "boolean"}},
                    {"name": "sid", "in": "cookie", "schema": {"type": "string"}},
                ],
                "responses": OK,
            }
        },
        "/body/{id}": {
            "put": {
                "operationId": "body",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
                    q("id", {"type": "integer"}),
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "id": {"type": "integer"},
                                    "note": {"type": ["string", "null"]},
                                    "size": {"type": "integer"},
                                },
                            }
                        }
                    },
                },
                "responses": OK,
            }
        },
        "/form": {
            "post": {
                "operationId": "form",
                "requestBody": {
                    "content": {
                        "application/x-www-form-urlencoded": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "name": {"type": "string"},
                                    "tags": ARRAY,
                                    "color": OBJECT,
                                    "rows": {"type": "array", "items": OBJECT},
                                    "meta": {"type": "string"},
                                    "ok": {"type": "boolean"},
                                },
                            },
                            "encoding": {"meta": {"contentType": "application/json"}},
                        }
                    }
                },
                "responses": OK,
            }
        },
        "/upload": {
            "post": {
                "operationId": "upload",
                "requestBody": {
                    "content": {
                        "multipart/form-data": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "title": {"type": "string"},
                                    "lines": ARRAY,
                                    "count": {"type": "integer"},
                                    "flag": {"type": "boolean"},
                                },
                            }
                        }
                    }
                },
                "responses": OK,
            }
        },
        "/raw": {
            "post": {
                "operationId": "raw",
                "requestBody": {
                    "content": {"application/vnd.api+json": {"schema": {"type": "object"}}}
                },
                "responses": OK,
            }
        },
    },
}

client = httpx.AsyncClient(transport=httpx.ASGITransport(app=api), base_url="http://echo/v1/")
mcp = FastMCP.from_openapi(SPEC, client=client, name="Echo")

if __name__ == "__main__":
    mcp.run()
