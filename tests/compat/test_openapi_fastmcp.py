"""fastmcp's OpenAPI servers (``FastMCP.from_fastapi``, ``FastMCP.from_openapi`` and the
route maps of ``fastmcp.server.providers.openapi``) run unchanged on fastmcp and on mcpkit,
driven by the official client: the same tools, resources and templates listed (names,
titles, descriptions, input and output schemas, tags), the same results, the same texts
for the API's errors, for arguments a request cannot be built from and for unknown URIs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.compat.test_unchanged import SERVERS, assert_same, both


def call(name: str, /, **args: Any) -> dict[str, Any]:
    return {"op": "call", "name": name, "args": args}


def read(uri: str) -> dict[str, Any]:
    return {"op": "read", "uri": uri}


LIST: dict[str, Any] = {"op": "list"}


def is_error(op: dict[str, Any]) -> bool:
    return "error" in op or bool(op.get("result", {}).get("isError"))


def test_from_fastapi_route_maps(tmp_path: Path) -> None:
    """A FastAPI app with path, query and body parameters, an enum, nested models, a 404,
    422s and a 204, served through route maps (exclusion by tag, templates and resources by
    pattern, ``mcp_tags``), ``mcp_names``, ``tags`` and ``mcp_component_fn``."""
    script = [
        LIST,
        call("pets"),
        call("pets", kind="dog", limit=5),
        call("pets", kind="bird"),  # the app's 422 (enum)
        call("pets", limit=500),  # the app's 422 (bound)
        call("pets", limit="x"),  # sent as it is: the app refuses it
        call("add_pet", name="Bo", kind="dog", owner={"name": "Al"}, tags=["a"]),
        call("add_pet", name="Bo"),  # a body field missing: the app's 422
        call("rename_pets", pet_id=1, name="Tim"),
        call("rename_pets", pet_id=99, name="Tim"),  # the app's 404
        call("rename_pets", name="Tim"),  # no path argument: no request
        call("rename_pets", pet_id=1, name="T", extra=3),  # an unknown argument: dropped
        call("delete_pet", pet_id=2),  # 204: no output schema, empty text
        call("stats"),  # excluded
        read("resource://get_pet/1"),
        read("resource://get_pet/99"),
        read("resource://get_pet/abc"),
        read("resource://get_pet/"),
        read("resource://owner_pet_owners/ada/7"),
        read("resource://health_health_get"),
        read("resource://kinds"),
        read("resource://stats"),
        call("whoami"),  # over stdio: no headers to pass on
    ]
    theirs, ours = both("fastmcp", SERVERS / "fastmcp_openapi.py", script, tmp_path)
    assert_same(theirs, ours)
    listed = ours["ops"][0]
    tools = {t["name"]: t for t in listed["tools"]}
    assert list(tools) == ["pets", "add_pet", "delete_pet", "rename_pets", "whoami"]
    assert tools["pets"]["outputSchema"]["x-fastmcp-wrap-result"] is True
    assert "outputSchema" not in tools["delete_pet"]
    assert [t["uriTemplate"] for t in listed["templates"]] == [
        "resource://get_pet/{pet_id}",
        "resource://owner_pet_owners/{owner}/{pet_id}",
    ]
    kinds = next(r for r in listed["resources"] if r["name"] == "kinds")
    assert kinds["description"] == "Every kind of pet we keep."
    failed = [i for i, op in enumerate(ours["ops"]) if is_error(op)]
    assert failed == [3, 4, 5, 7, 9, 10, 13, 15, 16, 17, 21]
    assert "HTTP error 422: Unprocessable Content" in str(ours["ops"][3])
    assert ours["ops"][-1]["result"]["structuredContent"] == {}


def test_from_fastapi_shapes(tmp_path: Path) -> None:
    """The shapes FastAPI gives operations: an embedded body, a list body (its argument
    named after the schema's title), a discriminated union body (the variants' fields
    flattened, the tag described), a recursive model (kept as ``$defs``), inherited models,
    list, header and cookie parameters, a plain-text answer, an answer with no model."""
    script = [
        LIST,
        call("embedded_embedded_post", item={"id": 1, "label": "x"}, note="q"),
        call("many_many_post", items=[{"id": 1}, {"id": 2, "label": "b"}]),
        call("animal_animal_post", kind="dog"),
        call("animal_animal_post", body={"kind": "dog"}),  # no such argument: an empty body
        call("tree_tree_post", name="a", children=[{"name": "b"}]),
        call("filter", ids=[1, 2], **{"x-token": "tok"}, session="s1"),  # filter__filter_get
        call("text_text_get"),  # text where an output schema promised structured content
        call("raw_raw_get"),
    ]
    theirs, ours = both("fastmcp", SERVERS / "fastmcp_openapi_shapes.py", script, tmp_path)
    assert_same(theirs, ours)
    tools = {t["name"]: t for t in ours["ops"][0]["tools"]}
    kind = tools["animal_animal_post"]["inputSchema"]["properties"]["kind"]
    assert kind["description"].startswith("Selects the variant.")
    assert ours["ops"][3]["result"]["structuredContent"] == {
        "result": {"kind": "dog", "good": True}
    }
    assert ours["ops"][6]["result"]["structuredContent"] == {
        "ids": [1, 2],
        "token": "tok",
        "session": "s1",
    }
    failed = [i for i, op in enumerate(ours["ops"]) if is_error(op)]
    assert failed == [4, 7]


def test_from_openapi_builds_requests_as_fastmcp(tmp_path: Path) -> None:
    """The request each call makes, as the API saw it (an app echoing it): query styles,
    path parameters of every kind (reserved characters encoded, dot segments refused),
    headers in the simple style, a cookie, a path parameter beside a query parameter and a
    body field of the same name, a nullable body field sent as null and a non-nullable one
    left out, a required object body sent empty, a ``+json`` media type, form fields (objects
    as JSON, lists repeated, an encoding's JSON content type), multipart parts, the
    client's base path kept."""
    everything = {
        "plain": ["a", "b c"],
        "joined": ["x", "y"],
        "spaced": ["1", "2"],
        "piped": ["p", "q"],
        "deep": {"r": 1, "g": 2},
        "flat": {"r": 3, "g": 4},
        "pairs": {"r": 5, "g": 6},
        "flag": True,
        "n": 1.5,
        "text": "a&b=c",
    }
    script = [
        LIST,
        call("query", **everything),
        call("query", plain=[], joined=[], flag=False, text=None),
        call("path", ids=["a", "b/c"], obj={"r": 1, "g": 2}, flag=True, name="x y%z"),
        call("path", ids=["a"], obj={}, flag=False, name=".."),
        call(
            "headers",
            **{"X-List": ["a", "b"], "X-Obj": {"r": 1, "g": 2}, "X-Obj-Exploded": {"r": 1}},
            **{"X-Flag": True, "sid": "s 1"},
        ),
        call("body", id__path=7, id__query=8, id=9, note=None, size=None),
        call("body", id__path=7),
        call("raw", body={"k": [1, 2]}),
        call("raw"),
        call(
            "form",
            name="a b",
            tags=["x", "y"],
            color={"r": 1, "g": 2},
            rows=[{"r": 1}],
            meta="m",
            ok=True,
        ),
        call("upload", title="t", lines=["one", "two"], count=3, flag=False),
    ]
    theirs, ours = both("fastmcp", SERVERS / "fastmcp_openapi_requests.py", script, tmp_path)
    assert_same(theirs, ours)
    seen = [op["result"].get("structuredContent") for op in ours["ops"][1:]]
    assert seen[0]["query"].startswith("plain=a&plain=b+c&joined=x%2Cy&spaced=1+2")
    assert seen[2]["path"] == "/v1/path/a,b%2Fc/r,1,g,2/true/x%20y%25z"
    assert seen[3] is None  # refused before any request
    assert seen[5]["body"] == '{"id":9,"note":null}'
    assert seen[9]["body"].startswith("name=a+b&tags=x&tags=y&color=%7B")
    assert seen[10]["body"].count('name="lines"') == 2


def test_from_openapi_masked_and_permissive(tmp_path: Path) -> None:
    """``mask_error_details=True`` (the API's errors masked, a 429 and missing arguments
    still told), ``strict_input_validation=True`` (unknown arguments refused),
    ``validate_output=False`` (permissive output schemas, a non-object still wrapped), a
    route map function and a component function that fail, names made from a summary and
    from the method and path, an operation id used twice, a template whose variables are
    path parameter names no URI template allows (``user-id``)."""
    script = [
        LIST,
        call("Get_the_numbers"),
        call("thing", n=1),
        call("thing", n=0),
        call("thing", n=9),
        call("thing"),
        call("thing_2", n=1),  # strict: n is not PUT's
        call("GET_broken"),
        call("thing", n=1, extra=2, more=3),  # strict: refused by name
        read("resource://item/7/u1"),  # resource://item/{item.id}/{user-id}
    ]
    theirs, ours = both("fastmcp", SERVERS / "fastmcp_openapi_masked.py", script, tmp_path)
    assert_same(theirs, ours)
    tools = {t["name"]: t for t in ours["ops"][0]["tools"]}
    assert tools["thing"]["outputSchema"] == {"type": "object", "additionalProperties": True}
    assert tools["thing_2"]["_meta"]["fastmcp"]["tags"] == []  # its component_fn failed
    template = ours["ops"][0]["templates"][0]["uriTemplate"]
    assert template == "resource://item/{item.id}/{user-id}"
    assert ours["ops"][-1]["result"]["contents"][0]["text"] == '{"user": "u1", "item": "7"}'
    texts = [op["result"]["content"][0]["text"] for op in ours["ops"][3:-1]]
    assert texts == [
        "Error calling tool 'thing'",
        "Rate limited by upstream API, please retry later",
        "Missing required arguments: n",
        "Unknown arguments: n. Accepted: none",  # PUT declares no parameter
        "Error calling tool 'GET_broken'",
        "Unknown arguments: extra, more. Accepted: n",
    ]


def test_from_fastapi_over_http_passes_headers_on(tmp_path: Path) -> None:
    """Served over Streamable HTTP, a tool's request to the API carries the MCP request's
    headers fit to pass on (``mcp-protocol-version`` here; not the session id), as
    fastmcp's ``get_http_headers()`` gives them."""
    import sys

    from tests.compat.test_compat import finish, free_port, serve, start_drive
    from tests.compat.test_unchanged import normalised, peer

    server = str(SERVERS / "fastmcp_openapi.py")
    script = [call("whoami"), call("pets", kind="cat"), call("pets", kind="bird")]
    ports = free_port(), free_port()
    procs = [serve([str(peer("fastmcp")), server, "--port"], ports[0])]
    try:
        procs.append(serve([sys.executable, "-m", "mcpkit.compat", server, "--port"], ports[1]))
        runs = [
            start_drive(
                peer("mcp2"), script, ["--url", f"http://127.0.0.1:{port}/mcp"], tmp_path, tag
            )
            for port, tag in zip(ports, ("theirs", "ours"), strict=True)
        ]
        theirs, ours = (normalised(finish(run)) for run in runs)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
    assert_same(theirs, ours)
    seen = ours["ops"][0]["result"]["structuredContent"]
    assert set(seen) == {"mcp-protocol-version"}, seen


@pytest.mark.parametrize("how", ["from_openapi", "provider"])
def test_from_openapi_spec_and_async_client(how: str, tmp_path: Path) -> None:
    """A document of its own (OpenAPI 3.0) and an ``AsyncClient`` on an app through an ASGI
    transport: referenced parameters and bodies, ``nullable``, read- and write-only
    properties, boolean exclusive bounds, a header, a repeated query list, a path parameter
    named like a body property (``name__path``), an array body, a route map function, a
    text error, a 429, dot segments refused. Built by ``FastMCP.from_openapi`` or by
    ``FastMCP(providers=[OpenAPIProvider(...)])`` (beside a provider whose API is down)."""
    script = [
        LIST,
        call("getItem", item_id="a1"),
        call("getItem", item_id="a1", fields=["name", "tags"], **{"X-Trace": "t-1"}),
        call("getItem", item_id="zz"),
        call("getItem", item_id="../a1"),
        call("getItem"),
        call("add_item", name="Bell", tags=["brass"], secret="s"),
        call("Rename_an_item", name__path="Bell", name="Gong"),
        call("Rename_an_item", name__path="Nope", name="Gong"),
        call("search", q="n", limit=1),
        call("search", q="n"),
        call("countNotes", notes=["a", "b", "c"]),
        call("boom"),
        call("deleteItem", item_id="a2"),
        read("resource://stats"),
        call("busy"),  # 429: fastmcp's own text
        call("ping"),  # the second provider's (with --provider), its API down
    ]
    args = ["--provider"] if how == "provider" else []
    theirs, ours = both("fastmcp", SERVERS / "fastmcp_openapi_spec.py", script, tmp_path, *args)
    assert_same(theirs, ours)
    tools = {t["name"]: t for t in ours["ops"][0]["tools"]}
    assert "id" not in tools["add_item"]["inputSchema"]["properties"]  # read-only
    assert "secret" not in tools["getItem"]["outputSchema"]["properties"]  # write-only
    assert tools["search"]["inputSchema"]["properties"]["limit"]["exclusiveMinimum"] == 0
    assert ours["ops"][2]["result"]["structuredContent"]["trace"] == "t-1"
    failed = [i for i, op in enumerate(ours["ops"]) if is_error(op)]
    assert failed == [3, 4, 5, 8, 12, 15, 16]
    busy = ours["ops"][15]["result"]["content"][0]["text"]
    assert busy == "Rate limited by upstream API, please retry later"
    if how == "provider":
        down = ours["ops"][16]["result"]["content"][0]["text"]
        assert down == "Error calling tool 'ping': All connection attempts failed"


def test_fastmcp_2x_import_path() -> None:
    """fastmcp 2.x and 3.x's ``fastmcp.server.openapi``: the same names, and
    ``FastMCPOpenAPI``, a server of the document."""
    import asyncio

    from mcpkit.compat.fastmcp.server import openapi
    from mcpkit.compat.fastmcp.server.providers import openapi as provider_module

    assert openapi.RouteMap is provider_module.RouteMap
    assert openapi.MCPType is provider_module.MCPType
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/ping": {"get": {"operationId": "ping", "responses": {"200": {"description": "ok"}}}}
        },
    }
    server = openapi.FastMCPOpenAPI(
        spec, route_maps=[openapi.RouteMap(mcp_type=openapi.MCPType.RESOURCE)]
    )
    assert server.name == "OpenAPI FastMCP"

    resources = asyncio.run(server.list_resources())
    assert [str(r.uri) for r in resources] == ["resource://ping"]
