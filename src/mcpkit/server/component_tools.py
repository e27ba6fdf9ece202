"""Resources and prompts as tools, for clients that only call tools.

``app.add_resource_tools()`` adds ``list_resources`` and ``read_resource(uri)``;
``app.add_prompt_tools()`` adds ``list_prompts`` and ``get_prompt(name, arguments)``. Each
answers what the server's own ``resources/list`` (with ``resources/templates/list``),
``resources/read``, ``prompts/list`` and ``prompts/get`` answer the same client at that
moment (mounted servers, scopes and disabled components included), as JSON text and
``structuredContent``; a read gives text contents as text blocks and binary ones as embedded
resources. A failure (an unknown URI or prompt, bad arguments) is an error result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from mcpkit.errors import McpError
from mcpkit.jsonrpc import JSONObject
from mcpkit.server.context import Context
from mcpkit.server.mount import _child_request
from mcpkit.server.tools import error_result

if TYPE_CHECKING:
    from mcpkit.server.core import ServerCore as Server

__all__ = ["add_prompt_tools", "add_resource_tools"]

_READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}


def _json_result(value: JSONObject) -> JSONObject:
    return {
        "content": [{"type": "text", "text": orjson.dumps(value).decode()}],
        "structuredContent": value,
    }


async def _ask(server: Server[Any], ctx: Context, method: str, params: JSONObject) -> Any:
    """``method`` answered by the server's handler table, on the tool call's request."""
    request = ctx._request
    handler = server.handler_table().get(method)
    if handler is None:
        raise McpError(-32601, f"this server does not serve {method}")
    meta = request.params.get("_meta") if type(request.params) is dict else None
    if meta is not None:  # the request's envelope (2026-07-28)
        params = {**params, "_meta": meta}
    asked = _child_request(request, server, method, params)  # this method, this request
    return orjson.loads(orjson.dumps(await handler(params, asked)))


async def _all(server: Server[Any], ctx: Context, method: str, key: str) -> list[Any]:
    """Every item of a list, every page followed (an unserved list is empty)."""
    if method not in server.handler_table():
        return []
    items: list[Any] = []
    params: JSONObject = {}
    for _ in range(10_000):
        page = await _ask(server, ctx, method, params)
        items.extend(page.get(key) or ())
        cursor = page.get("nextCursor")
        if not isinstance(cursor, str) or not cursor:
            break
        params = {"cursor": cursor}
    return items


def _tool(server: Server[Any], fn: Any, name: str, description: str, schema: JSONObject) -> None:
    server.add_tool(
        fn, name=name, description=description, annotations=_READ_ONLY, input_schema=schema
    )
    server.tools.tools[name].passthrough_type = dict


def add_resource_tools(
    server: Server[Any], list_name: str = "list_resources", read_name: str = "read_resource"
) -> None:
    """Add the tools ``list_name`` and ``read_name`` (see the module docstring)."""

    async def list_resources(ctx: Context) -> Any:
        return _json_result(
            {
                "resources": await _all(server, ctx, "resources/list", "resources"),
                "resourceTemplates": await _all(
                    server, ctx, "resources/templates/list", "resourceTemplates"
                ),
            }
        )

    async def read_resource(uri: str, ctx: Context) -> Any:
        try:
            read = await _ask(server, ctx, "resources/read", {"uri": uri})
        except McpError as exc:
            return error_result(f"Cannot read {uri}: {exc.message}")
        blocks: list[JSONObject] = []
        for item in read.get("contents") or ():
            if isinstance(item.get("text"), str):
                blocks.append({"type": "text", "text": item["text"]})
            else:
                blocks.append({"type": "resource", "resource": item})
        return {"content": blocks}

    _tool(
        server,
        list_resources,
        list_name,
        "List the resources this server offers (their URIs, names and descriptions) and the "
        "URI templates it can read.",
        {"type": "object", "properties": {}, "additionalProperties": False},
    )
    _tool(
        server,
        read_resource,
        read_name,
        "Read a resource of this server by its URI (one listed, or a URI a template makes).",
        {
            "type": "object",
            "properties": {"uri": {"type": "string", "description": "The resource's URI"}},
            "required": ["uri"],
            "additionalProperties": False,
        },
    )


def add_prompt_tools(
    server: Server[Any], list_name: str = "list_prompts", get_name: str = "get_prompt"
) -> None:
    """Add the tools ``list_name`` and ``get_name`` (see the module docstring)."""

    async def list_prompts(ctx: Context) -> Any:
        return _json_result({"prompts": await _all(server, ctx, "prompts/list", "prompts")})

    async def get_prompt(name: str, ctx: Context, arguments: dict[str, str] | None = None) -> Any:
        params: JSONObject = {"name": name}
        if arguments:
            params["arguments"] = arguments
        try:
            return _json_result(await _ask(server, ctx, "prompts/get", params))
        except McpError as exc:
            return error_result(f"Cannot get prompt {name!r}: {exc.message}")

    _tool(
        server,
        list_prompts,
        list_name,
        "List the prompts this server offers, with their arguments.",
        {"type": "object", "properties": {}, "additionalProperties": False},
    )
    _tool(
        server,
        get_prompt,
        get_name,
        "Get one of this server's prompts, filled in with its arguments: the messages it makes.",
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The prompt's name"},
                "arguments": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                    "description": "The prompt's arguments, by name",
                },
            },
            "required": ["name"],
            "additionalProperties": False,
        },
    )
