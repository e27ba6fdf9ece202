"""Drive one server with the official Python SDK's client and print what it saw as JSON.

Runs in the peer venv (the official SDK), never in mcpkit's:

    PEER_PYTHON tests/compat/drive.py SCRIPT.json -- COMMAND [ARG ...]   # a stdio server
    PEER_PYTHON tests/compat/drive.py SCRIPT.json --url http://127.0.0.1:PORT/mcp

The script is a JSON list of operations, run in order: ``{"op": "list"}`` (every tool,
resource, template and prompt in full, all pages followed), ``{"op": "call", "name", "args"}``
(with a progress callback; an optional ``"answer"`` is the content the client accepts an
elicitation with during that call), ``{"op": "read", "uri"}``, ``{"op": "get", "name", "args"}``,
``{"op": "complete", "ref", "argument", "context"}``, ``{"op": "level", "level"}``,
``{"op": "request", "method", "params"}`` (a request of the server's own, its raw result);
``{"op": "everything", "skip": [...]}`` lists, then calls every tool (but those skipped) with
arguments made from its input schema, reads every resource and every template (its variables
``x``) and gets every prompt (its required arguments ``x``); a call, read or get with a
``"meta"`` object sends it as the request's ``_meta``. Each
result in the report carries the log messages and progress that arrived meanwhile; the
notifications seen are listed by method. The client declares sampling, elicitation and roots
and answers them with canned values. A stdio server gets this process's environment (so
``PYTHONPATH`` reaches it).

    PEER_PYTHON tests/compat/drive.py --serve

runs many conversations in one warmed interpreter (the tests' driver, ``driving.py``): it
reads one job a line on stdin, ``{"id", "script", "command" | "url", "mode", "env", "cwd"}``
(``"extensions"``: the extension identifiers the client declares)
(``"sse": true`` with a ``url``: the HTTP+SSE transport's GET endpoint),
runs each at once in a conversation of its own (the same client, callbacks and report as
above; the server started with the job's environment and folder, its stderr kept apart) and
writes ``{"id", "report"}`` or ``{"id", "error"}`` (the traceback and the server's stderr) a
line on stdout, as each ends.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.client import advertise
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client


def dump(model: Any) -> Any:
    return (
        None if model is None else model.model_dump(mode="json", by_alias=True, exclude_none=True)
    )


async def everything(fetch: Any, field: str) -> list[Any]:
    items: list[Any] = []
    cursor = None
    while True:
        page = await fetch(cursor=cursor)
        items.extend(dump(item) for item in getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            return items


def example_value(schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """A value ``schema`` accepts (the same for every server); ``root`` holds its ``$defs``."""
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        schema = root.get("$defs", {}).get(ref.rsplit("/", 1)[1], {})
    for key in ("enum", "examples"):
        if schema.get(key):
            return schema[key][0]
    if "const" in schema:
        return schema["const"]
    if "default" in schema:
        return schema["default"]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return example_value(schema[key][0], root)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0]
    if kind == "object" or "properties" in schema:
        return arguments(schema, root)
    values = {"integer": 2, "number": 1.5, "boolean": True, "array": [], "null": None}
    return values.get(str(kind), "x")


def arguments(schema: dict[str, Any], root: dict[str, Any] | None = None) -> dict[str, Any]:
    """Values for the required properties of an object schema."""
    props = schema.get("properties", {})
    root = schema if root is None else root
    return {name: example_value(props.get(name, {}), root) for name in schema.get("required", [])}


def exercise(listing: dict[str, Any], skip: list[str]) -> list[dict[str, Any]]:
    """The ops of ``{"op": "everything"}`` after its listing."""
    ops: list[dict[str, Any]] = []
    for tool in listing["tools"]:
        if tool["name"] not in skip:
            ops.append({"op": "call", "name": tool["name"], "args": arguments(tool["inputSchema"])})
    ops += [{"op": "read", "uri": resource["uri"]} for resource in listing["resources"]]
    for template in listing["templates"]:
        ops.append({"op": "read", "uri": re.sub(r"\{[^}]*\}", "x", template["uriTemplate"])})
    for prompt in listing["prompts"]:
        args = {a["name"]: "x" for a in prompt.get("arguments") or [] if a.get("required")}
        ops.append({"op": "get", "name": prompt["name"], "args": args})
    return ops


def sent_meta(op: dict[str, Any]) -> dict[str, Any]:
    """The ``meta=`` keyword of a call, read or get: the op's ``"meta"``, if it has one."""
    return {"meta": op["meta"]} if "meta" in op else {}


