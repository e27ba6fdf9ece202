"""Tasks across eras: a 2025-11-25 task-augmented call served by a 2026-07-28 upstream's
tasks extension, and the reverse.

The two designs have one state machine (``working``, ``input_required``, ``completed``,
``failed``, ``cancelled``) and different wires:

- 2025-11-25: ``tools/call`` with ``params.task`` answers ``{task: Task}`` (``ttl``,
  ``pollInterval`` in milliseconds); ``tasks/get`` and ``tasks/cancel`` answer the ``Task``;
  ``tasks/result`` waits for the tool's result (or its error); ``tasks/list`` pages the
  requestor's tasks; a task's questions are live requests sent while ``tasks/result`` waits.
- the tasks extension (``io.modelcontextprotocol/tasks``): a ``tools/call`` whose request
  opts in answers a flat ``CreateTaskResult`` (``resultType: "task"``, ``ttlMs``,
  ``pollIntervalMs``); ``tasks/get`` answers the ``DetailedTask`` (the result or the error
  inlined once terminal, ``inputRequests`` while ``input_required``); ``tasks/update``
  answers the questions; ``tasks/cancel`` acknowledges; no ``tasks/result`` or ``tasks/list``.

:class:`LegacyRequestor` serves a handshake-era client's task requests with a 2026-07-28
upstream (``tasks/result`` polls ``tasks/get`` at the upstream's interval, asking the
client each of the task's questions as a live request and answering them with
``tasks/update``; ``tasks/list`` lists the tasks this client created through the proxy).
:func:`modern_task_request` serves a 2026-07-28 client's with a handshake-era upstream
(``tasks/get`` of a terminal task fetches its ``tasks/result`` to inline it). The questions
a handshake-era task asks (live requests whose ``_meta`` names the task, sent while
someone waits on ``tasks/result``: the proxy does, from the task's creation) are kept by
:class:`TaskQuestions`: ``tasks/get`` shows them as the task's ``inputRequests``,
``tasks/update`` answers them.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from mcpkit.envelope import CLIENT_CAPABILITIES_KEY
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, JSONObject
from mcpkit.proxy.capabilities import LEGACY_TASKS_CAPABILITY
from mcpkit.proxy.rounds import ask_live, legacy_result
from mcpkit.server.tasks_extension import EXTENSION_ID, require_extension
from mcpkit.tasks import RELATED_TASK

if TYPE_CHECKING:
    from mcpkit.server.session import AppSession, ServerRequestContext

__all__ = [
    "LEGACY_TASKS_CAPABILITY",
    "TASK_METHODS",
    "LegacyRequestor",
    "TaskQuestions",
    "flat_task",
    "legacy_task",
    "modern_task_request",
    "opt_in",
    "related_task",
]

#: The task requests of either design.
TASK_METHODS: Final = frozenset(
    {"tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "tasks/update"}
)
_TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
#: Bounds of the interval ``tasks/result`` polls a 2026-07-28 upstream at (seconds).
_POLL_MIN: Final = 0.05
_POLL_MAX: Final = 2.0

#: Sends a request (method, params) upstream and returns its result (not an ASGI ``Send``).
SendUpstream = Callable[[str, JSONObject], Awaitable[Any]]


def flat_task(task: Mapping[str, Any]) -> JSONObject:
    """A 2025-11-25 ``Task`` as the extension's task fields (``ttlMs``, ``pollIntervalMs``)."""
    out: JSONObject = {
        k: task[k]
        for k in ("taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt")
        if k in task
    }
    out["ttlMs"] = task.get("ttl")
    if isinstance(task.get("pollInterval"), int):
        out["pollIntervalMs"] = task["pollInterval"]
    return out


def legacy_task(task: Mapping[str, Any]) -> JSONObject:
    """The extension's task fields (a ``CreateTaskResult`` or ``DetailedTask``) as a
    2025-11-25 ``Task``."""
    out: JSONObject = {
        k: task[k]
        for k in ("taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt")
        if k in task
    }
    out["ttl"] = task.get("ttlMs")
    if isinstance(task.get("pollIntervalMs"), int):
        out["pollInterval"] = task["pollIntervalMs"]
    return out


def opt_in(params: JSONObject) -> JSONObject:
    """2026-07-28 ``params`` (with their envelope) whose client capabilities list the
    tasks extension."""
    meta = dict(params.get("_meta") or {})
    caps = dict(meta.get(CLIENT_CAPABILITIES_KEY) or {})
    caps["extensions"] = {**dict(caps.get("extensions") or {}), EXTENSION_ID: {}}
    meta[CLIENT_CAPABILITIES_KEY] = caps
    return {**params, "_meta": meta}


