"""Reading an OpenAPI 3.x document into :class:`HTTPRoute` objects, as fastmcp does: the
paths in document order and, in each, the methods in the order GET, PUT, POST, DELETE,
OPTIONS, HEAD, PATCH, TRACE; a parameter, request body, response or schema given by a
local ``$ref`` is resolved (nested schema references become ``#/$defs/...``)."""

from __future__ import annotations

from typing import Any, cast

from mcpkit.compat.fastmcp.utilities.openapi.models import (
    HttpMethod,
    HTTPRoute,
    JsonSchema,
    ParameterInfo,
    ParameterLocation,
    RequestBodyInfo,
    ResponseInfo,
)
from mcpkit.compat.fastmcp.utilities.openapi.schemas import (
    flat_schema,
    needed_definitions,
    refs_to_defs,
)

__all__ = ["parse_openapi_to_http_routes"]

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_PRIMARY = ("200", "201", "202", "204", "207")


class _Document:
    """The document, and its local references."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec

    def pointer(self, ref: str) -> Any:
        if not ref.startswith("#/"):
            raise ValueError(
                f"External or non-local reference not supported: {ref}. FastMCP only "
                "supports local schema references starting with '#/'. Please include all "
                "schema definitions within the OpenAPI document."
            )
        node: Any = self.spec
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            node = node.get(part) if isinstance(node, dict) else None
            if node is None:
                raise ValueError(f"Reference part '{part}' not found in path '{ref}'")
        return node

    def resolve(self, node: Any) -> Any:
        """``node`` with its chain of ``$ref`` followed."""
        for _ in range(64):
            if isinstance(node, dict) and isinstance(node.get("$ref"), str):
                node = self.pointer(node["$ref"])
            else:
                return node
        raise ValueError("A $ref chain does not end")

    def schema(self, node: Any) -> JsonSchema:
        """A schema as a dict: a reference at its top resolved, nested references
        rewritten to ``#/$defs/...``."""
        resolved = self.resolve(node)
        return refs_to_defs(resolved) if isinstance(resolved, dict) else {}


def parse_openapi_to_http_routes(openapi_dict: dict[str, Any]) -> list[HTTPRoute]:
    """Every operation of the document, as fastmcp reads it."""
    version = str(openapi_dict.get("openapi", ""))
    if not version.startswith("3."):
        raise ValueError(f"Unsupported OpenAPI version: {version or 'none'}")
    doc = _Document(openapi_dict)
    components = openapi_dict.get("components") or {}
    definitions = {
        name: refs_to_defs(schema) if isinstance(schema, dict) else schema
        for name, schema in (components.get("schemas") or {}).items()
    }
    routes: list[HTTPRoute] = []
    for path, raw_item in (openapi_dict.get("paths") or {}).items():
        item = doc.resolve(raw_item)
        if not isinstance(item, dict):
            continue
        for method in _METHODS:
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            parameters = _parameters(doc, operation.get("parameters"), item.get("parameters"))
            body = _request_body(doc, operation.get("requestBody"))
            responses, top_names = _responses(doc, operation.get("responses"))
            route = HTTPRoute(
                path=path,
                method=cast("HttpMethod", method.upper()),
                operation_id=operation.get("operationId"),
                summary=operation.get("summary"),
                description=operation.get("description"),
                tags=[str(t) for t in operation.get("tags") or []],
                parameters=parameters,
                request_body=body,
                responses=responses,
                extensions={k: v for k, v in operation.items() if k.startswith("x-")},
                openapi_version=version,
            )
            inputs: list[Any] = [p.schema_ for p in parameters]
            if body is not None:
                inputs.extend(body.content_schema.values())
            route.request_schemas = needed_definitions(inputs, definitions)
            outputs: list[Any] = [s for r in responses.values() for s in r.content_schema.values()]
            route.response_schemas = needed_definitions(outputs, definitions, top_names)
            route.flat_param_schema, route.parameter_map = flat_schema(route)
            routes.append(route)
    return routes


def _parameters(doc: _Document, own: Any, shared: Any) -> list[ParameterInfo]:
    found: list[ParameterInfo] = []
    seen: set[tuple[str, str]] = set()
    for raw in [*(own or []), *(shared or [])]:
        p = doc.resolve(raw)
        if not isinstance(p, dict) or not isinstance(p.get("name"), str):
            continue
        where = str(p.get("in", "query"))
        if (p["name"], where) in seen or where not in ("path", "query", "header", "cookie"):
            continue
        seen.add((p["name"], where))
        schema: JsonSchema = {}
        if p.get("schema") is not None:
            schema = doc.schema(p["schema"])
        elif isinstance(p.get("content"), dict) and p["content"]:
            media = next(iter(p["content"].values()))
            if isinstance(media, dict) and media.get("schema") is not None:
                schema = doc.schema(media["schema"])
        if p.get("example") is not None:
            schema.pop("examples", None)
            schema["example"] = p["example"]
        found.append(
            ParameterInfo(
                name=p["name"],
                location=cast("ParameterLocation", where),
                required=bool(p.get("required", False)),
                schema_=schema,
                description=p.get("description"),
                explode=p.get("explode"),
                style=p.get("style"),
            )
        )
    return found


def _request_body(doc: _Document, raw: Any) -> RequestBodyInfo | None:
    if not raw:
        return None
    body = doc.resolve(raw)
    if not isinstance(body, dict):
        return None
    info = RequestBodyInfo(
        required=bool(body.get("required", False)), description=body.get("description")
    )
    for media, obj in (body.get("content") or {}).items():
        if isinstance(obj, dict) and isinstance(obj.get("encoding"), dict):
            info.encoding[media] = {
                name: value for name, value in obj["encoding"].items() if isinstance(value, dict)
            }
        if isinstance(obj, dict) and obj.get("schema"):
            info.content_schema[media] = doc.schema(obj["schema"])
    return info


def _responses(doc: _Document, raw: Any) -> tuple[dict[str, ResponseInfo], set[str]]:
    """The primary success response (200, 201, 202, 204, 207, else the first 2xx) and the
    other success responses without a body; the components named at a schema's top."""
    if not isinstance(raw, dict) or not raw:
        return {}, set()
    codes = {str(code): value for code, value in raw.items()}
    primary = next((c for c in _PRIMARY if c in codes), None)
    if primary is None:
        primary = next((c for c in codes if _is_success(c)), None)
    if primary is None:
        return {}, set()
    out: dict[str, ResponseInfo] = {}
    tops: set[str] = set()
    response = doc.resolve(codes[primary])
    if not isinstance(response, dict):
        return {}, set()
    info = ResponseInfo(description=response.get("description"))
    for media, obj in (response.get("content") or {}).items():
        if not isinstance(obj, dict) or not obj.get("schema"):
            continue
        raw_schema = obj["schema"]
        schema = doc.schema(raw_schema)
        ref = raw_schema.get("$ref") if isinstance(raw_schema, dict) else None
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            name = ref.removeprefix("#/components/schemas/")
            if "/" not in name:
                schema["x-fastmcp-top-level-schema"] = name
                tops.add(name)
        info.content_schema[media] = schema
    out[primary] = info
    for code, value in codes.items():
        if code == primary or not code.startswith("2"):
            continue
        other = doc.resolve(value)
        if isinstance(other, dict) and not other.get("content"):
            out[code] = ResponseInfo(description=other.get("description"))
    return out, tops


def _is_success(code: str) -> bool:
    try:
        return 200 <= int(code) < 300
    except ValueError:
        return code.lower() in ("default", "2xx")
