"""``mcp.types`` on mcpkit: the protocol models a server builds and returns.

These are mcpkit's own models (:mod:`mcpkit.types`; snake_case attributes, camelCase on the
wire), under the official SDK's names, plus its error-code constants. The models with a
``uri`` also take it as a ``pydantic.AnyUrl``, as the official SDK's do (it is kept as text).
"""

from __future__ import annotations

from typing import Any, get_args

from pydantic import field_validator

import mcpkit.types as _t
import mcpkit.types.modern as _modern
from mcpkit.envelope import MISSING_REQUIRED_CLIENT_CAPABILITY
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


def _uri_as_text(cls: Any, value: Any) -> Any:
    return value if value is None or isinstance(value, str) else str(value)


def _either(cls: Any, **namespace: Any) -> Any:
    """A subclass of ``cls`` of the same name, with ``namespace`` added, that the native
    class's instances are instances of too (``isinstance`` checks hold both ways)."""

    class _Either(type(cls)):  # type: ignore[misc]
        def __instancecheck__(self, obj: Any) -> bool:
            return isinstance(obj, cls)

        def __subclasscheck__(self, sub: Any) -> bool:
            return issubclass(sub, cls)

    namespace = {
        "__module__": __name__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
        **namespace,
    }
    return _Either(cls.__name__, (cls,), namespace)


def _taking_urls(cls: Any) -> Any:
    """``cls`` whose ``uri`` may be given as a URL object."""
    return _either(
        cls, _uri_as_text=field_validator("uri", mode="before")(classmethod(_uri_as_text))
    )


for _name in _native:
    _cls = getattr(_t, _name)
    if isinstance(_cls, type) and "uri" in getattr(_cls, "model_fields", {}):
        globals()[_name] = _taking_urls(_cls)

# A tool's schemas are plain dicts, as the official SDK has them (a server reads them back,
# e.g. to validate arguments with jsonschema).
globals()["Tool"] = _either(
    _t.Tool,
    __annotations__={"input_schema": dict[str, Any], "output_schema": dict[str, Any] | None},
    output_schema=None,
)
ErrorData = Error
# The union itself, as the SDK's (``isinstance(message, ServerNotification)`` holds).
globals()["ServerNotification"] = get_args(_t.ServerNotification)[0]
ElicitRequestedSchema = ElicitationRequestedSchema
CreateMessageResultWithTools = CreateMessageResult
URL_ELICITATION_REQUIRED = -32042
#: A tool's ``execution.taskSupport`` values (1.x's names).
TASK_FORBIDDEN = "forbidden"
TASK_OPTIONAL = "optional"
TASK_REQUIRED = "required"


def _bodiless(cls: Any) -> Any:
    """``cls`` (a request model) without a required ``id``: the request as an input request
    of an ``InputRequiredResult`` carries it (``method`` and ``params`` only)."""
    return _either(cls, __annotations__={"id": "int | str | None"}, id=None)


for _name in ("ElicitRequest", "CreateMessageRequest", "ListRootsRequest"):
    globals()[_name] = _bodiless(getattr(_t, _name))


def _input_requests(cls: Any, value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    out = {}
    for key, request in value.items():
        if isinstance(request, _t.McpModel):
            request = request.model_dump(by_alias=True, exclude_none=True)
            request.pop("jsonrpc", None)
        out[key] = request
    return out


DiscoverResult = _modern.DiscoverResult
globals()["InputRequiredResult"] = _either(
    _modern.InputRequiredResult,
    _input_requests=field_validator("input_requests", mode="before")(classmethod(_input_requests)),
)


# 2.x's capabilities name the extensions each side declared (SEP-2133).
for _name in ("ClientCapabilities", "ServerCapabilities"):
    globals()[_name] = _either(
        getattr(_t, _name),
        __annotations__={"extensions": "dict[str, dict[str, Any]] | None"},
        extensions=None,
    )

from mcpkit.compat.mcp.types._generic import Request  # noqa: E402

#: 2.x's name for what an ``InputRequiredResult`` may ask of the client.
InputRequest = _t.CreateMessageRequest | _t.ListRootsRequest | _t.ElicitRequest


class LoggingCapability(_t.McpModel):
    """The ``logging`` capability (its settings, usually none); a server passes it where
    the capabilities take an object (``ServerCapabilities(logging=LoggingCapability())``)."""


class CompletionsCapability(_t.McpModel):
    """The ``completions`` capability (its settings, usually none), as
    :class:`LoggingCapability`."""


# The server's capabilities hold these as their models, as 2.x's do (a dict is taken too).
globals()["ServerCapabilities"] = _either(
    globals()["ServerCapabilities"],  # made above
    __annotations__={
        "logging": "LoggingCapability | None",
        "completions": "CompletionsCapability | None",
    },
    logging=None,
    completions=None,
)


#: What answers each of an ``InputRequiredResult``'s requests (type aliases).
InputResponse = Any
InputResponses = dict[str, Any]

from mcpkit.compat.mcp.types.subscriptions import (  # noqa: E402
    SubscriptionFilter,
    SubscriptionsListenRequestParams,
)
from mcpkit.envelope import (  # noqa: E402
    CLIENT_CAPABILITIES_KEY as CLIENT_CAPABILITIES_META_KEY,
)
from mcpkit.envelope import CLIENT_INFO_KEY as CLIENT_INFO_META_KEY  # noqa: E402
from mcpkit.envelope import LOG_LEVEL_KEY as LOG_LEVEL_META_KEY  # noqa: E402
from mcpkit.envelope import PROTOCOL_VERSION_KEY as PROTOCOL_VERSION_META_KEY  # noqa: E402
from mcpkit.envelope import SERVER_INFO_KEY as SERVER_INFO_META_KEY  # noqa: E402

__all__ = [
    *_native,
    "SubscriptionFilter",
    "SubscriptionsListenRequestParams",
    "CLIENT_CAPABILITIES_META_KEY",
    "CLIENT_INFO_META_KEY",
    "LOG_LEVEL_META_KEY",
    "PROTOCOL_VERSION_META_KEY",
    "SERVER_INFO_META_KEY",
    "CompletionsCapability",
    "CreateMessageResultWithTools",
    "DiscoverResult",
    "ElicitRequestedSchema",
    "ErrorData",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "InputRequest",
    "InputRequiredResult",  # noqa: F405  (set through globals() above)
    "InputResponse",
    "InputResponses",
    "LoggingCapability",
    "METHOD_NOT_FOUND",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "PARSE_ERROR",
    "Request",
    "URL_ELICITATION_REQUIRED",
    "TASK_FORBIDDEN",
    "TASK_OPTIONAL",
    "TASK_REQUIRED",
]