def related_task(params: JSONObject | None) -> str | None:
    """The task a server-to-client request's ``_meta`` relates it to, if any."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    related = meta.get(RELATED_TASK) if isinstance(meta, dict) else None
    task_id = related.get("taskId") if isinstance(related, dict) else None
    return task_id if isinstance(task_id, str) else None


class TaskQuestions:
    """The questions handshake-era tasks created for 2026-07-28 clients ask, until
    answered: by task id, each under a key of its own."""

    def __init__(self) -> None:
        self._tasks: dict[str, dict[str, tuple[JSONObject, asyncio.Future[Any]]]] = {}
        self._count = 0

    def track(self, task_id: str) -> None:
        """Keep the questions of ``task_id`` from now on."""
        self._tasks.setdefault(task_id, {})

    def knows(self, task_id: str) -> bool:
        """True for a task whose questions are kept."""
        return task_id in self._tasks

    def forget(self, task_id: str) -> None:
        """The task ended: its unanswered questions are cancelled."""
        for _, future in self._tasks.pop(task_id, {}).values():
            future.cancel()

    async def ask(self, task_id: str, method: str, params: JSONObject | None) -> JSONObject:
        """The upstream asks ``method`` for ``task_id``: wait for the client's answer."""
        self._count += 1
        key = f"proxy-task-{self._count}"
        shown = dict(params or {})
        meta = {k: v for k, v in dict(shown.get("_meta") or {}).items() if k != RELATED_TASK}
        if meta:
            shown["_meta"] = meta
        else:
            shown.pop("_meta", None)
        request: JSONObject = {"method": method, "params": shown}
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        waiting = self._tasks.setdefault(task_id, {})
        waiting[key] = (request, future)
        try:
            answer = await future
        finally:
            waiting.pop(key, None)
        return answer if isinstance(answer, dict) else {}

    def pending(self, task_id: str) -> JSONObject:
        """The unanswered questions of ``task_id``, as ``inputRequests``."""
        waiting = self._tasks.get(task_id, {})
        return {key: request for key, (request, future) in waiting.items() if not future.done()}

    def answer(self, task_id: str, responses: Any) -> None:
        """``tasks/update``'s ``inputResponses``: unknown keys are ignored."""
        if not isinstance(responses, dict):
            raise McpError(INVALID_PARAMS, "'inputResponses' must be an object")
        waiting = self._tasks.get(task_id, {})
        for key, value in responses.items():
            entry = waiting.get(key)
            if entry is not None and not entry[1].done():
                entry[1].set_result(value)


def _task_id(params: JSONObject | None) -> str:
    task_id = (params or {}).get("taskId")
    if not isinstance(task_id, str):
        raise McpError(INVALID_PARAMS, "'taskId' must be a string")
    return task_id


def _without_related(result: Any) -> Any:
    """A 2025-11-25 ``tasks/result`` answer without its related-task ``_meta`` key."""
    if not isinstance(result, dict) or not isinstance(result.get("_meta"), dict):
        return result
    meta = {k: v for k, v in result["_meta"].items() if k != RELATED_TASK}
    out = {k: v for k, v in result.items() if k != "_meta"}
    if meta:
        out["_meta"] = meta
    return out


def _as_modern(result: Any) -> Any:
    """A 2025-11-25 ``tasks/result`` answer as the 2026-07-28 ``CallToolResult`` a
    ``DetailedTask`` inlines (``resultType: "complete"``, no related-task key)."""
    out = _without_related(result)
    return {**out, "resultType": "complete"} if isinstance(out, dict) else out


