"""The dev server's side of the user's MCP server: one mcpkit ``Client`` connected to it,
opened again whenever the server restarts or another era is chosen.

The user's server runs as a subprocess (``python -m mcpkit run FILE[:app]`` over stdio), so
a restart imports every module afresh. The client declares MCP Apps, elicitation (form and
URL) and sampling; their handlers *park* the server's request (:class:`Pending`) until the
inspector page answers it through the API. Progress, logs, the server's stderr, list changes
and task states are published on the :class:`EventHub` the page follows over SSE.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import secrets
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from mcpkit.client import ClientHooks, Elicitation, ProtocolOptions, StdioOptions
from mcpkit.client.apps import APPS_EXTENSION

if TYPE_CHECKING:
    from mcpkit import Client
    from mcpkit.client.task_requestor import TaskHandle
    from mcpkit.session import RequestContext

__all__ = ["ERAS", "EventHub", "Pending", "Upstream", "wire"]

#: The eras the inspector offers: the client's own choice, or one pinned.
ERAS = ("auto", "legacy", "2026-07-28")
DevEra = Literal["auto", "legacy", "2026-07-28"]
_STDERR_TAIL = 40


def wire(model: Any) -> Any:
    """A protocol model (or a plain value) in its JSON wire form."""
    dump = getattr(model, "model_dump", None)
    if dump is None:
        return model
    return dump(by_alias=True, exclude_none=True, mode="json")


class EventHub:
    """Fan-out of the dev server's events to every page listening (bounded queues: a page
    that stops reading loses events, never the server's memory)."""

    def __init__(self, queue_size: int = 1000) -> None:
        self._queues: set[asyncio.Queue[dict[str, Any] | None]] = set()
        self._ids = itertools.count(1)
        self._size = queue_size

    def publish(self, event_type: str, /, **data: Any) -> None:
        """Send ``{"type": event_type, **data}`` (with a sequence number ``seq`` and the
        ``time``) to every listener."""
        event = {**data, "seq": next(self._ids), "type": event_type, "time": time.time()}
        for queue in list(self._queues):
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(event)

    @contextlib.asynccontextmanager
    async def listen(self) -> AsyncIterator[asyncio.Queue[dict[str, Any] | None]]:
        """A queue of the events from now on (None: the hub closed) while in the block."""
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(self._size)
        self._queues.add(queue)
        try:
            yield queue
        finally:
            self._queues.discard(queue)

    @property
    def listeners(self) -> int:
        """How many pages listen."""
        return len(self._queues)

    def close(self) -> None:
        """End every listener's stream."""
        for queue in list(self._queues):
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(None)


@dataclass
class Pending:
    """A request of the user's server waiting for the page's answer."""

    id: str
    kind: Literal["elicitation", "sampling"]
    params: dict[str, Any]
    future: asyncio.Future[dict[str, Any]] = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        """What the page sees of it."""
        return {"id": self.id, "kind": self.kind, "params": self.params}


