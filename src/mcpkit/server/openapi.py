"""OpenAPI: the operations of an HTTP API as MCP tools.

```python
api = httpx.AsyncClient(base_url="https://petstore.example.com", headers={"Authorization": ...})
app = Server.from_openapi(spec, client=api, route_filter=lambda r: "pets" in r.tags)
```

Each operation of an OpenAPI 3.x document (a dict, JSON text or a file path; YAML too when
PyYAML is installed) becomes a tool:

- name: ``names[operationId]`` (or ``names["GET /pets/{petId}"]``), else the operationId,
  else ``<method>_<path>``, made a valid tool name (and unique);
- description: the summary and description; annotations from the method (``GET``/``HEAD``
  read-only, ``PUT``/``DELETE`` idempotent, ``DELETE`` destructive, every one open-world);
- input schema: the path, query, header and cookie parameters (each by its name, or
  ``<name>_<in>`` when two places use one name) and a JSON (or form) request body, whose
  properties are merged in when it is an object whose names are free, else given as
  ``body``; local ``$ref``s are resolved (schemas into ``$defs``, so recursive ones work),
  OpenAPI 3.0's ``nullable`` becomes a ``null`` type;
- output schema: the JSON schema of the first 2xx response, when it is an object (a result
  then carries ``structuredContent``); ``output_schemas=False`` leaves them out.

A call is one request made with the given ``httpx.AsyncClient``, to ``base_url`` (default:
the document's first server URL, which may be relative to the client's ``base_url``) plus
the path. A 2xx answer is the result (JSON as text, and structured when the tool has an
output schema); any other status is a tool error (``isError``) with the status and body, as
is a request that fails (connection refused, timeout). ``route_filter(route)`` chooses the
operations (:class:`Route`: method, path, operationId, tags, summary).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import orjson

from mcpkit.errors import McpError
from mcpkit.json_schema import compile_schema
from mcpkit.jsonrpc import INVALID_PARAMS

if TYPE_CHECKING:
    import httpx

    from mcpkit.server.app import Server
    from mcpkit.types import CallToolResult

__all__ = ["Route", "add_openapi_tools", "from_fastapi", "from_openapi", "load_spec"]

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")
_MAX_BODY = 8000  # characters of an error body put in the tool error
_DROP = frozenset(("discriminator", "xml", "externalDocs", "example", "nullable"))


@dataclass(frozen=True)
class Route:
    """One operation of the document, as ``route_filter`` sees it."""

    method: str  #: upper case: ``GET``
    path: str  #: as in the document: ``/pets/{petId}``
    operation_id: str | None
    tags: tuple[str, ...] = ()
    summary: str | None = None
    #: The operation object itself (``$ref``s not resolved).
    operation: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)


def load_spec(spec: Mapping[str, Any] | str | Path) -> dict[str, Any]:
    """The document as a dict: given as one, as JSON (or YAML) text, or as a file path."""
    if isinstance(spec, Mapping):
        return dict(spec)
    text = str(spec)
    if isinstance(spec, Path) or not text.lstrip().startswith(("{", "openapi", "swagger")):
        text = Path(spec).read_text(encoding="utf-8")
    try:
        loaded = json.loads(text)
    except json.JSONDecodeError:
        try:
            import yaml  # type: ignore[import-untyped]
        except ImportError:
            raise ValueError(
                "The OpenAPI document is not JSON (YAML needs PyYAML installed)"
            ) from None
        loaded = yaml.safe_load(text)
    if not isinstance(loaded, dict):
        raise ValueError("The OpenAPI document must be an object")
    return loaded


def from_openapi(
    spec: Mapping[str, Any] | str | Path,
    *,
    client: httpx.AsyncClient | None = None,
    name: str | None = None,
    version: str | None = None,
    route_filter: Callable[[Route], bool] | None = None,
    names: Mapping[str, str] | None = None,
    base_url: str | None = None,
    output_schemas: bool = True,
    **server_options: Any,
) -> Server[Any]:
    """A new :class:`~mcpkit.Server` (named after the document's title unless ``name``)
    whose tools are the document's operations (see the module docstring). Without
    ``client`` one is made for the document's server URL and closed with the server's
    lifespan."""
    from mcpkit.server.app import Server

    document = load_spec(spec)
    raw_info = document.get("info")
    info: dict[str, Any] = raw_info if isinstance(raw_info, dict) else {}
    made: list[httpx.AsyncClient] = []
    if client is None:
        import httpx

        client = httpx.AsyncClient(timeout=30)
        made.append(client)
        if base_url is None and _server_url(document) is None:
            raise ValueError(
                "from_openapi: give client= or base_url= (the document names no server)"
            )

    own = server_options.pop("lifespan", None)

    @contextlib.asynccontextmanager
    async def lifespan(server: Server[Any]) -> AsyncIterator[Any]:
        try:
            if own is None:
                yield None
            else:
                async with own(server) as state:
                    yield state
        finally:
            for c in made:
                await c.aclose()

    server_options.setdefault("instructions", info.get("description") or None)
    server: Server[Any] = Server(
        name or str(info.get("title") or "openapi"),
        version or str(info.get("version") or "0.0.0"),
        lifespan=lifespan if made or own is not None else None,
        **server_options,
    )
    add_openapi_tools(
        server,
        document,
        client=client,
        route_filter=route_filter,
        names=names,
        base_url=base_url,
        output_schemas=output_schemas,
    )
    return server


def from_fastapi(
    app: Any,
    *,
    name: str | None = None,
    version: str | None = None,
    route_filter: Callable[[Route], bool] | None = None,
    names: Mapping[str, str] | None = None,
    output_schemas: bool = True,
    **server_options: Any,
) -> Server[Any]:
    """A new :class:`~mcpkit.Server` whose tools are the operations of a FastAPI app (any
    ASGI app with an ``openapi()`` method), called in this process: no port, no network.

    The tools come from ``app.openapi()`` exactly as :func:`from_openapi` makes them;
    requests go to the app through ``httpx.ASGITransport``. The app's own lifespan (its
    startup and shutdown, ``app.router.lifespan_context``) runs inside the server's, so
    what it opens at startup is there when a tool is called."""
    import httpx

    openapi = getattr(app, "openapi", None)
    if not callable(openapi):
        raise TypeError(f"from_fastapi needs a FastAPI app (one with openapi()), got {app!r}")
    document = openapi()
    base_url = "http://fastapi.local"
    client = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url=base_url, timeout=30
    )
    own = server_options.pop("lifespan", None)
    router = getattr(app, "router", None)
    app_lifespan = getattr(router, "lifespan_context", None)

    @contextlib.asynccontextmanager
    async def lifespan(server: Server[Any]) -> AsyncIterator[Any]:
        async with contextlib.AsyncExitStack() as stack:
            stack.push_async_callback(client.aclose)
            if app_lifespan is not None:
                await stack.enter_async_context(app_lifespan(app))
            if own is None:
                yield None
            else:
                yield await stack.enter_async_context(own(server))

    return from_openapi(
        document,
        client=client,
        name=name,
        version=version,
        route_filter=route_filter,
        names=names,
        base_url=base_url,
        output_schemas=output_schemas,
        lifespan=lifespan,
        **server_options,
    )


def add_openapi_tools(
    server: Server[Any],
    spec: Mapping[str, Any] | str | Path,
    *,
    client: httpx.AsyncClient,
    route_filter: Callable[[Route], bool] | None = None,
    names: Mapping[str, str] | None = None,
    base_url: str | None = None,
    output_schemas: bool = True,
) -> list[str]:
    """Register the document's operations as tools of ``server``; their names."""
    document = load_spec(spec)
    version = str(document.get("openapi", ""))
    if not version.startswith("3."):
        raise ValueError(
            f"Only OpenAPI 3.x documents are supported (this one says "
            f"{document.get('openapi') or document.get('swagger') or 'nothing'!r})"
        )
    base = base_url if base_url is not None else (_server_url(document) or "")
    resolver = _Resolver(document)
    names = dict(names or {})
    added: list[str] = []
    taken = set(server.tools.tools)
    paths = document.get("paths") or {}
    if not isinstance(paths, dict):
        raise ValueError("OpenAPI document: 'paths' must be an object")
    for path, item in paths.items():
        item = resolver.deref(item)
        if not isinstance(item, dict):
            continue
        shared = item.get("parameters") or []
        for method in METHODS:
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            route = Route(
                method.upper(),
                path,
                operation.get("operationId"),
                tuple(str(t) for t in operation.get("tags") or ()),
                operation.get("summary"),
                operation,
            )
            if route_filter is not None and not route_filter(route):
                continue
            tool = _Operation(route, shared, resolver, client, base, output_schemas)
            tool_name = (
                names.get(route.operation_id or "")
                or names.get(f"{route.method} {path}")
                or _tool_name(route)
            )
            unique, n = tool_name, 2
            while unique in taken:
                unique, n = f"{tool_name}_{n}", n + 1
            taken.add(unique)
            server.add_tool(
                tool.call,
                name=unique,
                title=route.summary,
                description=tool.description(),
                input_schema=tool.input_schema,
                output_schema=tool.output_schema,
                annotations=_annotations(route.method),
            )
            added.append(unique)
    return added


