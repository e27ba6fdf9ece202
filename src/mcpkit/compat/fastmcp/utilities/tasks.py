"""``fastmcp.utilities.tasks`` on mcpkit: :class:`TaskConfig`, how a tool runs as a
background task of the ``io.modelcontextprotocol/tasks`` extension."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

__all__ = [
    "DEFAULT_POLL_INTERVAL",
    "DEFAULT_POLL_INTERVAL_MS",
    "DEFAULT_TTL_MS",
    "TASKS_EXTENSION_ID",
    "TaskConfig",
    "TaskMeta",
    "TaskMode",
]

TaskMode = Literal["forbidden", "optional", "required"]

#: The tasks extension's identifier (the 2026-07-28 revision).
TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks"
DEFAULT_POLL_INTERVAL = timedelta(seconds=5)
DEFAULT_POLL_INTERVAL_MS = int(DEFAULT_POLL_INTERVAL.total_seconds() * 1000)
DEFAULT_TTL_MS = 60_000


@dataclass
class TaskMeta:
    """A task-augmented request's ``ttl`` (milliseconds) and routing key."""

    ttl: int | None = None
    fn_key: str | None = None


@dataclass
class TaskConfig:
    """How a tool runs as a task: ``forbidden`` (never), ``optional`` (when the request
    opted in to the tasks extension), ``required`` (always; -32021 without the opt-in);
    ``poll_interval`` is the ``pollIntervalMs`` its tasks suggest."""

    mode: TaskMode = "optional"
    poll_interval: timedelta = DEFAULT_POLL_INTERVAL

    @classmethod
    def from_bool(cls, value: bool) -> TaskConfig:
        """``task=True`` is ``optional``, ``task=False`` ``forbidden``."""
        return cls(mode="optional" if value else "forbidden")

    def supports_tasks(self) -> bool:
        """True unless the mode is ``forbidden``."""
        return self.mode != "forbidden"

    def validate_function(self, fn: Callable[..., Any], name: str) -> None:
        """ValueError when a task-enabled tool is not an async function."""
        if not self.supports_tasks():
            return
        target: Any = fn
        if not inspect.isroutine(fn) and callable(fn):
            target = type(fn).__call__
        if not inspect.iscoroutinefunction(inspect.unwrap(target)):
            raise ValueError(
                f"'{name}' uses a sync function but has task execution enabled. "
                "Background tasks require async functions."
            )

    @property
    def poll_interval_ms(self) -> int:
        """:attr:`poll_interval` in milliseconds."""
        return int(self.poll_interval.total_seconds() * 1000)


def task_config(task: bool | TaskConfig | None) -> TaskConfig | None:
    """The :class:`TaskConfig` of a ``task=`` option (None: not given)."""
    if task is None:
        return None
    if isinstance(task, bool):
        return TaskConfig.from_bool(task)
    if isinstance(task, TaskConfig):
        return task
    raise TypeError(f"task must be a bool or a TaskConfig, not {type(task).__name__}")