class LegacyRequestor:
    """Handshake-era clients' task requests served by a 2026-07-28 upstream with the tasks
    extension (see the module docstring); remembers the tasks each client created here."""

    def __init__(self) -> None:
        self._created: weakref.WeakKeyDictionary[AppSession, list[str]] = (
            weakref.WeakKeyDictionary()
        )

    async def serve(
        self, method: str, params: JSONObject | None, rctx: ServerRequestContext, send: SendUpstream
    ) -> Any:
        """Answer ``method`` (``tools/call`` with ``params.task``, or a ``tasks/*``) for the
        client of ``rctx``; ``send(method, params)`` sends one request upstream (with the
        client's envelope, opted in to the extension) and returns its complete result."""
        body = dict(params or {})
        if method == "tools/call":
            body.pop("task", None)
            result = await send("tools/call", body)
            if isinstance(result, dict) and result.get("resultType") == "task":
                self._created.setdefault(rctx.session, []).append(str(result.get("taskId")))
                return {"task": legacy_task(result)}
            return legacy_result(result)  # the upstream ran it at once
        if method == "tasks/list":
            return await self._list(rctx, send)
        if method == "tasks/update":
            raise McpError(METHOD_NOT_FOUND, "tasks/update is not a 2025-11-25 request")
        task_id = _task_id(params)
        if method == "tasks/get":
            return legacy_task(await send("tasks/get", {"taskId": task_id}))
        if method == "tasks/cancel":
            task = await send("tasks/get", {"taskId": task_id})
            if task.get("status") in _TERMINAL:
                raise McpError(
                    INVALID_PARAMS, f"Cannot cancel task {task_id}: it is {task['status']}"
                )
            await send("tasks/cancel", {"taskId": task_id})
            return legacy_task(await send("tasks/get", {"taskId": task_id}))
        return await self._result(task_id, rctx, send)

    async def _list(self, rctx: ServerRequestContext, send: SendUpstream) -> JSONObject:
        tasks: list[JSONObject] = []
        kept: list[str] = []
        for task_id in self._created.get(rctx.session, []):
            try:
                tasks.append(legacy_task(await send("tasks/get", {"taskId": task_id})))
            except McpError as exc:
                if exc.code != INVALID_PARAMS:
                    raise
                continue  # expired upstream
            kept.append(task_id)
        self._created[rctx.session] = kept
        return {"tasks": tasks}

    async def _result(self, task_id: str, rctx: ServerRequestContext, send: SendUpstream) -> Any:
        """``tasks/result``: poll until the task is terminal, asking the client the task's
        questions on the way."""
        while True:
            task = await send("tasks/get", {"taskId": task_id})
            status = task.get("status")
            if status == "completed":
                result = dict(legacy_result(task.get("result") or {"content": []}))
                related = {RELATED_TASK: {"taskId": task_id}}
                result["_meta"] = {**dict(result.get("_meta") or {}), **related}
                return result
            if status == "failed":
                error = task.get("error") if isinstance(task.get("error"), dict) else {}
                code = error.get("code")
                raise McpError(
                    code if isinstance(code, int) else INTERNAL_ERROR,
                    str(error.get("message", "The task failed")),
                    error.get("data"),
                )
            if status == "cancelled":
                raise McpError(INVALID_PARAMS, f"Task {task_id} was cancelled")
            requests = task.get("inputRequests")
            if status == "input_required" and isinstance(requests, dict) and requests:
                keys = list(requests)
                related = {RELATED_TASK: {"taskId": task_id}}
                answers = await asyncio.gather(
                    *(ask_live(rctx, requests[k], meta=related) for k in keys)
                )
                responses = dict(zip(keys, answers, strict=True))
                await send("tasks/update", {"taskId": task_id, "inputResponses": responses})
                continue
            interval = task.get("pollIntervalMs")
            wait = interval / 1000 if isinstance(interval, int) else 0.5
            await asyncio.sleep(min(max(wait, _POLL_MIN), _POLL_MAX))


async def modern_task_request(
    method: str,
    params: JSONObject | None,
    rctx: ServerRequestContext,
    send: SendUpstream,
    *,
    questions: TaskQuestions,
    wait: Callable[[str], None],
) -> Any:
    """Answer a 2026-07-28 client's ``tools/call`` that opted in to the tasks extension
    (of a tool that runs as a task), or its ``tasks/*``, with a handshake-era upstream;
    ``send(method, params)`` sends one 2025-11-25 request upstream (its params as they are,
    no envelope); ``wait(task_id)`` starts waiting on the task's ``tasks/result`` (so the
    upstream sends its questions, kept in ``questions``)."""
    require_extension(rctx.envelope)
    if method == "tools/call":
        body = dict(params or {})
        body["task"] = {}
        created = await send("tools/call", body)
        task = created.get("task") if isinstance(created, dict) else None
        if not isinstance(task, dict):
            return created  # it ran as a plain call after all
        if isinstance(task.get("taskId"), str) and task.get("status") not in _TERMINAL:
            questions.track(task["taskId"])
            wait(task["taskId"])
        return {"resultType": "task", **flat_task(task)}
    if method in ("tasks/result", "tasks/list"):
        raise McpError(METHOD_NOT_FOUND, f"{method} is not a request of the tasks extension")
    task_id = _task_id(params)
    if method == "tasks/update":
        await send("tasks/get", {"taskId": task_id})  # -32602 for an unknown task
        questions.answer(task_id, (params or {}).get("inputResponses"))
        return {"resultType": "complete"}
    if method == "tasks/cancel":
        task = await send("tasks/get", {"taskId": task_id})
        if task.get("status") not in _TERMINAL:
            await send("tasks/cancel", {"taskId": task_id})
        questions.forget(task_id)
        return {"resultType": "complete"}
    task = await send("tasks/get", {"taskId": task_id})
    out: JSONObject = {"resultType": "complete", **flat_task(task)}
    if task.get("status") in _TERMINAL:
        questions.forget(task_id)
    elif questions.pending(task_id):
        out["status"] = "input_required"
        out["inputRequests"] = questions.pending(task_id)
    if task.get("status") == "completed":
        out["result"] = _as_modern(await send("tasks/result", {"taskId": task_id}))
    elif task.get("status") == "failed":
        try:
            result = await send("tasks/result", {"taskId": task_id})
        except McpError as exc:
            error: JSONObject = {"code": exc.code, "message": exc.message}
            if exc.data is not None:
                error["data"] = exc.data
            out["error"] = error
        else:  # a tool error: a completed task on this wire
            out["status"] = "completed"
            out["result"] = _as_modern(result)
    return out
