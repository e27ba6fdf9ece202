"""Drive an MCP server with the official Python SDK's client; print what it saw as JSON.

Runs in the peer venv (.cache/peers/py, made by scripts/peers.sh), never in mcpkit's:

    .cache/peers/py/bin/python tests/interop/peers/py_client.py --mode 2026-07-28 \\
        --call add '{"a": 2, "b": 3}' -- COMMAND [ARG ...]       # a stdio server
    .cache/peers/py/bin/python tests/interop/peers/py_client.py --mode auto \\
        --url http://127.0.0.1:PORT/mcp                          # a Streamable HTTP server

``--mode`` is the SDK's ``Client(mode=...)``: ``legacy`` (initialize handshake), ``auto``
(probe ``server/discover``, fall back to initialize) or a modern version such as
``2026-07-28`` (stateless, no probe). The report on stdout is one JSON object:
``{"protocolVersion", "serverInfo", "capabilities", "tools", "prompts", "resources",
"templates", "calls": [{"name", "arguments", "result"}], "reads", "gets", "completions",
"listen"}`` (a list the server refused reads ``{"error": "..."}``); an error exits 1 with the
traceback on stderr.

More operations, each repeatable and run in this order after the lists:
``--call TOOL JSON``, ``--read URI``, ``--get PROMPT JSON``, ``--complete REF NAME ARG VALUE``
(``REF`` is ``prompt`` or ``template``; ``NAME`` the prompt name or the URI template), and
``--listen-tools TOOL JSON`` (2026-07-28: open ``subscriptions/listen`` for tool-list
changes, call TOOL, report the first event that arrives within ``--listen-wait`` seconds),
``--task TOOL JSON`` (2026-07-28: the call as a task of the tasks extension, see below).

Notifications and streams: ``--subscribe URI`` (repeatable) sends ``resources/subscribe``
before the calls; every server notification but progress is reported in
``"notifications"`` (``{"method", "params"}``, in arrival order); ``--wait-notifications
N`` waits (at most ``--notify-wait`` seconds) after the calls until N have arrived, then
``--settle`` seconds more, so that one arriving twice would be seen. Each call's progress
notifications are in its ``"progress"`` (their messages). The SDK resumes a broken SSE
stream itself (GET with ``Last-Event-ID``, after the server's ``retry`` delay).

Tasks (2026-07-28): the SDK ships no tasks API; its extension interface
(``Client(extensions=[...])``, a ``ResultClaim`` for ``resultType: "task"``) is how a
client adds one, so ``--task`` declares ``io.modelcontextprotocol/tasks`` through it and
finishes the claimed ``CreateTaskResult`` by polling ``tasks/get`` (answering an
``input_required`` task's elicitation with ``tasks/update``). ``"tasks"`` lists each with
the statuses it saw and its result (or error).

The client declares sampling, elicitation and roots and answers them with canned values
(so a server may ask, on either era: requests on 2025, ``input_required`` on 2026):
sampling ``--sampling-text``, elicitation accept with ``--elicit-content`` (JSON), roots
``--root`` URIs (default one, ``file:///interop/root``). Every request it answered is in
``"answered"``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any, Literal

import mcp_types as types
from mcp.client.client import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.stdio import StdioServerParameters
from pydantic import ConfigDict

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"


def _dump(model: Any) -> Any:
    if model is None:
        return None
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def _listed(fetch: Any, field: str, key: str) -> Any:
    """The names (or URIs) of one list, or ``{"error": ...}`` when the server refused it."""
    try:
        result = await fetch()
    except Exception as exc:  # reported, not raised: the server may lack the feature
        return {"error": f"{type(exc).__name__}: {exc}"}
    return [str(getattr(item, key)) for item in getattr(result, field)]


def _answerers(args: argparse.Namespace, answered: list[dict[str, Any]]) -> dict[str, Any]:
    """The client callbacks: canned answers to sampling, elicitation and roots requests."""

    async def sampling(context: Any, params: types.CreateMessageRequestParams) -> Any:
        answered.append({"kind": "sampling", "params": _dump(params)})
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=args.sampling_text),
            model="interop-model",
            stop_reason="endTurn",
        )

    async def elicitation(context: Any, params: types.ElicitRequestParams) -> Any:
        answered.append({"kind": "elicitation", "params": _dump(params)})
        return types.ElicitResult(action="accept", content=json.loads(args.elicit_content))

    async def roots(context: Any) -> Any:
        answered.append({"kind": "roots"})
        uris = args.root or ["file:///interop/root"]
        return types.ListRootsResult(
            roots=[types.Root(uri=uri, name=f"root {i}") for i, uri in enumerate(uris)]
        )

    return {
        "sampling_callback": sampling,
        "elicitation_callback": elicitation,
        "list_roots_callback": roots,
    }


async def _listen(client: Client, tool: str, arguments: Any, wait: float) -> dict[str, Any]:
    """Open a tool-list listen stream, call ``tool``, collect the events for ``wait`` s."""
    events: list[str] = []
    async with client.listen(tools_list_changed=True) as sub:
        honored = _dump(sub.honored)
        result = await client.call_tool(tool, arguments)

        async def collect() -> None:
            async for event in sub:
                events.append(type(event).__name__)
                break  # one change seen is enough

        try:
            await asyncio.wait_for(collect(), wait)
        except TimeoutError:
            pass
    return {"honored": honored, "call": _dump(result), "events": events}


class TaskCreated(types.Result):
    """The tasks extension's ``CreateTaskResult`` (``resultType: "task"``)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"]
    task_id: str
    status: str


