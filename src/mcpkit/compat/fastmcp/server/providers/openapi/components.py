"""The components an OpenAPI provider makes: tools, resources and resource templates
that each send one operation's request (over HTTP with the headers of the MCP request being
served that are fit to pass on, as ``get_http_headers()`` gives them, where the request has
none of that name). A ``mcp_component_fn`` may change their ``name``, ``description``,
``tags``, ``meta``, ``title``, schemas or MIME type before they are served."""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any

from mcpkit.compat._adapt import compact_json_text
from mcpkit.compat.fastmcp.server.providers.openapi.request import (
    actionable,
    build_request,
    forwarded_headers,
    missing_path_arguments,
    send,
)
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR
from mcpkit.server.tools import error_result

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp.utilities.openapi import HTTPRoute

__all__ = ["OpenAPIComponent", "OpenAPIResource", "OpenAPIResourceTemplate", "OpenAPITool"]

_JSON = "application/json"


class _Invalid(Exception):
    """Arguments the call cannot be made with (its text is sent as it is)."""


class OpenAPIComponent:
    """What the three kinds share: the operation, the client, the listed fields."""

    def __init__(
        self,
        client: Any,
        route: HTTPRoute,
        *,
        name: str,
        description: str,
        tags: set[str] | None = None,
    ) -> None:
        self._client = client
        self._route = route
        self.name = name
        self.description = description
        self.tags: set[str] = set(tags or ())
        self.title: str | None = None
        self.meta: dict[str, Any] | None = None
        self.icons: list[Any] | None = None

    def listed_meta(self) -> dict[str, Any]:
        """``_meta`` as fastmcp lists it: the component's own, and its tags."""
        return {**(self.meta or {}), "fastmcp": {"tags": sorted(self.tags)}}

    async def _get(self, arguments: dict[str, Any]) -> Any:
        if missing := missing_path_arguments(self._route, arguments):
            raise _Invalid(f"Missing required arguments: {', '.join(missing)}")
        try:
            request = build_request(self._client, self._route, arguments)
            for key, value in forwarded_headers().items():  # the MCP request's, over HTTP
                if key not in request.headers:
                    request.headers[key] = value
        except Exception as exc:
            raise ValueError(
                f"Error building request for {self._route.method.upper()} "
                f"{self._route.path}: {type(exc).__name__}: {exc}"
            ) from exc
        return await send(self._client, request)


class OpenAPITool(OpenAPIComponent):
    """A tool: its arguments are the operation's parameters and body properties."""

    def __init__(
        self,
        client: Any,
        route: HTTPRoute,
        *,
        name: str,
        description: str,
        parameters: dict[str, Any],
        output_schema: dict[str, Any] | None = None,
        tags: set[str] | None = None,
        annotations: Any = None,
    ) -> None:
        super().__init__(client, route, name=name, description=description, tags=tags)
        self.parameters = parameters
        self.output_schema = output_schema
        self.annotations = annotations

    def __repr__(self) -> str:
        return (
            f"OpenAPITool(name={self.name!r}, method={self._route.method}, path={self._route.path})"
        )

    async def call(
        self, arguments: dict[str, Any], mask: bool, strict: bool = False
    ) -> dict[str, Any]:
        """The ``CallToolResult`` dict of a call: the answer, or fastmcp's error text
        (``strict``: an argument the tool does not take is refused, as fastmcp's
        ``strict_input_validation`` refuses it, instead of dropped)."""
        if strict:
            accepted = {*self.parameters.get("properties", {}), *self._route.parameter_map}
            if unknown := sorted(arguments.keys() - accepted):
                return error_result(
                    f"Unknown arguments: {', '.join(unknown)}. "
                    f"Accepted: {', '.join(sorted(accepted)) or 'none'}"
                )
        try:
            response = await self._get(arguments)
        except _Invalid as exc:
            return error_result(str(exc))
        except Exception as exc:
            text = f"Error calling tool {self.name!r}"
            return error_result(actionable(exc) or (text if mask else f"{text}: {exc}"))
        try:
            data = response.json()
        except ValueError:
            return {"content": [{"type": "text", "text": response.text}]}
        wrapped = False
        if self.output_schema is not None:
            wrap = bool(self.output_schema.get("x-fastmcp-wrap-result"))
            structured = {"result": data} if wrap else data
        elif not isinstance(data, dict):
            structured, wrapped = {"result": data}, True
        else:
            structured = data
        if not isinstance(structured, dict):
            structured = {"result": structured}
        result: dict[str, Any] = {
            "content": [{"type": "text", "text": compact_json_text(structured)}],
            "structuredContent": structured,
        }
        if wrapped:
            result["_meta"] = {"fastmcp": {"wrap_result": True}}
        return result