class Upstream:
    """The connection to the user's server, and what the page waits on."""

    def __init__(self, spec: str, *, era: DevEra = "auto", hub: EventHub | None = None) -> None:
        self.spec = spec
        self.era: DevEra = era
        self.hub = hub or EventHub()
        self.client: Client | None = None
        self.generation = 0
        self.error: str | None = None
        self.pending: dict[str, Pending] = {}
        self.tasks: dict[str, TaskHandle] = {}
        self.stderr: list[str] = []
        self._lock = asyncio.Lock()
        self._watchers: set[asyncio.Task[None]] = set()
        # Calls and tasks running in the user's server, and when the last one ended.
        self._running = 0
        self._idle_since = 0.0

    #: Seconds after a call ends during which a data file's change is still the call's.
    SETTLE = 2.0

    def busy(self) -> bool:
        """True while a call or task runs in the user's server, and for :attr:`SETTLE`
        seconds after the last one ended: a file it writes then is its own doing."""
        if self._running or self._watchers:
            return True
        return time.monotonic() - self._idle_since < self.SETTLE

    @contextlib.contextmanager
    def _call(self) -> Iterator[None]:
        self._running += 1
        try:
            yield
        finally:
            self._running -= 1
            self._idle_since = time.monotonic()

    # connecting

    def argv(self) -> list[str]:
        """The command line of the user's server (over stdio, whatever the project file or
        ``MCPKIT_TRANSPORT`` say)."""
        return [sys.executable, "-m", "mcpkit", "run", self.spec, "--transport", "stdio"]

    def _make_client(self) -> Client:
        from mcpkit import Client

        return Client(
            self.argv(),
            era=self.era,
            protocol=ProtocolOptions(extensions=APPS_EXTENSION),
            hooks=ClientHooks(
                on_list_changed=self._on_list_changed, on_task_status=self._on_task_status
            ),
            connection=StdioOptions(on_stderr=self._on_stderr),
            elicitation_handler=Elicitation(self._on_elicitation, modes=("form", "url")),
            sampling_handler=self._on_sampling,
            on_log=self._on_log,
            client_info={"name": "mcpkit-dev-inspector", "version": "1"},
            timeout=None,
        )

    async def connect(self, era: DevEra | None = None, reason: str = "start") -> None:
        """(Re)start the user's server and connect to it (in ``era`` when given); a failure
        is kept in :attr:`error` for the page, not raised."""
        async with self._lock:
            if era is not None:
                self.era = era
            await self._disconnect()
            self.generation += 1
            self.stderr = []
            client = self._make_client()
            try:
                await client.connect()
            except Exception as exc:  # the user's code is broken: show why, keep serving
                with contextlib.suppress(Exception):
                    await client.close()
                self.error = f"{type(exc).__name__}: {exc}"
                self.client = None
            else:
                self.client = client
                self.error = None
            self.hub.publish("reload", generation=self.generation, reason=reason, error=self.error)

    async def _disconnect(self) -> None:
        for pending in list(self.pending.values()):
            if not pending.future.done():
                pending.future.cancel()
        self.pending.clear()
        for task in list(self._watchers):
            task.cancel()
        self.tasks.clear()
        client, self.client = self.client, None
        if client is not None:
            with contextlib.suppress(Exception):
                await client.close()

    async def close(self) -> None:
        """Stop the user's server."""
        async with self._lock:
            await self._disconnect()

    async def lost(self, exc: BaseException) -> str:
        """The server process went away (``exc``, from a call): drop the connection, keep
        why for the page and publish an ``exited`` event; returns the message."""
        from mcpkit.errors import ProcessExited

        if isinstance(exc, ProcessExited):
            message = f"the server process exited with code {exc.returncode}"
        else:
            message = f"the connection to the server closed: {exc}"
        async with self._lock:
            if self.client is not None:
                await self._disconnect()
                self.error = message
                self.hub.publish("exited", generation=self.generation, error=message)
        return self.error or message

    def require(self) -> Client:
        """The connected client (a RuntimeError naming why there is none)."""
        if self.client is None:
            raise RuntimeError(self.error or "not connected to the server")
        return self.client

    # what the page shows

    async def state(self) -> dict[str, Any]:
        """Server info, capabilities, era and every list, as JSON."""
        out: dict[str, Any] = {
            "spec": self.spec,
            "era": self.era,
            "eras": list(ERAS),
            "generation": self.generation,
            "error": self.error,
            "stderr": self.stderr[-_STDERR_TAIL:],
            "pending": [p.to_json() for p in self.pending.values()],
            "connected": self.client is not None,
        }
        client = self.client
        if client is None:
            return out
        caps = client.server_capabilities
        out.update(
            server=wire(client.server_info),
            capabilities=wire(caps),
            protocolVersion=client.protocol_version,
            modern=client.modern,
            instructions=client.instructions,
            tools=[],
            resources=[],
            templates=[],
            prompts=[],
        )
        if caps.tools is not None:
            out["tools"] = [wire(t) for t in await client.list_tools(cache="refresh")]
        if caps.resources is not None:
            out["resources"] = [wire(r) for r in await client.list_resources(cache="refresh")]
            out["templates"] = [
                wire(t) for t in await client.list_resource_templates(cache="refresh")
            ]
        if caps.prompts is not None:
            out["prompts"] = [wire(p) for p in await client.list_prompts(cache="refresh")]
        return out

    # calls

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None, call_id: str | None = None
    ) -> dict[str, Any]:
        """tools/call; progress is published with ``call_id``."""
        client = self.require()

        def progress(value: float, total: float | None, message: str | None) -> None:
            self.hub.publish(
                "progress", callId=call_id, progress=value, total=total, message=message
            )

        with self._call():
            result = await client.call_tool(name, arguments, on_progress=progress)
        return dict(wire(result))

    async def start_task(
        self, name: str, arguments: dict[str, Any] | None, call_id: str | None = None
    ) -> dict[str, Any]:
        """Run the tool as a task; its status and result are published as it goes."""
        client = self.require()

        def progress(value: float, total: float | None, message: str | None) -> None:
            self.hub.publish(
                "progress", callId=call_id, progress=value, total=total, message=message
            )

        handle = await client.start_tool_task(name, arguments, on_progress=progress)
        task_id = handle.task_id or f"inline-{secrets.token_hex(4)}"
        self.tasks[task_id] = handle
        watcher = asyncio.create_task(self._follow(task_id, handle, call_id))
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)
        return {"taskId": task_id, "tool": name, "status": handle.status}

    async def _follow(self, task_id: str, handle: TaskHandle, call_id: str | None) -> None:
        self.hub.publish("task", taskId=task_id, status=handle.status, callId=call_id)
        try:
            with self._call():
                result = await handle.result()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.hub.publish(
                "task", taskId=task_id, status=handle.status, error=str(exc), callId=call_id
            )
        else:
            self.hub.publish(
                "task", taskId=task_id, status=handle.status, result=wire(result), callId=call_id
            )

    def task_list(self) -> list[dict[str, Any]]:
        """The tasks started from the page, with their last status."""
        return [
            {"taskId": tid, "tool": h.tool, "status": h.status, "message": h.status_message}
            for tid, h in self.tasks.items()
        ]

    async def cancel_task(self, task_id: str) -> dict[str, Any]:
        """Cancel a task started from the page."""
        handle = self.tasks.get(task_id)
        if handle is None:
            raise KeyError(task_id)
        await handle.cancel()
        self.hub.publish("task", taskId=task_id, status=handle.status)
        return {"taskId": task_id, "status": handle.status}

    # the server's requests, parked for the page

    async def _park(self, kind: Literal["elicitation", "sampling"], params: Any) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        pending = Pending(secrets.token_hex(6), kind, dict(wire(params)), loop.create_future())
        self.pending[pending.id] = pending
        self.hub.publish("request", request=pending.to_json())
        try:
            return await pending.future
        finally:
            self.pending.pop(pending.id, None)
            self.hub.publish("answered", id=pending.id)

    async def _on_elicitation(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        return await self._park("elicitation", params)

    async def _on_sampling(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        return await self._park("sampling", params)

    def answer(self, request_id: str, result: dict[str, Any]) -> None:
        """Answer a parked request (KeyError when there is no such request)."""
        pending = self.pending[request_id]
        if not pending.future.done():
            pending.future.set_result(result)

    # hooks

    def _on_log(self, params: Any) -> None:
        self.hub.publish("log", **dict(wire(params)))

    def _on_list_changed(self, kind: str) -> None:
        self.hub.publish("list_changed", kind=kind)

    def _on_task_status(self, task: Any) -> None:
        data = dict(wire(task))
        handle = self.tasks.get(str(data.get("taskId")))
        if handle is not None and isinstance(data.get("status"), str):
            handle.status = data["status"]
        self.hub.publish("task", **data)

    def _on_stderr(self, line: str) -> None:
        self.stderr.append(line.rstrip("\n"))
        del self.stderr[:-_STDERR_TAIL]
        self.hub.publish("stderr", line=line.rstrip("\n"))