class TaskIdParams(types.RequestParams):
    model_config = ConfigDict(extra="allow")
    task_id: str


class TasksGet(types.Request[TaskIdParams, Literal["tasks/get"]]):
    name_param = "taskId"


class TasksUpdate(types.Request[TaskIdParams, Literal["tasks/update"]]):
    name_param = "taskId"


class AnyResult(types.Result):
    model_config = ConfigDict(extra="allow")


class TasksExtension(ClientExtension):
    """The client side of ``io.modelcontextprotocol/tasks`` on the SDK's extension API."""

    identifier = TASKS_EXTENSION

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        #: Task id -> the statuses ``tasks/get`` reported, in order (repeats dropped).
        self.statuses: dict[str, list[str]] = {}

    def claims(self) -> Any:
        return [ResultClaim(result_type="task", model=TaskCreated, resolve=self._finish)]

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        method = request.get("method")
        if method == "elicitation/create":
            return {"action": "accept", "content": json.loads(self.args.elicit_content)}
        if method == "sampling/createMessage":
            return {
                "role": "assistant",
                "content": {"type": "text", "text": self.args.sampling_text},
                "model": "interop-model",
            }
        uris = self.args.root or ["file:///interop/root"]
        return {"roots": [{"uri": uri, "name": f"root {i}"} for i, uri in enumerate(uris)]}

    async def _finish(self, created: TaskCreated, ctx: ClaimContext) -> types.CallToolResult:
        seen = self.statuses.setdefault(created.task_id, [created.status])
        answered: set[str] = set()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            got = await ctx.session.send_request(
                TasksGet(method="tasks/get", params=TaskIdParams(task_id=created.task_id)),
                AnyResult,
            )
            task = got.model_dump(by_alias=True, mode="json")
            status = task["status"]
            if seen[-1] != status:
                seen.append(status)
            if status == "completed":
                return types.CallToolResult.model_validate(task["result"])
            if status in ("failed", "cancelled"):
                raise RuntimeError(f"task {status}: {task.get('error')}")
            pending = {
                key: self._answer(request)
                for key, request in (task.get("inputRequests") or {}).items()
                if key not in answered
            }
            if pending:
                params = TaskIdParams(task_id=created.task_id, inputResponses=pending)
                await ctx.session.send_request(
                    TasksUpdate(method="tasks/update", params=params), AnyResult
                )
                answered.update(pending)
            await asyncio.sleep(0.05)
        raise TimeoutError(f"task {created.task_id} did not finish in 60 s")


async def _call(client: Client, name: str, arguments: Any) -> dict[str, Any]:
    """One ``tools/call``, its progress messages recorded."""
    call: dict[str, Any] = {"name": name, "arguments": arguments, "progress": []}

    async def progress(value: float, total: float | None, message: str | None) -> None:
        call["progress"].append(message)

    try:
        result = await client.call_tool(name, arguments, progress_callback=progress)
        call["result"] = _dump(result)
    except Exception as exc:  # a protocol error answer, reported (the call is listed)
        call["error"] = f"{type(exc).__name__}: {exc}"
    return call


async def _wait_notifications(
    notifications: list[dict[str, Any]], arrived: asyncio.Event, args: argparse.Namespace
) -> None:
    """Until ``--wait-notifications`` have arrived (bounded), then ``--settle`` more."""
    deadline = time.monotonic() + args.notify_wait
    while len(notifications) < args.wait_notifications:
        arrived.clear()
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            await asyncio.wait_for(arrived.wait(), left)
        except TimeoutError:
            break
    await asyncio.sleep(args.settle)


