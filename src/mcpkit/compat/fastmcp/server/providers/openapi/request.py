"""One operation's HTTP request and its answer, as fastmcp makes and reads them: the
arguments put back in their places (path parameters in the simple style, one segment
each, dot segments refused; query parameters in their style, lists repeated unless
``explode`` is false; headers and cookies; the JSON or form body), sent with the provider's
client (its base URL and default headers kept), and a status outside 2xx an error whose
text names the status, the reason and the body (JSON re-encoded, HTML left out)."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp.utilities.openapi import HTTPRoute

__all__ = [
    "HTTPError",
    "actionable",
    "build_request",
    "forwarded_headers",
    "missing_path_arguments",
    "send",
]

_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
_DELIMITERS = {"form": ",", "spaceDelimited": " ", "pipeDelimited": "|"}
_BODY_LIMIT = 1000
#: RFC 9110's reason phrases where older tables (``httpx``'s) still have RFC 7231's: the
#: texts fastmcp's ``httpx2`` client gives, whichever client sent the request.
_PHRASES = {
    413: "Content Too Large",
    414: "URI Too Long",
    416: "Range Not Satisfiable",
    422: "Unprocessable Content",
}


#: Headers of the MCP request not passed on unless asked: hop-by-hop and framing ones,
#: credentials, the MCP session.
NOT_FORWARDED = frozenset(
    {
        "host",
        "content-length",
        "content-type",
        "connection",
        "transfer-encoding",
        "upgrade",
        "te",
        "keep-alive",
        "expect",
        "accept",
        "authorization",
        "cookie",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "mcp-session-id",
    }
)


def forwarded_headers(include_all: bool = False, include: set[str] | None = None) -> dict[str, str]:
    """The headers of the HTTP request being served (lower-case names; empty outside of
    one), without :data:`NOT_FORWARDED` unless ``include_all`` or named in ``include``:
    fastmcp's ``get_http_headers()``."""
    from mcpkit.http_request import current_http_request

    request = current_http_request()
    if request is None:
        return {}
    left_out = set() if include_all else NOT_FORWARDED - {h.lower() for h in include or ()}
    return {k: v for k, v in request.headers.items_all() if k not in left_out}


class HTTPError(Exception):
    """An answer outside 2xx (the message is fastmcp's text for it)."""

    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


def actionable(exc: BaseException) -> str | None:
    """fastmcp's text for a failure it shows even when error details are masked: the API
    rate-limiting (429) or the request timing out."""
    if isinstance(exc, HTTPError) and exc.status_code == 429:
        return "Rate limited by upstream API, please retry later"
    if _is_timeout(exc):
        return "Upstream request timed out, please retry"
    return None


def _is_timeout(exc: BaseException) -> bool:
    return any(
        cls.__name__ == "TimeoutException"
        and cls.__module__.partition(".")[0] in ("httpx", "httpx2")
        for cls in type(exc).__mro__
    )


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def missing_path_arguments(route: HTTPRoute, arguments: dict[str, Any]) -> list[str]:
    """The path arguments the call lacks (given as null counts as lacking)."""
    names = set(_PLACEHOLDER.findall(route.path))
    aliases: dict[str, list[str]] = {}
    for arg, where in route.parameter_map.items():
        if where["location"] == "path":
            aliases.setdefault(where["openapi_name"], []).append(arg)
    missing = []
    for p in route.parameters:
        if p.location != "path" or p.name not in names:
            continue
        found = aliases.get(p.name)
        if found and all(arguments.get(a) is None for a in found):
            missing.append(found[0])
    return missing


def _path_item(name: str, value: Any) -> str:
    text = _scalar(value)
    decoded = text
    for _ in range(32):
        if any(part in (".", "..") for part in decoded.replace("\\", "/").split("/")):
            raise ValueError(f"Path parameter '{name}' cannot contain dot segments")
        expanded = unquote(decoded)
        if expanded == decoded:
            break
        decoded = expanded
    else:
        raise ValueError(f"Path parameter '{name}' has too many encoding layers")
    return quote(text, safe="").replace(".", "%2E")


def _path_value(name: str, value: Any, explode: bool) -> str:
    if isinstance(value, dict):
        if explode:
            return ",".join(
                f"{_path_item(name, k)}={_path_item(name, v)}" for k, v in value.items()
            )
        return ",".join(_path_item(name, x) for kv in value.items() for x in kv)
    if isinstance(value, list | tuple):
        flat = [i for v in value for i in (v if isinstance(v, list | tuple) else [v])]
        return ",".join(_path_item(name, v) for v in flat)
    return _path_item(name, value)


