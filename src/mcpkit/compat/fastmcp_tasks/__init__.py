"""``fastmcp_tasks`` on mcpkit: :class:`TasksExtension`, background tasks of fastmcp's
``@mcp.tool(task=...)`` tools served by mcpkit's own ``io.modelcontextprotocol/tasks``
extension (the 2026-07-28 revision: ``tasks/get``, ``tasks/update``, ``tasks/cancel``).

The tasks live in the server's task store, in process (the ``memory://`` backend). A Redis
backend (``url="redis://..."``) is refused with a clear error: serve the server with
mcpkit's own Redis scale-out instead (docs/deploy.md), whose task store is shared by every
replica.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from mcpkit.compat.fastmcp.utilities.tasks import TASKS_EXTENSION_ID

if TYPE_CHECKING:
    from mcpkit.server.configured import ConfiguredServer

__all__ = ["TasksExtension", "__version__"]

__version__ = "4.1.4"

#: How long fastmcp's tasks are kept (its Docket backend's execution ttl), milliseconds.
TASK_TTL_MS = 900_000


class TasksExtension:
    """Background tasks for ``task=True`` tools (``mcp.add_extension(TasksExtension())``).

    ``url``: ``memory://`` (the default, also when ``FASTMCP_DOCKET_URL`` is unset) keeps
    tasks in this process; any other backend is a ValueError. The Docket worker options
    (``worker_name``, ``concurrency``, ``redelivery_timeout``, ``reconnection_delay``,
    ``minimum_check_interval``) and a
    ``credential_provider`` are accepted: mcpkit runs each task in the process that
    received its call, with no separate worker.
    """

    identifier = TASKS_EXTENSION_ID

    def __init__(
        self,
        *,
        credential_provider: Any = None,
        url: str | None = None,
        name: str | None = None,
        worker_name: str | None = None,
        concurrency: int | None = None,
        redelivery_timeout: timedelta | None = None,
        reconnection_delay: timedelta | None = None,
        minimum_check_interval: timedelta | None = None,
    ) -> None:
        import os

        self.url = url or os.environ.get("FASTMCP_DOCKET_URL") or "memory://"
        self.name = name or os.environ.get("FASTMCP_DOCKET_NAME") or "fastmcp"
        if not self.url.startswith("memory://"):
            raise ValueError(
                f"TasksExtension(url={self.url!r}): mcpkit serves fastmcp's tasks in process "
                "(memory://) only; tasks shared by several replicas come with mcpkit's Redis "
                "store (docs/deploy.md)"
            )
        self.credential_provider = credential_provider
        self.worker_name = worker_name
        self.concurrency = concurrency
        self.redelivery_timeout = redelivery_timeout
        self.reconnection_delay = reconnection_delay
        self.minimum_check_interval = minimum_check_interval

    def settings(self) -> dict[str, Any]:
        """The extension's settings in ``capabilities.extensions``: none."""
        return {}

    def install(self, native: ConfiguredServer) -> None:
        """Serve the tasks extension on ``native`` (tasks kept as fastmcp keeps them)."""
        from mcpkit.compat._adapt import _UnknownAsResult
        from mcpkit.compat.fastmcp_tasks._serving import FastTaskManager, TaskToolRegistry

        native.task_manager = FastTaskManager(debug=native.debug, default_ttl=TASK_TTL_MS)
        if type(native.tools) is _UnknownAsResult:
            native.tools.__class__ = TaskToolRegistry
        native.extensions[TASKS_EXTENSION_ID] = self.settings()
