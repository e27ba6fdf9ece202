"""The tasks extension (``io.modelcontextprotocol/tasks``, 2026-07-28) on the server.

On the 2026-07-28 wire tasks are an extension a client opts in to per request, by listing
``io.modelcontextprotocol/tasks`` under ``extensions`` in the request's
``_meta["io.modelcontextprotocol/clientCapabilities"]``. The same tools, the same
:class:`~mcpkit.server.tasks.TaskManager` and the same task store serve both designs; what
differs is the wire:

- ``tools/call`` of a tool registered with ``task_support="optional"|"required"`` from a
  request that opted in answers a flat ``CreateTaskResult`` (``resultType: "task"``,
  ``taskId``, ``status``, ``createdAt``, ``lastUpdatedAt``, ``ttlMs``, ``pollIntervalMs``):
  the server decides, the request carries no ``task`` field (a legacy one is ignored).
  Without the opt-in an ``optional`` tool runs synchronously and a ``required`` one is
  refused with -32021, ``data.requiredCapabilities.extensions`` naming the extension.
- ``tasks/get`` answers the ``DetailedTask``: the task's fields plus ``result`` (the
  tool's result, inlined, once ``completed``; a tool error is a completed task whose result
  has ``isError``), ``error`` (``{code, message, data?}`` once ``failed``) or
  ``inputRequests`` (while ``input_required``).
- A tool that asks for input while it runs as a task (``ctx.elicit``, ``ctx.sample``,
  ``ctx.list_roots``) parks the task in ``input_required`` with those requests under
  server-minted keys (or the ``key=`` given); ``tasks/update {taskId, inputResponses}``
  answers some or all of them (each answer checked like an MRTR answer, -32602 when
  invalid; unknown keys ignored) and the tool goes on once its own question is answered.
  ``tasks/update`` and ``tasks/cancel`` answer a bare ``{resultType: "complete"}``;
  cancelling a finished task is acknowledged the same way.
- ``tasks/get``/``tasks/update``/``tasks/cancel`` without the opt-in: -32021; an unknown
  (or expired, or someone else's) ``taskId``: -32602; ``tasks/result`` and ``tasks/list``
  do not exist on this wire: -32601.

**Questions before the task.** A tool registered with ``task_start="explicit"`` runs as an
ordinary call first, so its questions are MRTR rounds (``InputRequiredResult``), until it
calls ``await ctx.start_task()``: that attempt answers the ``CreateTaskResult`` and the
tool runs again, from the top, as the task, its MRTR answers replayed (the MRTR rule: the
questions before ``start_task`` are asked in the same order every time).

**Owners.** A task created by a modern request belongs to the authenticated principal
whenever the request's token was checked, wherever ``auth`` was attached (or to what
``TaskManager(owner=...)`` says); an unauthenticated modern request has no owner: the task
id, 128 random bits, is the capability to reach it (:mod:`mcpkit.owner`).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from mcpkit.envelope import Envelope, missing_capability_error, missing_client_capabilities
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, JSONObject, RequestId
from mcpkit.owner import allowed, principal
from mcpkit.server.mrtr import INPUT_METHODS, InputKind, current_round, required_capability
from mcpkit.server.mrtr import validate_answer as _validate_answer
from mcpkit.session import RequestContext
from mcpkit.tasks import TaskInfo, TaskReceiver
from mcpkit.tasks.related import EXTENSION_ID

if TYPE_CHECKING:
    from mcpkit.server.session import ServerRequestContext

__all__ = [
    "EXTENSION_ID",
    "REQUIRED_CAPABILITIES",
    "ModernTaskContext",
    "StartTask",
    "call_tool",
    "detailed_task",
    "opted_in",
    "require_extension",
    "start_task",
]

logger = logging.getLogger(__name__)

#: What a client must declare to get (and reach) tasks on the modern wire.
REQUIRED_CAPABILITIES: Final[Mapping[str, Any]] = {"extensions": {EXTENSION_ID: {}}}
#: Loop turns an input request waits for sibling questions before it is published.
_SETTLE_STEPS: Final = 3
#: Set while a ``task_start="explicit"`` tool runs before its task exists.
_BEFORE_TASK: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "mcpkit_before_task", default=False
)


def opted_in(envelope: Envelope | None) -> bool:
    """True when the request's client capabilities list the tasks extension."""
    if envelope is None:
        return False
    extensions = envelope.client_capabilities.get("extensions")
    return isinstance(extensions, Mapping) and isinstance(extensions.get(EXTENSION_ID), Mapping)


