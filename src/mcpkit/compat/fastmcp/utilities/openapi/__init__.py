"""``fastmcp.utilities.openapi`` on mcpkit: an OpenAPI 3.x document read as fastmcp reads
it, one :class:`HTTPRoute` per operation (its parameters, request body, responses, the flat
input schema of its tool and the map from argument to request part)."""

from __future__ import annotations

from mcpkit.compat.fastmcp.utilities.openapi.models import (
    HttpMethod,
    HTTPRoute,
    JsonSchema,
    ParameterInfo,
    ParameterLocation,
    RequestBodyInfo,
    ResponseInfo,
)
from mcpkit.compat.fastmcp.utilities.openapi.parser import parse_openapi_to_http_routes
from mcpkit.compat.fastmcp.utilities.openapi.schemas import (
    extract_output_schema_from_responses,
)

__all__ = [
    "HTTPRoute",
    "HttpMethod",
    "JsonSchema",
    "ParameterInfo",
    "ParameterLocation",
    "RequestBodyInfo",
    "ResponseInfo",
    "extract_output_schema_from_responses",
    "parse_openapi_to_http_routes",
]