def _server_url(document: Mapping[str, Any]) -> str | None:
    servers = document.get("servers")
    if isinstance(servers, list) and servers and isinstance(servers[0], dict):
        url = servers[0].get("url")
        if isinstance(url, str):
            variables = servers[0].get("variables") or {}
            for var, spec in variables.items():
                if isinstance(spec, dict) and "default" in spec:
                    url = url.replace("{" + var + "}", str(spec["default"]))
            return url
    return None


def _tool_name(route: Route) -> str:
    if route.operation_id:
        name = _NAME_CHARS.sub("_", route.operation_id).strip("_")
    else:  # GET /pets/{petId} -> get_pets_petId
        name = re.sub(r"[^A-Za-z0-9]+", "_", f"{route.method.lower()}_{route.path}").strip("_")
    name = name or route.method.lower()
    return name[:128]


def _annotations(method: str) -> dict[str, Any]:
    hints: dict[str, Any] = {"openWorldHint": True}
    if method in ("GET", "HEAD", "OPTIONS"):
        hints["readOnlyHint"] = True
    else:
        hints["readOnlyHint"] = False
        hints["destructiveHint"] = method == "DELETE"
        hints["idempotentHint"] = method in ("PUT", "DELETE")
    return hints


class _Resolver:
    """Local ``$ref``s of one document: objects dereferenced, schemas rewritten into
    ``$defs`` (the definitions a schema needs collected with it)."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document

    def pointer(self, ref: str) -> Any:
        if not ref.startswith("#/"):
            raise ValueError(f"OpenAPI: only local $refs are supported, not {ref!r}")
        node: Any = self.document
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                raise ValueError(f"OpenAPI: $ref {ref!r} points at nothing")
            node = node[part]
        return node

    def deref(self, node: Any) -> Any:
        """``node`` with its ``$ref`` chain followed (for parameters, bodies, responses)."""
        for _ in range(32):
            if isinstance(node, dict) and isinstance(node.get("$ref"), str):
                node = self.pointer(node["$ref"])
            else:
                return node
        raise ValueError("OpenAPI: a $ref chain does not end")

    def schema(self, node: Any) -> tuple[Any, dict[str, Any]]:
        """A JSON Schema for ``node`` and the ``$defs`` it refers to."""
        defs: dict[str, Any] = {}
        pending: list[str] = []

        def name_of(ref: str) -> str:
            key = ref.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
            if key not in defs:
                defs[key] = None
                pending.append(ref)
            return key

        def convert(value: Any) -> Any:
            if isinstance(value, list):
                return [convert(v) for v in value]
            if not isinstance(value, dict):
                return value
            ref = value.get("$ref")
            if isinstance(ref, str):
                if ref.startswith("#/components/schemas/"):
                    return {"$ref": f"#/$defs/{name_of(ref)}"}
                return convert(self.pointer(ref))
            out = {
                k: (convert(v) if k not in ("enum", "const", "default") else v)
                for k, v in value.items()
                if k not in _DROP and not k.startswith("x-")
            }
            if value.get("nullable") is True:
                kind = out.get("type")
                if isinstance(kind, str):
                    out["type"] = [kind, "null"]
                elif "type" not in out:
                    out = {"anyOf": [out, {"type": "null"}]}
                if "enum" in out and None not in out["enum"]:
                    out["enum"] = [*out["enum"], None]
            return out

        top = convert(node)
        while pending:
            ref = pending.pop()
            defs[name_of(ref)] = convert(self.pointer(ref))
        return top, defs

    def object_schema(self, node: Any) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """The schema of ``node`` when it is an object (its ``$ref`` followed), else None."""
        target = self.deref(node)
        if not isinstance(target, dict):
            return None, {}
        schema, defs = self.schema(target)
        is_object = schema.get("type") == "object" or (
            "type" not in schema and ("properties" in schema or "additionalProperties" in schema)
        )
        if not is_object:
            return None, defs
        schema = {**schema, "type": "object"}
        return schema, defs


def _json_media(content: Any) -> tuple[str, Any] | None:
    """(media type, media object) of the JSON (else form) entry of a ``content`` map."""
    if not isinstance(content, dict):
        return None
    for media, obj in content.items():
        base = media.split(";")[0].strip().lower()
        if base == "application/json" or base.endswith("+json"):
            return "json", obj
    for media, obj in content.items():
        if media.split(";")[0].strip().lower() == "application/x-www-form-urlencoded":
            return "form", obj
    return None


class _Operation:
    """One operation: its tool's schemas, and the call."""

    def __init__(
        self,
        route: Route,
        shared: list[Any],
        resolver: _Resolver,
        client: httpx.AsyncClient,
        base: str,
        output_schemas: bool,
    ) -> None:
        self.route = route
        self.client = client
        self.base = base.rstrip("/")
        op = route.operation
        properties: dict[str, Any] = {}
        required: list[str] = []
        defs: dict[str, Any] = {}
        #: argument name -> (where: path/query/header/cookie/body/body-field, wire name)
        self.arguments: dict[str, tuple[str, str]] = {}
        params: dict[tuple[str, str], Any] = {}
        for raw in [*shared, *(op.get("parameters") or [])]:  # the operation's win
            p = resolver.deref(raw)
            if isinstance(p, dict) and isinstance(p.get("name"), str):
                params[(p["name"], str(p.get("in", "query")))] = p
        for (pname, where), p in params.items():
            arg = pname if pname not in properties else f"{pname}_{where}"
            schema, found = resolver.schema(p.get("schema") or {})
            defs.update(found)
            if p.get("description") and isinstance(schema, dict):
                schema = {"description": p["description"], **schema}
            properties[arg] = schema
            if p.get("required") or where == "path":
                required.append(arg)
            self.arguments[arg] = (where, pname)
        self.body_kind: str | None = None
        body = resolver.deref(op.get("requestBody")) if op.get("requestBody") else None
        media = _json_media(body.get("content")) if isinstance(body, dict) else None
        if media is not None and isinstance(media[1], dict):
            self.body_kind = media[0]
            schema_node = media[1].get("schema") or {}
            obj, found = resolver.object_schema(schema_node)
            body_required = bool(body.get("required"))  # type: ignore[union-attr]
            fields = obj.get("properties") if obj is not None else None
            if (
                obj is not None
                and isinstance(fields, dict)
                and not (set(fields) & set(properties))
                and "body" not in fields
                and not obj.get("additionalProperties")
            ):
                defs.update(found)
                for key, value in fields.items():
                    properties[key] = value
                    self.arguments[key] = ("body-field", key)
                if body_required:
                    required.extend(k for k in obj.get("required") or () if k in fields)
            else:
                schema, found = resolver.schema(schema_node)
                defs.update(found)
                properties["body"] = schema
                self.arguments["body"] = ("body", "body")
                if body_required:
                    required.append("body")
        # Only what the operation declares: anything else is refused by name, never sent.
        self.input_schema: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "additionalProperties": False,
        }
        if required:
            self.input_schema["required"] = list(dict.fromkeys(required))
        if defs:
            self.input_schema["$defs"] = defs
        self.output_schema: dict[str, Any] | None = None
        if output_schemas:
            self.output_schema = self._output(resolver)
        self._validator = (
            compile_schema(self.output_schema) if self.output_schema is not None else None
        )

    def _output(self, resolver: _Resolver) -> dict[str, Any] | None:
        responses = self.route.operation.get("responses") or {}
        if not isinstance(responses, dict):
            return None
        codes = sorted(str(c) for c in responses if str(c).startswith("2"))
        for code in codes:
            response = resolver.deref(responses[code])
            media = _json_media(response.get("content")) if isinstance(response, dict) else None
            if media is None or media[0] != "json" or not isinstance(media[1], dict):
                continue
            schema, defs = resolver.object_schema(media[1].get("schema") or {})
            if schema is None:
                return None
            if defs:
                schema = {**schema, "$defs": {**schema.get("$defs", {}), **defs}}
            return schema
        return None

    def description(self) -> str | None:
        op = self.route.operation
        parts = [str(p) for p in (op.get("summary"), op.get("description")) if p]
        return "\n\n".join(parts) or f"{self.route.method} {self.route.path}"

    async def call(self, arguments: dict[str, Any]) -> Any:
        """Make the request; the tool result (a CallToolResult: passed through as it is)."""
        import httpx

        path = self.route.path
        query: list[tuple[str, str]] = []
        headers: dict[str, str] = {}
        cookies: list[str] = []
        fields: dict[str, Any] = {}
        body: Any = None
        unknown = [arg for arg in arguments if arg not in self.arguments]
        if unknown:  # never sent on (the input schema refuses them before this)
            names = ", ".join(f"'{arg}'" for arg in unknown)
            raise McpError(
                INVALID_PARAMS,
                f"{names}: Unexpected argument ({self.route.method} {self.route.path} "
                "declares no such parameter or body field)",
            )
        for arg, value in arguments.items():
            where, wire = self.arguments[arg]
            if where == "path":
                path = path.replace("{" + wire + "}", _path_segment(value))
            elif where == "query":
                values = value if isinstance(value, list) else [value]
                query.extend((wire, _text(v)) for v in values if v is not None)
            elif where == "header":
                headers[wire] = _text(value)
            elif where == "cookie":
                cookies.append(f"{wire}={quote(_text(value), safe='')}")
            elif where == "body":
                body = value
            else:
                fields[wire] = value
        if fields:
            body = fields if body is None else {**fields, **body}
        if cookies:
            headers["cookie"] = "; ".join(cookies)
        options: dict[str, Any] = {"params": query, "headers": headers}
        if body is not None:
            if self.body_kind == "form":
                options["data"] = {k: _text(v) for k, v in body.items()}
            else:
                options["json"] = body
        try:
            response = await self.client.request(self.route.method, self.base + path, **options)
        except httpx.HTTPError as exc:
            return _error(f"{self.route.method} {path} failed: {exc or type(exc).__name__}")
        return self._result(response)

    def _result(self, response: httpx.Response) -> CallToolResult:
        from mcpkit.types import CallToolResult, TextContent

        text = response.text
        if not response.is_success:
            shown = text if len(text) <= _MAX_BODY else text[:_MAX_BODY] + "..."
            message = f"HTTP {response.status_code} {response.reason_phrase}"
            return _error(f"{message}: {shown}" if shown else message)
        data: Any = None
        if text:
            try:
                data = orjson.loads(text)
            except orjson.JSONDecodeError:
                data = None
        if self._validator is not None:
            if not isinstance(data, dict) or not self._validator.is_valid(data):
                problems = (
                    "; ".join(self._validator.errors(data, limit=3))
                    if isinstance(data, dict)
                    else "not a JSON object"
                )
                return _error(
                    f"HTTP {response.status_code}: the response does not match the "
                    f"operation's schema ({problems}): {text[:_MAX_BODY]}"
                )
            return CallToolResult(
                content=[TextContent(text=orjson.dumps(data).decode())], structured_content=data
            )
        shown = text or f"HTTP {response.status_code} {response.reason_phrase}"
        return CallToolResult(content=[TextContent(text=shown)])


def _path_segment(value: Any) -> str:
    """``value`` encoded to stay within one path segment: every reserved character
    percent-encoded (``/``, ``?``, ``#``, ``%`` included), and a value of dots only (``.``,
    ``..``) with its dots encoded too, so that no client or server reads it as a step up."""
    text = quote(_text(value), safe="")
    if text and not text.strip("."):
        return "%2E" * len(text)
    return text


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return orjson.dumps(value).decode()
    return str(value)


def _error(message: str) -> CallToolResult:
    from mcpkit.types import CallToolResult, TextContent

    return CallToolResult(content=[TextContent(text=message)], is_error=True)
