"""The MCP client: :class:`Client` and its handlers, hooks and errors."""

from mcpkit.client.client import DEFAULT_TIMEOUT, ERA_MEMO, Client
from mcpkit.client.elicitation import Elicitation, ElicitationHandler, apply_defaults
from mcpkit.client.errors import (
    URL_ELICITATION_REQUIRED,
    InvalidServerResponse,
    OutputSchemaError,
    TaskNotSupported,
    ToolError,
    URLElicitationRequired,
)
from mcpkit.client.notifications import ClientHooks
from mcpkit.client.options import CacheOptions, HttpOptions, ProtocolOptions, StdioOptions
from mcpkit.client.retry import Retry, RetryEvent
from mcpkit.client.sampling import USER_REJECTED, Sampling, SamplingHandler
from mcpkit.client.targets import Target, TargetError

__all__ = [
    "DEFAULT_TIMEOUT",
    "ERA_MEMO",
    "URL_ELICITATION_REQUIRED",
    "USER_REJECTED",
    "CacheOptions",
    "Client",
    "ClientHooks",
    "Elicitation",
    "ElicitationHandler",
    "HttpOptions",
    "InvalidServerResponse",
    "OutputSchemaError",
    "ProtocolOptions",
    "Retry",
    "RetryEvent",
    "Sampling",
    "SamplingHandler",
    "StdioOptions",
    "Target",
    "TargetError",
    "TaskNotSupported",
    "ToolError",
    "URLElicitationRequired",
    "apply_defaults",
]