async def drive(args: argparse.Namespace) -> dict[str, Any]:
    if args.url:
        target: Any = args.url
    else:
        if not args.command:
            raise SystemExit("give --url or a stdio server command after --")
        target = StdioServerParameters(command=args.command[0], args=args.command[1:])
    answered: list[dict[str, Any]] = []
    notifications: list[dict[str, Any]] = []
    report: dict[str, Any] = {"calls": [], "answered": answered, "notifications": notifications}
    arrived = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            return
        dumped = _dump(getattr(message, "root", message))
        if isinstance(dumped, dict) and dumped.get("method") != "notifications/progress":
            notifications.append({"method": dumped.get("method"), "params": dumped.get("params")})
            arrived.set()

    tasks = TasksExtension(args) if args.task else None
    async with Client(
        target,
        mode=args.mode,
        message_handler=on_message,
        extensions=[tasks] if tasks is not None else None,
        **_answerers(args, answered),
    ) as client:
        report["protocolVersion"] = client.protocol_version
        report["serverInfo"] = _dump(client.server_info)
        report["capabilities"] = _dump(client.server_capabilities)
        caps = client.server_capabilities
        # A modern version pin without a prior discover knows no capabilities: try them all.
        unknown = caps.tools is None and caps.prompts is None and caps.resources is None
        if unknown or caps.tools is not None:
            report["tools"] = await _listed(lambda: client.list_tools(), "tools", "name")
        if unknown or caps.prompts is not None:
            report["prompts"] = await _listed(lambda: client.list_prompts(), "prompts", "name")
        if unknown or caps.resources is not None:
            report["resources"] = await _listed(lambda: client.list_resources(), "resources", "uri")
            report["templates"] = await _listed(
                lambda: client.list_resource_templates(), "resource_templates", "uri_template"
            )
        for uri in args.subscribe:
            await client.subscribe_resource(uri)
        for name, arguments in args.call:
            report["calls"].append(await _call(client, name, json.loads(arguments)))
        if args.wait_notifications:
            await _wait_notifications(notifications, arrived, args)
        if args.read:
            report["reads"] = [
                {"uri": uri, "result": _dump(await client.read_resource(uri))} for uri in args.read
            ]
        if args.get:
            report["gets"] = [
                {"name": name, "result": _dump(await client.get_prompt(name, json.loads(a)))}
                for name, a in args.get
            ]
        if args.complete:
            report["completions"] = []
            for kind, name, argument, value in args.complete:
                ref: Any = (
                    types.PromptReference(type="ref/prompt", name=name)
                    if kind == "prompt"
                    else types.ResourceTemplateReference(type="ref/resource", uri=name)
                )
                done = await client.complete(ref, {"name": argument, "value": value})
                report["completions"].append({"ref": name, "result": _dump(done)})
        if args.listen_tools:
            tool, arguments = args.listen_tools
            report["listen"] = await _listen(client, tool, json.loads(arguments), args.listen_wait)
        if tasks is not None:
            report["tasks"] = []
            for name, arguments in args.task:
                done: dict[str, Any] = {"name": name}
                try:
                    done["result"] = _dump(await client.call_tool(name, json.loads(arguments)))
                except Exception as exc:
                    done["error"] = f"{type(exc).__name__}: {exc}"
                done["statuses"] = list(tasks.statuses.values())[-1] if tasks.statuses else []
                report["tasks"].append(done)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--url")
    parser.add_argument(
        "--call", nargs=2, action="append", default=[], metavar=("TOOL", "JSON_ARGUMENTS")
    )
    parser.add_argument("--read", action="append", default=[], metavar="URI")
    parser.add_argument("--get", nargs=2, action="append", default=[], metavar=("PROMPT", "JSON"))
    parser.add_argument(
        "--complete", nargs=4, action="append", default=[], metavar=("REF", "NAME", "ARG", "VALUE")
    )
    parser.add_argument("--listen-tools", nargs=2, metavar=("TOOL", "JSON_ARGUMENTS"))
    parser.add_argument("--listen-wait", type=float, default=3.0)
    parser.add_argument("--task", nargs=2, action="append", default=[], metavar=("TOOL", "JSON"))
    parser.add_argument("--subscribe", action="append", default=[], metavar="URI")
    parser.add_argument("--wait-notifications", type=int, default=0, metavar="N")
    parser.add_argument("--notify-wait", type=float, default=10.0)
    parser.add_argument("--settle", type=float, default=0.5)
    parser.add_argument("--sampling-text", default="sampled by the official client")
    parser.add_argument("--elicit-content", default="{}")
    parser.add_argument("--root", action="append", default=[])
    parser.add_argument("command", nargs="*")
    args = parser.parse_args()
    report = asyncio.run(drive(args))
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