def require_extension(envelope: Envelope | None) -> None:
    """-32021 (``data.requiredCapabilities.extensions[...]``) unless the request opted in."""
    if not opted_in(envelope):
        raise missing_capability_error(REQUIRED_CAPABILITIES)


class StartTask(BaseException):
    """Raised by ``ctx.start_task()`` in a call that runs before its task exists; the tool
    call then answers a ``CreateTaskResult``. A BaseException, so the tool's own
    ``except Exception`` does not swallow it."""


def _missing(caps: Mapping[str, Any], kind: str, params: Mapping[str, Any]) -> dict[str, Any]:
    need = required_capability(kind, params)
    declared = caps.get("elicitation")
    empty = isinstance(declared, Mapping) and not declared
    if kind == "elicitation" and empty and params.get("mode", "form") == "form":
        return {}  # an empty elicitation capability declares form mode
    return missing_client_capabilities(caps, need)


class ModernTaskContext(RequestContext):
    """What a tool running as a task of the tasks extension talks back through.

    Its questions (:meth:`ask_input`) become the task's ``inputRequests``; nothing is sent
    to the client (the request that created the task has been answered): progress and
    notifications are dropped.
    """

    __slots__ = ("_counter", "_waiting", "capabilities", "manager", "started", "tid")

    def __init__(
        self, rctx: RequestContext, task_id: str, manager: TaskReceiver, *, started: bool
    ) -> None:
        super().__init__(rctx.session, rctx.request_id, rctx.method, rctx.params)
        self.envelope = rctx.envelope
        self.task_id = task_id
        self.tid = task_id
        self.manager = manager
        #: The client capabilities of the request that created the task.
        self.capabilities: Mapping[str, Any] = (
            rctx.envelope.client_capabilities if rctx.envelope is not None else {}
        )
        #: False while a ``task_start="explicit"`` tool replays its MRTR phase.
        self.started = started
        self._waiting: dict[str, tuple[str, JSONObject, asyncio.Future[JSONObject]]] = {}
        self._counter = 0

    @property
    def related_request_id(self) -> RequestId | None:
        """None: the creating request has been answered; nothing travels on its stream."""
        return None

    async def notify(self, method: str, params: JSONObject | None = None) -> None:
        """Dropped: a task of the modern wire has no stream to the client."""

    async def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Dropped (see :meth:`notify`)."""

    async def request(self, method: str, params: JSONObject | None = None, **kwargs: Any) -> Any:
        """A server never sends requests on the modern wire: a task asks through
        :meth:`ask_input`."""
        raise McpError(
            INTERNAL_ERROR, f"A task on the 2026-07-28 wire cannot send {method!r} to the client"
        )

    def open_requests(self) -> JSONObject:
        """The task's unanswered input requests, by key."""
        return {key: request for key, (_, request, _) in self._waiting.items()}

    async def ask_input(self, kind: InputKind, params: JSONObject, key: str | None) -> JSONObject:
        """The client's answer to an input request of this task: the task is
        ``input_required`` (with every open request) until ``tasks/update`` answers it.
        -32021 (failing the task) when the creating request's capabilities lack ``kind``."""
        if not self.started:
            rnd = current_round()
            if rnd is not None:  # replaying the questions answered before the task
                return await rnd.ask(kind, params, key=key)
        if missing := _missing(self.capabilities, kind, params):
            raise missing_capability_error(missing)
        self._counter += 1
        name = key if key is not None else f"{kind}-{self._counter}"
        if name in self._waiting:
            raise ValueError(f"input request key {name!r} is already open")
        future: asyncio.Future[JSONObject] = asyncio.get_running_loop().create_future()
        self._waiting[name] = (
            kind,
            {"method": INPUT_METHODS[kind], "params": dict(params)},
            future,
        )
        try:
            for _ in range(_SETTLE_STEPS):  # let sibling questions (gather) join this one
                await asyncio.sleep(0)
            if not future.done():
                await self.manager.store.update(
                    self.tid, "input_required", input_requests=self.open_requests()
                )
            return await self._answered(future)
        finally:
            self._waiting.pop(name, None)

    async def _answered(self, future: asyncio.Future[JSONObject]) -> JSONObject:
        """The answer: set by ``tasks/update`` in this process or, with a shared store,
        posted by one on another replica (looked for every ``input_poll_interval``)."""
        store = self.manager.store
        interval = store.input_poll_interval
        if interval is None:
            return await future
        while not future.done():
            await asyncio.wait({future}, timeout=interval)
            if future.done():
                break
            for responses in await store.take_input(self.tid):
                try:
                    await self.answer(responses)
                except McpError as exc:  # checked where it was posted: not expected
                    logger.warning("Ignoring answers posted for task %s: %s", self.tid, exc)
        return future.result()

    async def answer(self, responses: Mapping[str, Any]) -> None:
        """Deliver ``tasks/update``'s ``inputResponses``: all checked first (-32602 for an
        invalid one, nothing delivered), then the store shows what is still open before
        the waiting questions resume. Keys not open are ignored."""
        delivered: list[tuple[asyncio.Future[JSONObject], JSONObject]] = []
        for name, response in responses.items():
            entry = self._waiting.get(name)
            if entry is None or entry[2].done():
                continue
            kind, _, future = entry
            delivered.append((future, _validate_answer(kind, name, response)))
        if not delivered:
            return
        for name in [n for n in responses if n in self._waiting]:
            del self._waiting[name]
        store = self.manager.store
        if self._waiting:
            await store.update(self.tid, "input_required", input_requests=self.open_requests())
        else:
            await store.update(self.tid, "working")
        for future, answer in delivered:
            if not future.done():
                future.set_result(answer)


