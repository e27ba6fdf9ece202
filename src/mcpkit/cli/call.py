"""``mcpkit call`` (a tool), ``mcpkit read`` (a resource) and ``mcpkit prompt`` (a prompt)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import difflib
import logging
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import orjson

from mcpkit.cli.common import connect, make_output
from mcpkit.cli.errors import EXIT_TOOL_ERROR, EXIT_USAGE, CliError
from mcpkit.cli.interactive import TerminalHandlers
from mcpkit.cli.render import compact_schema
from mcpkit.errors import McpError

if TYPE_CHECKING:
    from mcpkit.cli.render import Output
    from mcpkit.session import RequestContext
    from mcpkit.types import CallToolResult

__all__ = ["convert_value", "parse_arguments", "run_call", "run_prompt", "run_read"]

_TRUE = frozenset({"true", "yes", "y", "on", "1"})
_FALSE = frozenset({"false", "no", "n", "off", "0"})


def _types_of(schema: Any) -> list[str]:
    """The JSON types a (sub)schema allows, most specific first; [] when unconstrained."""
    if not isinstance(schema, Mapping):
        return []
    found: list[str] = []
    kind = schema.get("type")
    if isinstance(kind, str):
        found.append(kind)
    elif isinstance(kind, list):
        found.extend(str(k) for k in kind)
    for key in ("anyOf", "oneOf", "allOf"):
        for option in schema.get(key) or ():
            found.extend(t for t in _types_of(option) if t not in found)
    if not found and isinstance(schema.get("enum"), list):
        for v in schema["enum"]:
            t = _json_type(v)
            if t not in found:
                found.append(t)
    order = ["null", "boolean", "integer", "number", "array", "object", "string"]
    return sorted(set(found), key=lambda t: order.index(t) if t in order else len(order))


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "string"


def convert_value(name: str, text: str, schema: Any) -> Any:
    """``text`` typed by the property schema: integers, numbers, booleans, JSON for objects and
    arrays, ``null`` where allowed; strings stay strings. CliError when it does not fit."""
    types = _types_of(schema)
    if not types:  # unconstrained: JSON when it parses as a scalar/array/object, else text
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            return text
    stripped = text.strip()
    for kind in types:
        if kind == "null" and stripped == "null":
            return None
        if kind == "boolean" and stripped.lower() in _TRUE | _FALSE:
            return stripped.lower() in _TRUE
        if kind == "integer":
            try:
                return int(stripped)
            except ValueError:
                pass
        if kind == "number":
            try:
                return int(stripped)
            except ValueError:
                try:
                    return float(stripped)
                except ValueError:
                    pass
        if kind in ("array", "object"):
            try:
                value = orjson.loads(stripped)
            except orjson.JSONDecodeError:
                continue
            if isinstance(value, list if kind == "array" else dict):
                return value
        if kind == "string":
            return text
    expected = " or ".join(types)
    example = {
        "array": "'[1, 2]'",
        "object": "'{\"k\": 1}'",
        "boolean": "true",
        "integer": "3",
        "number": "1.5",
    }.get(types[0])
    raise CliError(
        f"argument {name!r}: expected {expected}, got {text!r}",
        f"for example {name}={example}" if example else f"{name}:=JSON passes any JSON value",
        code=EXIT_USAGE,
    )


def parse_arguments(
    pairs: list[str], json_text: str | None, schema: Any, *, typed: bool = True
) -> dict[str, Any]:
    """Tool (or prompt) arguments from ``--args-json '{...}'`` and ``key=value`` /
    ``key:=JSON`` pairs (pairs win over the JSON object)."""
    args: dict[str, Any] = {}
    if json_text is not None:
        try:
            loaded = orjson.loads(json_text)
        except orjson.JSONDecodeError as exc:
            raise CliError(
                f"the JSON arguments are not valid JSON: {exc}",
                "quote them for the shell: --args-json '{\"a\": 1}'",
                EXIT_USAGE,
            ) from None
        if not isinstance(loaded, dict):
            raise CliError(
                "the JSON arguments must be a JSON object",
                "e.g. --args-json '{\"a\": 1}'",
                EXIT_USAGE,
            )
        args.update(loaded)
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    props = props if isinstance(props, Mapping) else {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CliError(
                f"bad argument {pair!r}",
                "write arguments as key=value (or key:=JSON, or --args-json '{...}')",
                code=EXIT_USAGE,
            )
        if key.endswith(":"):
            key = key[:-1]
            try:
                args[key] = orjson.loads(value)
            except orjson.JSONDecodeError as exc:
                raise CliError(
                    f"argument {key!r}: not valid JSON: {exc}", code=EXIT_USAGE
                ) from None
            continue
        if not typed:
            args[key] = value
            continue
        if props and key not in props and schema.get("additionalProperties") is False:
            close = difflib.get_close_matches(key, list(props), n=1)
            raise CliError(
                f"unknown argument {key!r}",
                f"did you mean {close[0]!r}?" if close else f"arguments: {', '.join(props)}",
                code=EXIT_USAGE,
            )
        args[key] = convert_value(key, value, props.get(key))
    return args


def _missing(schema: Any, args: Mapping[str, Any]) -> list[str]:
    if not isinstance(schema, Mapping):
        return []
    return [str(r) for r in schema.get("required") or () if r not in args]


async def run_call(args: argparse.Namespace) -> int:
    """Call one tool and print its result; exit 3 when the tool reports an error."""
    output = make_output(args)

    def progress(done: float, total: float | None, message: str | None) -> None:
        output.progress(args.tool, done, total, message)

    handlers = _AskingHandlers(
        output,
        interactive=not args.no_input and sys.stdin.isatty(),
        reason="--no-input" if args.no_input else "stdin is not a terminal",
    )
    async with connect(args, output, handlers=handlers, on_progress=progress) as client:
        if not client.supports("tools"):
            raise CliError("this server has no tools", "see what it offers: mcpkit inspect TARGET")
        tools = {t.name: t for t in await client.list_tools()}
        tool = tools.get(args.tool)
        if tool is None:
            close = difflib.get_close_matches(args.tool, list(tools), n=1)
            raise CliError(
                f"no tool named {args.tool!r}",
                f"did you mean {close[0]!r}?" if close else f"tools: {', '.join(tools) or 'none'}",
            )
        schema = tool.input_schema.to_wire()
        arguments = parse_arguments(args.arguments, args.json_args, schema)
        missing = _missing(schema, arguments)
        if missing:
            raise CliError(
                f"missing required argument{'s' if len(missing) > 1 else ''}: "
                + ", ".join(missing),
                f"{args.tool}({compact_schema(schema)})",
                code=EXIT_USAGE,
            )
        support = tool.execution.task_support if tool.execution is not None else None
        if getattr(args, "task_ttl", None) is not None and not getattr(args, "task", False):
            raise CliError(
                "--task-ttl needs --task",
                f"mcpkit call TARGET {args.tool} ... --task --task-ttl SECONDS",
                code=EXIT_USAGE,
            )
        try:
            if getattr(args, "task", False):
                result = await _call_as_task(
                    client, args, output, handlers, support, arguments, progress
                )
            else:
                if support == "required":
                    raise CliError(
                        f"the tool {args.tool!r} only runs as a task (taskSupport 'required')",
                        f"add --task: mcpkit call TARGET {args.tool} ... --task",
                    )
                result = await client.call_tool(args.tool, arguments)
        finally:
            output.end_progress()
    wire = result.to_wire()
    if args.json:
        output.json(wire)
    else:
        blocks = wire.get("content") or []
        output.content_blocks(blocks, args.tool)
        if wire.get("structuredContent") is not None:
            output.structured(blocks, wire["structuredContent"])
    if result.is_error:
        output.note(f"[red]the tool {args.tool!r} reported an error[/]", style="")
        return EXIT_TOOL_ERROR
    return 0


class _AskingHandlers(TerminalHandlers):
    """The terminal's handlers, telling ``before_asking`` (when set) first: a task's status
    is ``input_required`` while its question is on screen."""

    before_asking: Callable[[], None] | None = None

    async def sampling(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        if self.before_asking is not None:
            self.before_asking()
        return await super().sampling(params, ctx)

    async def elicitation(self, params: Any, ctx: RequestContext) -> dict[str, Any] | str:
        if self.before_asking is not None:
            self.before_asking()
        return await super().elicitation(params, ctx)


async def _call_as_task(
    client: Any,
    args: argparse.Namespace,
    output: Output,
    handlers: _AskingHandlers,
    support: str | None,
    arguments: dict[str, Any],
    progress: Any,
) -> CallToolResult:
    """``call --task``: start the tool as a task, show its id and status as they change
    (``input_required`` is answered by the terminal's handlers), and return its result.
    Cancelled (Ctrl-C), the task is cancelled at the server before the command ends."""
    from mcpkit.client.errors import TaskNotSupported

    if support in (None, "forbidden"):
        raise CliError(
            f"the tool {args.tool!r} does not run as a task (its taskSupport is "
            f"{support or 'absent'})",
            f"call it without --task: mcpkit call TARGET {args.tool} ...",
        )
    ttl = getattr(args, "task_ttl", None)
    if ttl is not None and not ttl > 0:
        raise CliError(
            f"--task-ttl must be a positive number of seconds, got {ttl:g}", code=EXIT_USAGE
        )
    try:
        handle = await client.start_tool_task(
            args.tool,
            arguments,
            ttl=None if ttl is None else max(1, round(ttl * 1000)),
            on_progress=progress,
        )
    except TaskNotSupported as exc:
        raise CliError(
            f"the server cannot run {args.tool!r} as a task: {exc.message}",
            "call it without --task, or check the server: mcpkit inspect TARGET",
        ) from exc
    plain = bool(args.json)
    if handle.task_id is not None and not output.quiet:
        output.note(f"task: {handle.task_id}")
    shown: tuple[str, str | None] | None = None

    def show() -> None:
        nonlocal shown
        now = (handle.status, handle.status_message)
        if now != shown:
            shown = now
            output.task_status(handle.task_id, handle.status, handle.status_message, plain=plain)

    async def watch() -> None:
        # The modern handle refreshes itself while waiting; a 2025 one is polled here.
        while True:
            if handle.legacy and not handle.done:
                with contextlib.suppress(McpError):
                    await handle.refresh()
            show()
            await asyncio.sleep(max(handle.poll_interval or 1.0, 0.05) if handle.legacy else 0.05)

    def asking() -> None:  # the task waits for the user's answer
        nonlocal shown
        if shown is None or shown[0] != "input_required":
            shown = ("input_required", None)
            output.task_status(handle.task_id, "input_required", None, plain=plain)

    handlers.before_asking = asking
    show()
    watcher = asyncio.create_task(watch())
    try:
        result: CallToolResult = await handle.result()
    except asyncio.CancelledError:
        watcher.cancel()
        # the answers to the polls Ctrl-C interrupted still arrive: expected, not news
        logging.getLogger("mcpkit.session").setLevel(logging.ERROR)
        if handle.task_id is not None and not handle.done:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    await asyncio.shield(handle.cancel())
            output.end_progress()
            output.task_status(handle.task_id, handle.status, handle.status_message, plain=True)
        raise
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
    show()
    return result


async def run_read(args: argparse.Namespace) -> int:
    """Read one resource and print its contents (blobs saved to files)."""
    output = make_output(args)
    async with connect(args, output) as client:
        if not client.supports("resources"):
            raise CliError(
                "this server has no resources", "mcpkit inspect TARGET shows what it has"
            )
        result = await client.read_resource(args.uri)
    wire = result.to_wire()
    if args.json:
        output.json(wire)
    else:
        output.resource_contents(wire.get("contents") or [], "resource")
    return 0


async def run_prompt(args: argparse.Namespace) -> int:
    """Get one prompt with its arguments and print its messages."""
    output = make_output(args)
    async with connect(args, output) as client:
        if not client.supports("prompts"):
            raise CliError("this server has no prompts", "mcpkit inspect TARGET shows what it has")
        arguments = parse_arguments(args.arguments, args.json_args, None, typed=False)
        prompts = {p.name: p for p in await client.list_prompts()}
        prompt = prompts.get(args.name)
        if prompt is None:
            close = difflib.get_close_matches(args.name, list(prompts), n=1)
            raise CliError(
                f"no prompt named {args.name!r}",
                f"did you mean {close[0]!r}?" if close else f"prompts: {', '.join(prompts)}",
            )
        missing = [a.name for a in prompt.arguments or () if a.required and a.name not in arguments]
        if missing:
            raise CliError(
                f"missing required argument{'s' if len(missing) > 1 else ''}: "
                + ", ".join(missing),
                "pass them as name=value",
                code=EXIT_USAGE,
            )
        result = await client.get_prompt(args.name, arguments)
    wire = result.to_wire()
    if args.json:
        output.json(wire)
        return 0
    if wire.get("description"):
        output.note(str(wire["description"]).replace("[", "\\["))
    for i, message in enumerate(wire.get("messages") or [], start=1):
        output.out.print(f"[bold]\\[{message.get('role')}][/]")
        content = message.get("content")
        if isinstance(content, Mapping):
            output.content_block(content, f"{args.name}-{i}")
    return 0