def _simple(value: Any, explode: bool) -> str:
    if isinstance(value, dict):
        if explode:
            return ",".join(f"{_scalar(k)}={_scalar(v)}" for k, v in value.items())
        return ",".join(_scalar(x) for kv in value.items() for x in kv)
    if isinstance(value, list | tuple):
        return ",".join(_scalar(v) for v in value)
    return _scalar(value)


def _accepts_null(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if None in (schema.get("enum") or ()):
        return True
    return any(_accepts_null(m) for k in ("anyOf", "oneOf") for m in schema.get(k) or ())


def build_request(client: Any, route: HTTPRoute, arguments: dict[str, Any]) -> Any:
    """The request for a call with ``arguments``, built by ``client``."""
    path: dict[str, Any] = {}
    query: dict[str, Any] = {}
    headers: dict[str, Any] = {}
    cookies: dict[str, Any] = {}
    body_props: dict[str, Any] = {}
    body = route.request_body
    media = next(iter(body.content_schema), "") if body is not None else ""
    base_media = media.split(";")[0].strip().lower()
    is_json = base_media == "application/json" or base_media.endswith("+json")
    properties = route.flat_param_schema.get("properties", {})
    for arg, value in arguments.items():
        where = route.parameter_map.get(arg)
        if where is None:
            continue
        location, name = where["location"], where["openapi_name"]
        if value is None and (
            location != "body" or not is_json or not _accepts_null(properties.get(arg))
        ):
            continue
        {"path": path, "query": query, "header": headers, "cookie": cookies}.get(
            location, body_props
        )[name] = value
    for name in dict.fromkeys(_PLACEHOLDER.findall(route.path)):
        if name not in path:
            raise ValueError(f"Missing required path parameters: {{{name!r}}}")
    explodes = {p.name: p for p in route.parameters}
    url_path = route.path
    for name, value in path.items():
        p = explodes.get(name)
        url_path = url_path.replace(
            "{" + name + "}", _path_value(name, value, bool(p and p.explode))
        )
    base = str(client.base_url) or "http://localhost"
    url = f"{base.rstrip('/')}/{url_path.lstrip('/')}"
    params: list[tuple[str, str]] = []
    for name, value in query.items():
        p = next((q for q in route.parameters if q.location == "query" and q.name == name), None)
        style = (p.style if p else None) or "form"
        explode = p.explode if p and p.explode is not None else True
        if p and p.explode is None and isinstance(value, list) and style != "form":
            explode = False
        if isinstance(value, dict):
            if explode:
                for k, v in value.items():
                    key = f"{name}[{_scalar(k)}]" if style == "deepObject" else _scalar(k)
                    params.append((key, _scalar(v)))
            elif value:
                delimiter = _DELIMITERS.get(style, ",")
                params.append(
                    (name, delimiter.join(_scalar(x) for kv in value.items() for x in kv))
                )
        elif isinstance(value, list):
            if explode:
                params.extend((name, _scalar(v)) for v in value)
            elif value:
                params.append((name, _DELIMITERS.get(style, ",").join(_scalar(v) for v in value)))
        else:
            params.append((name, _scalar(value)))
    header_values = {
        k: _simple(v, bool(explodes.get(k) and explodes[k].explode)) for k, v in headers.items()
    }
    if cookies:
        header_values["Cookie"] = "; ".join(f"{k}={_scalar(v)}" for k, v in cookies.items())
    options: dict[str, Any] = {}
    payload: Any = None
    if body_props:
        schema = body.content_schema[media] if body is not None else {}
        if (
            isinstance(schema.get("properties"), dict)
            and schema["properties"]
            and "$ref" not in schema
        ):
            payload = body_props
        elif len(body_props) == 1:
            payload = next(iter(body_props.values()))
        else:
            payload = body_props
    elif (
        body is not None
        and body.required
        and is_json
        and body.content_schema[media].get("properties")
    ):
        payload = {}
    if payload is not None:
        encoding = body.encoding.get(media, {}) if body is not None else {}
        if base_media == "multipart/form-data" and isinstance(payload, dict):
            options["files"] = _multipart(payload, encoding)
        elif base_media == "application/x-www-form-urlencoded" and isinstance(payload, dict):
            schema = body.content_schema[media] if body is not None else {}
            options["data"] = _form(payload, schema, encoding, route.request_schemas)
        elif isinstance(payload, dict | list) or is_json:
            if media and media != "application/json" and "json" in base_media:
                options["content"] = json.dumps(payload, allow_nan=False).encode()
                header_values["Content-Type"] = media
            else:
                options["json"] = payload
        else:
            options["content"] = (
                _scalar(payload) if isinstance(payload, bool | int | float) else payload
            )
            if media:
                header_values["Content-Type"] = media
    return client.build_request(
        route.method, url, params=params or None, headers=header_values or None, **options
    )


_DEFAULT_PART = {
    "style": "form",
    "explode": True,
    "contentType": "text/plain",
    "allowReserved": False,
    "headers": {},
}


def _multipart(body: dict[str, Any], encoding: dict[str, Any]) -> list[tuple[str, Any]]:
    """The parts of a ``multipart/form-data`` body: a list of strings one part per item
    (under the default encoding), anything else one part, as text."""
    parts: list[tuple[str, Any]] = []
    for name, value in body.items():
        default = all(
            _DEFAULT_PART.get(k, object()) == v for k, v in encoding.get(name, {}).items()
        )
        if isinstance(value, list) and value and all(isinstance(i, str) for i in value) and default:
            parts.extend((name, (None, item)) for item in value)
        else:
            parts.append((name, (None, _scalar(value))))
    return parts


def _is_object(
    schema: Any, definitions: dict[str, Any], seen: frozenset[str] = frozenset()
) -> bool:
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref in seen:
            return False
        seen = seen | {ref}
        schema = definitions.get(ref.rsplit("/", 1)[-1])
    if not isinstance(schema, dict) or not schema:
        return False
    kind = schema.get("type")
    if kind == "object" or (isinstance(kind, list) and "object" in kind):
        return True
    if "properties" in schema or "additionalProperties" in schema:
        return True
    return any(
        _is_object(m, definitions, seen)
        for k in ("allOf", "anyOf", "oneOf")
        for m in schema.get(k) or ()
    )


def _form(
    body: dict[str, Any],
    schema: dict[str, Any],
    encoding: dict[str, Any],
    definitions: dict[str, Any],
) -> dict[str, Any]:
    """An ``application/x-www-form-urlencoded`` body: an object field (or a list of
    objects, or a field whose encoding says JSON) as JSON text, the rest as it is."""
    properties = schema.get("properties") or {}
    extra = schema.get("additionalProperties")
    data: dict[str, Any] = {}
    for name, value in body.items():
        declared = encoding.get(name, {}).get("contentType")
        if declared is not None:
            media = str(declared).split(";")[0].strip().lower()
            as_json = media == "application/json" or media.endswith("+json")
        else:
            prop = properties.get(name, extra if isinstance(extra, dict) else {})
            items = prop.get("items") if isinstance(prop, dict) else None
            as_json = (
                (isinstance(value, dict) and _is_object(prop, definitions))
                or (
                    isinstance(value, list)
                    and _is_object(items, definitions)
                    and (not value or any(isinstance(i, dict) for i in value))
                )
                or (value is None and _is_object(prop, definitions))
            )
        data[name] = json.dumps(value, allow_nan=False) if as_json else value
    return data


async def send(client: Any, request: Any) -> Any:
    """Send ``request``; an answer outside 2xx raises :class:`HTTPError` with fastmcp's
    text, a request that fails raises the client's own error (as fastmcp's ``httpx2``
    client does)."""
    response = await client.send(request)
    status = response.status_code
    if 200 <= status < 300:
        return response
    message = f"HTTP error {status}: {_PHRASES.get(status, response.reason_phrase)}"
    if 300 <= status < 400 and response.headers.get("location"):
        message += f" - Location: {response.headers['location']}"
    media = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    text = response.text
    if text and media not in ("text/html", "application/xhtml+xml"):
        try:
            shown = json.dumps(response.json(), ensure_ascii=False)
        except ValueError:
            if not text.lstrip().lower().startswith(("<!doctype html", "<html")):
                message += f" - {_bounded(text)}"
        else:
            message += f" - {_bounded(shown)}"
    raise HTTPError(message, status)


def _bounded(text: str) -> str:
    return text if len(text) <= _BODY_LIMIT else text[:_BODY_LIMIT] + "… (truncated)"