async def start_task(rctx: RequestContext) -> None:
    """What ``ctx.start_task()`` does: before the task exists (a ``task_start="explicit"``
    tool on the modern wire) end this attempt with a ``CreateTaskResult``; in the task,
    stop replaying MRTR answers (later questions park the task). Elsewhere (a 2025 task,
    a plain call) nothing."""
    if isinstance(rctx, ModernTaskContext):
        rctx.started = True
    elif _BEFORE_TASK.get():
        raise StartTask


def modern_owner(manager: TaskReceiver, rctx: RequestContext) -> str | None:
    """Who owns a task a modern request creates or reaches (see the module docstring)."""
    if manager.custom_owner:
        return manager.owner_of(rctx.session)
    return principal()


def create_task_result(info: TaskInfo) -> JSONObject:
    """The flat ``CreateTaskResult`` of the tasks extension."""
    return {"resultType": "task", **info.to_modern_wire()}


async def call_tool(
    rctx: ServerRequestContext,
    task_support: str | None,
    task_start: str,
    run: Callable[..., Awaitable[JSONObject]],
    poll_interval: int | None = None,
) -> JSONObject:
    """``tools/call`` of a tool that can run as a task, on the modern wire. ``run(tctx)``
    runs the tool (talking back through ``tctx`` when given); ``poll_interval``
    (milliseconds): the tool's own, instead of the task manager's."""
    if not opted_in(rctx.envelope):
        if task_support == "required":
            raise missing_capability_error(REQUIRED_CAPABILITIES)
        return await run()
    started = task_start != "explicit"
    if not started:
        token = _BEFORE_TASK.set(True)
        try:
            return await run()  # MRTR rounds, or a result when start_task() is never called
        except StartTask:
            pass
        finally:
            _BEFORE_TASK.reset(token)
    manager = rctx.server.task_manager
    info = await manager.launch(
        rctx,
        run,
        ttl=manager.default_ttl,
        owner=modern_owner(manager, rctx),
        context=lambda task_id: ModernTaskContext(rctx, task_id, manager, started=started),
        tool_errors_fail=False,
        announce=False,
        poll_interval=poll_interval,
    )
    return create_task_result(info)


