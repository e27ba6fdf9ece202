"""``mcp.types`` on mcpkit: the protocol models a server builds and returns.

These are mcpkit's own models (:mod:`mcpkit.types`; snake_case attributes, camelCase on the
wire), under the official SDK's names, plus its error-code constants.
"""

from __future__ import annotations

from mcpkit.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
)
from mcpkit.types import *  # noqa: F403
from mcpkit.types import CreateMessageResult, ElicitationRequestedSchema, Error
from mcpkit.types import __all__ as _native

ErrorData = Error
ElicitRequestedSchema = ElicitationRequestedSchema
CreateMessageResultWithTools = CreateMessageResult
URL_ELICITATION_REQUIRED = -32042

__all__ = [
    *_native,
    "CreateMessageResultWithTools",
    "ElicitRequestedSchema",
    "ErrorData",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "URL_ELICITATION_REQUIRED",
]
