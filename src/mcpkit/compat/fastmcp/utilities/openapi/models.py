"""The parts of an OpenAPI operation, as fastmcp's route map functions and component
functions see them (``route.path``, ``route.method``, ``route.tags``, ...)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "HTTPRoute",
    "HttpMethod",
    "JsonSchema",
    "ParameterInfo",
    "ParameterLocation",
    "RequestBodyInfo",
    "ResponseInfo",
]

HttpMethod = Literal["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE"]
ParameterLocation = Literal["path", "query", "header", "cookie"]
JsonSchema = dict[str, Any]


@dataclass
class ParameterInfo:
    """One parameter: where it goes, whether it is required, its schema."""

    name: str
    location: ParameterLocation
    required: bool = False
    schema_: JsonSchema = field(default_factory=dict)
    description: str | None = None
    explode: bool | None = None
    style: str | None = None


@dataclass
class RequestBodyInfo:
    """The request body: its schema per media type."""

    required: bool = False
    content_schema: dict[str, JsonSchema] = field(default_factory=dict)
    description: str | None = None
    #: Per media type, the ``encoding`` of its properties (``contentType``, ``style``, ...).
    encoding: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)


@dataclass
class ResponseInfo:
    """A success response: its schema per media type."""

    description: str | None = None
    content_schema: dict[str, JsonSchema] = field(default_factory=dict)


@dataclass
class HTTPRoute:
    """One operation of the document."""

    path: str
    method: HttpMethod
    operation_id: str | None = None
    summary: str | None = None
    description: str | None = None
    tags: list[str] = field(default_factory=list)
    parameters: list[ParameterInfo] = field(default_factory=list)
    request_body: RequestBodyInfo | None = None
    responses: dict[str, ResponseInfo] = field(default_factory=dict)
    #: The component schemas the input needs, and those the output needs (``$defs``).
    request_schemas: dict[str, JsonSchema] = field(default_factory=dict)
    response_schemas: dict[str, JsonSchema] = field(default_factory=dict)
    extensions: dict[str, Any] = field(default_factory=dict)
    openapi_version: str | None = None
    #: The tool's input schema, and where each of its arguments goes.
    flat_param_schema: JsonSchema = field(default_factory=dict)
    parameter_map: dict[str, dict[str, str]] = field(default_factory=dict)
