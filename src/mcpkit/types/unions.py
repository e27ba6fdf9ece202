"""Message unions per direction (client/server x request/notification/result).

Requests and notifications are tagged by ``method``. Results carry no tag, so the
result unions try their members in order (most specific first, plain ``Result``
last); when the request is known, prefer :data:`RESULT_TYPE_BY_METHOD`.
"""

from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, TypeAlias

from pydantic import Field

from .base import EmptyResult, Result
from .completion import CompleteRequest, CompleteResult
from .elicitation import ElicitationCompleteNotification, ElicitRequest, ElicitResult
from .jsonrpc import JSONRPCMessage
from .lifecycle import InitializedNotification, InitializeRequest, InitializeResult
from .logging import LoggingMessageNotification, SetLevelRequest
from .prompts import (
    GetPromptRequest,
    GetPromptResult,
    ListPromptsRequest,
    ListPromptsResult,
    PromptListChangedNotification,
)
from .resources import (
    ListResourcesRequest,
    ListResourcesResult,
    ListResourceTemplatesRequest,
    ListResourceTemplatesResult,
    ReadResourceRequest,
    ReadResourceResult,
    ResourceListChangedNotification,
    ResourceUpdatedNotification,
    SubscribeRequest,
    UnsubscribeRequest,
)
from .roots import ListRootsRequest, ListRootsResult, RootsListChangedNotification
from .sampling import CreateMessageRequest, CreateMessageResult
from .tasks import (
    CancelTaskRequest,
    CancelTaskResult,
    CreateTaskResult,
    GetTaskPayloadRequest,
    GetTaskPayloadResult,
    GetTaskRequest,
    GetTaskResult,
    ListTasksRequest,
    ListTasksResult,
    TaskStatusNotification,
)
from .tools import (
    CallToolRequest,
    CallToolResult,
    ListToolsRequest,
    ListToolsResult,
    ToolListChangedNotification,
)
from .utilities import CancelledNotification, PingRequest, ProgressNotification

if TYPE_CHECKING:
    from pydantic import TypeAdapter

ClientRequest: TypeAlias = Annotated[
    InitializeRequest
    | PingRequest
    | ListResourcesRequest
    | ListResourceTemplatesRequest
    | ReadResourceRequest
    | SubscribeRequest
    | UnsubscribeRequest
    | ListPromptsRequest
    | GetPromptRequest
    | ListToolsRequest
    | CallToolRequest
    | GetTaskRequest
    | GetTaskPayloadRequest
    | CancelTaskRequest
    | ListTasksRequest
    | SetLevelRequest
    | CompleteRequest,
    Field(discriminator="method"),
]
"""Any request a client may send to a server."""

ClientNotification: TypeAlias = Annotated[
    CancelledNotification
    | InitializedNotification
    | ProgressNotification
    | TaskStatusNotification
    | RootsListChangedNotification,
    Field(discriminator="method"),
]
"""Any notification a client may send to a server."""

ClientResult: TypeAlias = Annotated[
    CreateMessageResult
    | ElicitResult
    | ListRootsResult
    | CreateTaskResult
    | GetTaskResult
    | CancelTaskResult
    | ListTasksResult
    # Last: matches anything (an empty result, or a tasks/result payload).
    | Result,
    Field(union_mode="left_to_right"),
]
"""Any result a client may send back to a server (members tried in order)."""

ServerRequest: TypeAlias = Annotated[
    PingRequest
    | GetTaskRequest
    | GetTaskPayloadRequest
    | CancelTaskRequest
    | ListTasksRequest
    | CreateMessageRequest
    | ListRootsRequest
    | ElicitRequest,
    Field(discriminator="method"),
]
"""Any request a server may send to a client."""

ServerNotification: TypeAlias = Annotated[
    CancelledNotification
    | ProgressNotification
    | ResourceListChangedNotification
    | ResourceUpdatedNotification
    | PromptListChangedNotification
    | ToolListChangedNotification
    | TaskStatusNotification
    | LoggingMessageNotification
    | ElicitationCompleteNotification,
    Field(discriminator="method"),
]
"""Any notification a server may send to a client."""

ServerResult: TypeAlias = Annotated[
    InitializeResult
    | ListResourcesResult
    | ListResourceTemplatesResult
    | ReadResourceResult
    | ListPromptsResult
    | GetPromptResult
    | ListToolsResult
    | CallToolResult
    | CompleteResult
    | CreateTaskResult
    | GetTaskResult
    | CancelTaskResult
    | ListTasksResult
    # Last: matches anything (an empty result, or a tasks/result payload).
    | Result,
    Field(union_mode="left_to_right"),
]
"""Any result a server may send back to a client (members tried in order)."""


RESULT_TYPE_BY_METHOD: dict[str, type[Result]] = {
    "initialize": InitializeResult,
    "ping": EmptyResult,
    "resources/list": ListResourcesResult,
    "resources/templates/list": ListResourceTemplatesResult,
    "resources/read": ReadResourceResult,
    "resources/subscribe": EmptyResult,
    "resources/unsubscribe": EmptyResult,
    "prompts/list": ListPromptsResult,
    "prompts/get": GetPromptResult,
    "tools/list": ListToolsResult,
    "tools/call": CallToolResult,
    "logging/setLevel": EmptyResult,
    "completion/complete": CompleteResult,
    "tasks/get": GetTaskResult,
    "tasks/result": GetTaskPayloadResult,
    "tasks/cancel": CancelTaskResult,
    "tasks/list": ListTasksResult,
    "sampling/createMessage": CreateMessageResult,
    "roots/list": ListRootsResult,
    "elicitation/create": ElicitResult,
}
"""Result model for each request method (a task-augmented request gets CreateTaskResult)."""


@cache
def _adapter(name: str) -> "TypeAdapter[Any]":
    from pydantic import TypeAdapter

    return TypeAdapter(_UNIONS[name])


_UNIONS: dict[str, Any] = {
    "ClientRequest": ClientRequest,
    "ClientNotification": ClientNotification,
    "ClientResult": ClientResult,
    "ServerRequest": ServerRequest,
    "ServerNotification": ServerNotification,
    "ServerResult": ServerResult,
    "JSONRPCMessage": JSONRPCMessage,
}


def parse_client_request(data: Any) -> ClientRequest:
    """Validate a wire dict as one of the client-to-server requests."""
    result: ClientRequest = _adapter("ClientRequest").validate_python(data)
    return result


def parse_client_notification(data: Any) -> ClientNotification:
    """Validate a wire dict as one of the client-to-server notifications."""
    result: ClientNotification = _adapter("ClientNotification").validate_python(data)
    return result


def parse_client_result(data: Any) -> ClientResult:
    """Validate a wire dict as one of the results a client sends."""
    result: ClientResult = _adapter("ClientResult").validate_python(data)
    return result


def parse_server_request(data: Any) -> ServerRequest:
    """Validate a wire dict as one of the server-to-client requests."""
    result: ServerRequest = _adapter("ServerRequest").validate_python(data)
    return result


def parse_server_notification(data: Any) -> ServerNotification:
    """Validate a wire dict as one of the server-to-client notifications."""
    result: ServerNotification = _adapter("ServerNotification").validate_python(data)
    return result


def parse_server_result(data: Any) -> ServerResult:
    """Validate a wire dict as one of the results a server sends."""
    result: ServerResult = _adapter("ServerResult").validate_python(data)
    return result


def parse_jsonrpc_message(data: Any) -> JSONRPCMessage:
    """Validate a wire dict as a JSON-RPC request, notification, result or error."""
    result: JSONRPCMessage = _adapter("JSONRPCMessage").validate_python(data)
    return result