class Raw(types.Request[dict[str, Any], str]):
    """A request of the server's own (an extension's method)."""


class RawResult(types.Result):
    """Any result, its fields kept as sent."""

    model_config = {"extra": "allow"}


async def drive(
    script: list[dict[str, Any]],
    target: Any,
    mode: str = "legacy",
    extensions: list[str] = (),  # type: ignore[assignment]
) -> dict[str, Any]:
    """What the official client saw running ``script`` against ``target`` (a URL, or a
    transport such as ``stdio_client(...)``)."""
    logs: list[Any] = []
    notes: list[str] = []
    answered: list[Any] = []
    answer: dict[str, Any] = {}

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(dump(params))

    async def on_message(message: Any) -> None:
        method = getattr(getattr(message, "root", message), "method", None)
        if isinstance(method, str) and method not in (
            "notifications/message",
            "notifications/progress",
        ):
            notes.append(method)

    async def sampling(context: Any, params: types.CreateMessageRequestParams) -> Any:
        answered.append({"sampling": dump(params)})
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="sampled: " + str(len(params.messages))),
            model="compat-model",
            stop_reason="endTurn",
        )

    async def elicitation(context: Any, params: types.ElicitRequestParams) -> Any:
        answered.append({"elicitation": dump(params)})
        content = answer.get("content", {"name": "Ada", "age": 36})
        return types.ElicitResult(action="accept", content=content)

    async def roots(context: Any) -> Any:
        return types.ListRootsResult(roots=[types.Root(uri="file:///compat/root", name="root")])

    report: dict[str, Any] = {"ops": []}
    async with Client(
        target,
        mode=mode,
        log_level=None if mode == "legacy" else "debug",
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        list_roots_callback=roots,
        logging_callback=on_log,
        message_handler=on_message,
        extensions=[advertise(identifier) for identifier in extensions] or None,
    ) as client:
        report["serverInfo"] = dump(client.server_info)
        report["capabilities"] = dump(client.server_capabilities) or {}
        report["instructions"] = getattr(client, "instructions", None)
        pending = list(script)
        while pending:
            op = pending.pop(0)
            kind = op["op"]
            entry: dict[str, Any] = {"op": kind}
            progress: list[Any] = []
            del logs[:]
            try:
                if kind == "list":
                    entry["tools"] = await everything(client.list_tools, "tools")
                    entry["resources"] = await everything(client.list_resources, "resources")
                    entry["templates"] = await everything(
                        client.list_resource_templates, "resource_templates"
                    )
                    entry["prompts"] = await everything(client.list_prompts, "prompts")
                elif kind == "everything":  # each kind on its own: a server may serve few
                    for key, fetch, field in (
                        ("tools", client.list_tools, "tools"),
                        ("resources", client.list_resources, "resources"),
                        ("templates", client.list_resource_templates, "resource_templates"),
                        ("prompts", client.list_prompts, "prompts"),
                    ):
                        try:
                            entry[key] = await everything(fetch, field)
                        except Exception as exc:
                            entry[key] = []
                            entry[key + "_error"] = type(exc).__name__ + ": " + str(exc)
                    pending[:0] = exercise(entry, op.get("skip", []))
                elif kind == "call":
                    entry["name"] = op["name"]
                    answer.clear()
                    if "answer" in op:
                        answer["content"] = op["answer"]

                    async def on_progress(p: float, total: float | None, msg: str | None) -> None:
                        progress.append([p, total, msg])

                    result = await client.call_tool(
                        op["name"],
                        op.get("args", {}),
                        progress_callback=on_progress,
                        **sent_meta(op),
                    )
                    entry["result"] = dump(result)
                elif kind == "read":
                    entry["uri"] = op["uri"]
                    entry["result"] = dump(await client.read_resource(op["uri"], **sent_meta(op)))
                elif kind == "get":
                    entry["name"] = op["name"]
                    answer.clear()
                    if "answer" in op:  # what an input request of the prompt is answered
                        answer["content"] = op["answer"]
                    entry["result"] = dump(
                        await client.get_prompt(op["name"], op.get("args"), **sent_meta(op))
                    )
                elif kind == "complete":
                    ref_cls = (
                        types.PromptReference
                        if op["ref"]["type"] == "ref/prompt"
                        else types.ResourceTemplateReference
                    )
                    ref = ref_cls.model_validate(op["ref"])
                    entry["result"] = dump(
                        await client.complete(ref, op["argument"], op.get("context"))
                    )
                elif kind == "level":
                    await client.set_logging_level(op["level"])
                elif kind == "request":
                    entry["method"] = op["method"]
                    request = Raw(method=op["method"], params=op.get("params", {}))
                    entry["result"] = dump(await client.session.send_request(request, RawResult))
                else:
                    raise SystemExit(f"unknown op {kind}")
            except Exception as exc:  # an error answer is part of what the client sees
                entry["error"] = type(exc).__name__ + ": " + str(getattr(exc, "error", exc))
            await asyncio.sleep(0.05)  # notifications sent just before the result arrive
            entry["logs"] = list(logs)
            entry["progress"] = progress
            report["ops"].append(entry)
    report["notifications"] = notes
    report["answered"] = answered
    return report