async def detailed_task(manager: TaskReceiver, info: TaskInfo) -> JSONObject:
    """The ``DetailedTask`` of ``tasks/get``."""
    out = info.to_modern_wire()
    if info.status == "input_required" and info.input_requests:
        out["inputRequests"] = dict(info.input_requests)
    elif info.status in ("completed", "failed"):
        outcome = await manager.store.outcome(info.task_id) or {}
        if info.status == "completed" and isinstance(outcome.get("result"), dict):
            # A CallToolResult of the 2026-07-28 wire, whose resultType is required.
            out["result"] = {"resultType": "complete", **outcome["result"]}
        elif isinstance(outcome.get("error"), dict):
            out["error"] = outcome["error"]
        elif isinstance(outcome.get("result"), dict):  # a 2025 task failed by isError
            out["error"] = {"code": INTERNAL_ERROR, "message": info.status_message or ""}
    return out


async def _lookup(
    manager: TaskReceiver, params: JSONObject | None, rctx: RequestContext
) -> TaskInfo:
    require_extension(rctx.envelope)
    task_id = params.get("taskId") if type(params) is dict else None
    if type(task_id) is not str:
        raise McpError(INVALID_PARAMS, "'taskId' must be a string")
    info = await manager.store.get(task_id)
    if info is None or not allowed(info.owner, modern_owner(manager, rctx)):
        raise McpError(INVALID_PARAMS, f"Unknown task: {task_id}", {"taskId": task_id})
    return info


async def handle_get(
    manager: TaskReceiver, params: JSONObject | None, rctx: RequestContext
) -> JSONObject:
    """``tasks/get``: the DetailedTask."""
    return await detailed_task(manager, await _lookup(manager, params, rctx))


async def handle_update(
    manager: TaskReceiver, params: JSONObject | None, rctx: RequestContext
) -> JSONObject:
    """``tasks/update``: answers to the task's input requests; a bare ack."""
    info = await _lookup(manager, params, rctx)
    responses = params.get("inputResponses") if params is not None else None
    if not isinstance(responses, Mapping):
        raise McpError(INVALID_PARAMS, "'inputResponses' must be an object")
    tctx = manager.execution_context(info.task_id)
    if isinstance(tctx, ModernTaskContext) and not info.terminal:
        await tctx.answer(responses)
    elif not info.terminal and info.input_requests:
        # Running in another process (a shared store): checked here, handed over there.
        checked = _checked_answers(info.input_requests, responses)
        if checked:
            await manager.store.post_input(info.task_id, checked)
    return {}


#: The kind of input request of each method (the inverse of INPUT_METHODS).
_KINDS: Final[Mapping[str, InputKind]] = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


def _checked_answers(open_requests: Mapping[str, Any], responses: Mapping[str, Any]) -> JSONObject:
    """The answers to ``open_requests`` (the stored ``inputRequests``), each checked like an
    MRTR answer (-32602 when invalid); keys not open are ignored."""
    out: JSONObject = {}
    for name, response in responses.items():
        request = open_requests.get(name)
        kind = _KINDS.get(str(request.get("method"))) if isinstance(request, Mapping) else None
        if kind is not None:
            out[name] = _validate_answer(kind, name, response)
    return out


async def handle_cancel(
    manager: TaskReceiver, params: JSONObject | None, rctx: RequestContext
) -> JSONObject:
    """``tasks/cancel``: ``cancelled`` before the ack leaves; a finished task is acked too."""
    info = await _lookup(manager, params, rctx)
    if not info.terminal:
        await manager.stop(info.task_id)
    return {}


def removed(method: str) -> McpError:
    """-32601 for ``tasks/result`` and ``tasks/list``, which the extension removed."""
    return McpError(
        METHOD_NOT_FOUND,
        f"Method not found: {method!r} does not exist in the tasks extension "
        "(poll tasks/get; its result is inlined there)",
    )