class OpenAPIResource(OpenAPIComponent):
    """A resource: reading it sends the operation's request (with fixed arguments)."""

    def __init__(
        self,
        client: Any,
        route: HTTPRoute,
        *,
        uri: str,
        name: str,
        description: str,
        mime_type: str = _JSON,
        tags: set[str] | None = None,
        arguments: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(client, route, name=name, description=description, tags=tags)
        self.uri = uri
        self.mime_type = mime_type
        self._arguments = dict(arguments or {})

    def __repr__(self) -> str:
        return f"OpenAPIResource(name={self.name!r}, uri={self.uri!r}, path={self._route.path})"

    async def read(self, uri: str, mask: bool) -> dict[str, Any]:
        """The contents (without their URI) as fastmcp reads them; a failure is -32603
        ``Error reading resource '<uri>': ...``."""
        try:
            response = await self._get(self._arguments)
        except Exception as exc:
            text = f"Error reading resource {uri!r}"
            message = actionable(exc) or (text if mask else f"{text}: {exc}")
            raise McpError(INTERNAL_ERROR, message) from None
        content_type = response.headers.get("content-type", "").lower()
        media = content_type.split(";")[0].strip()
        if media == _JSON or media.endswith("+json"):
            return {"mimeType": media, "text": json.dumps(response.json())}
        if any(kind in content_type for kind in ("text/", "application/xml")):
            return {"mimeType": self.mime_type, "text": response.text}
        return {"mimeType": self.mime_type, "blob": base64.b64encode(response.content).decode()}


class OpenAPIResourceTemplate(OpenAPIComponent):
    """A resource template: ``resource://<name>/{p}/...`` over the path parameters."""

    def __init__(
        self,
        client: Any,
        route: HTTPRoute,
        *,
        uri_template: str,
        name: str,
        description: str,
        parameters: dict[str, Any],
        tags: set[str] | None = None,
        mime_type: str = _JSON,
    ) -> None:
        super().__init__(client, route, name=name, description=description, tags=tags)
        self.uri_template = uri_template
        self.parameters = parameters
        self.mime_type = mime_type

    def __repr__(self) -> str:
        return (
            f"OpenAPIResourceTemplate(name={self.name!r}, "
            f"uri_template={self.uri_template!r}, path={self._route.path})"
        )

    def resource_for(self, uri: str, params: dict[str, Any]) -> OpenAPIResource:
        """The resource one URI of the template names."""
        arguments: dict[str, Any] = {}
        for p in self._route.parameters:
            if p.location != "path" or p.name not in params:
                continue
            arg = next(
                (
                    a
                    for a, where in self._route.parameter_map.items()
                    if where["location"] == "path" and where["openapi_name"] == p.name
                ),
                p.name,
            )
            arguments[arg] = params[p.name]
        return OpenAPIResource(
            self._client,
            self._route,
            uri=uri,
            name=f"{self.name}-{'-'.join(f'{k}={v}' for k, v in params.items())}",
            description=self.description or f"Resource for {self._route.path}",
            mime_type=self.mime_type,
            tags=set(self._route.tags or []),
            arguments=arguments,
        )
