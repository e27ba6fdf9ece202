"""Tasks: durable, pollable execution of task-augmented requests (tasks/*)."""

from typing import ClassVar, Literal, TypeAlias

from .base import (
    McpModel,
    NotificationBase,
    NotificationParams,
    NullPreservingModel,
    PaginatedRequest,
    PaginatedResult,
    RequestBase,
    RequestParams,
    Result,
)

TaskStatus: TypeAlias = Literal["working", "input_required", "completed", "failed", "cancelled"]
"""The lifecycle state of a task."""

RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task"
"""`_meta` key under which :class:`RelatedTaskMetadata` is attached to a message."""


class TaskMetadata(McpModel):
    """Asks for task-augmented execution; goes in the ``task`` field of request params."""

    ttl: int | None = None


class RelatedTaskMetadata(McpModel):
    """Associates a message with a task (stored in `_meta` under the related-task key)."""

    task_id: str


class Task(NullPreservingModel):
    """State of a task: id, status, timestamps, retention (``ttl``, null = unlimited)."""

    _wire_nullable: ClassVar[tuple[str, ...]] = ("ttl",)

    task_id: str
    status: TaskStatus
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl: int | None
    poll_interval: int | None = None


class TaskAugmentedRequestParams(RequestParams):
    """Common params of requests that may be run as a task (optional ``task`` field)."""

    task: TaskMetadata | None = None


class CreateTaskResult(Result):
    """Immediate answer to a task-augmented request: the newly created task."""

    task: Task


class TaskIdParams(RequestParams):
    """Params naming a single task (tasks/get, tasks/result, tasks/cancel)."""

    task_id: str


class GetTaskRequest(RequestBase):
    """Asks for the current state of a task."""

    method: Literal["tasks/get"] = "tasks/get"
    params: TaskIdParams


class GetTaskResult(Result, Task):
    """Answer to tasks/get: the task's current state."""


class GetTaskPayloadRequest(RequestBase):
    """Asks for the result of a completed task."""

    method: Literal["tasks/result"] = "tasks/result"
    params: TaskIdParams


class GetTaskPayloadResult(Result):
    """Answer to tasks/result: shaped like the original request's result (kept as extras)."""


class CancelTaskRequest(RequestBase):
    """Asks the receiver to cancel a task."""

    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskIdParams


class CancelTaskResult(Result, Task):
    """Answer to tasks/cancel: the task's state after cancellation."""


class ListTasksRequest(PaginatedRequest):
    """Asks for a (paginated) list of tasks."""

    method: Literal["tasks/list"] = "tasks/list"


class ListTasksResult(PaginatedResult):
    """Answer to tasks/list."""

    tasks: list[Task]


class TaskStatusNotificationParams(NotificationParams, Task):
    """Params of notifications/tasks/status: the task's new state."""


class TaskStatusNotification(NotificationBase):
    """Optional notice from receiver to requestor that a task's status changed."""

    method: Literal["notifications/tasks/status"] = "notifications/tasks/status"
    params: TaskStatusNotificationParams