async def serve() -> None:
    """Run the jobs read from stdin at once, writing each one's outcome as it ends."""
    loop = asyncio.get_running_loop()
    running: set[asyncio.Task[None]] = set()

    async def job(spec: dict[str, Any]) -> None:
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
            try:
                if "url" in spec and spec.get("sse"):  # the 2024-11-05 HTTP+SSE transport
                    from mcp.client.sse import sse_client

                    target: Any = sse_client(spec["url"])
                elif "url" in spec:
                    target = spec["url"]
                else:
                    params = StdioServerParameters(
                        command=spec["command"][0],
                        args=spec["command"][1:],
                        env=spec.get("env"),
                        cwd=spec.get("cwd"),
                    )
                    target = stdio_client(params, errlog=errlog)
                with anyio.fail_after(spec.get("timeout", 110)):
                    out: dict[str, Any] = {
                        "report": await drive(
                            spec["script"],
                            target,
                            spec.get("mode", "legacy"),
                            spec.get("extensions", []),
                        )
                    }
            except BaseException:  # any failure is the job's, never the driver's
                errlog.seek(0)
                out = {"error": traceback.format_exc() + "\nserver stderr:\n" + errlog.read()}
        out["id"] = spec["id"]
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()

    while line := await loop.run_in_executor(None, sys.stdin.readline):
        task = asyncio.create_task(job(json.loads(line)))
        running.add(task)
        task.add_done_callback(running.discard)
    if running:
        await asyncio.wait(running)


async def main() -> None:
    if sys.argv[1:] == ["--serve"]:
        await serve()
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("script")
    parser.add_argument("--url")
    parser.add_argument("--mode", default="legacy", help="legacy, or a modern version")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    args.command = argv[cut + 1 :]  # kept whole: it may hold a "--" of its own
    script = json.loads(Path(args.script).read_text())  # noqa: ASYNC240
    if args.url:
        target: Any = args.url
    else:
        target = StdioServerParameters(
            command=args.command[0], args=args.command[1:], env=dict(os.environ)
        )
    print(json.dumps(await drive(script, target, args.mode), indent=1, sort_keys=True))


asyncio.run(main())
