"""Answering the server's sampling and elicitation requests in the terminal.

:class:`TerminalHandlers` asks the user: an elicitation form is prompted field by field
(defaults shown and taken on Enter, enums as numbered choices, values checked against the
field's schema before moving on); a sampling request is shown and the user types the reply
or declines. With ``interactive=False`` (``--no-input``, or no terminal on stdin) every
request is refused: elicitations are declined, sampling answers the spec's "user rejected"
error. Prompts go to stderr, answers are read from stdin.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson

from mcpkit.client.sampling import USER_REJECTED
from mcpkit.errors import McpError
from mcpkit.json_schema import compile_schema

if TYPE_CHECKING:
    from mcpkit.cli.render import Output
    from mcpkit.session import RequestContext

__all__ = ["TerminalHandlers"]


class _Cancel(Exception):
    """The user ended the input (Ctrl-D)."""


def _read_line_blocking(prompt: str) -> str:
    sys.stderr.write(prompt)
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise _Cancel
    return line.rstrip("\r\n")


async def read_line(prompt: str) -> str:
    """Read one line from stdin without blocking the event loop.

    A daemon thread does the read, so a request cancelled by the server (or the end of the
    program) never waits for a line the user will not type.
    """
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[str] = loop.create_future()

    def deliver(value: str | BaseException) -> None:
        if fut.done():
            return
        if isinstance(value, BaseException):
            fut.set_exception(value)
        else:
            fut.set_result(value)

    def work() -> None:
        try:
            value: str | BaseException = _read_line_blocking(prompt)
        except BaseException as exc:  # handed to the loop
            value = exc
        with contextlib.suppress(RuntimeError):  # the loop is gone
            loop.call_soon_threadsafe(deliver, value)

    threading.Thread(target=work, name="mcpkit-cli-input", daemon=True).start()
    return await fut


def _dump(value: Any) -> str:
    return orjson.dumps(value, default=str).decode()


def _options(prop: Mapping[str, Any]) -> list[tuple[Any, str]] | None:
    """(value, label) choices of an enum field, or None."""
    if isinstance(prop.get("oneOf"), list):
        out = [(o.get("const"), str(o.get("title") or o.get("const"))) for o in prop["oneOf"]]
        return out if all(isinstance(o, Mapping) for o in prop["oneOf"]) else None
    if isinstance(prop.get("enum"), list):
        names = prop.get("enumNames")
        labels = names if isinstance(names, list) and len(names) == len(prop["enum"]) else None
        return [(v, str(labels[i]) if labels else str(v)) for i, v in enumerate(prop["enum"])]
    return None


def _item_options(prop: Mapping[str, Any]) -> list[tuple[Any, str]] | None:
    items = prop.get("items")
    if not isinstance(items, Mapping):
        return None
    for key in ("anyOf", "oneOf"):
        if isinstance(items.get(key), list):
            return [(o.get("const"), str(o.get("title") or o.get("const"))) for o in items[key]]
    return _options(items)


def _pick(text: str, options: list[tuple[Any, str]]) -> Any:
    text = text.strip()
    if text.isdigit() and 1 <= int(text) <= len(options):
        return options[int(text) - 1][0]
    for value, label in options:
        if text == str(value) or text.lower() == label.lower():
            return value
    raise ValueError("choose one of the numbers or values shown")


def _convert(text: str, prop: Mapping[str, Any]) -> Any:
    """The typed value of ``text`` for field ``prop``; ValueError with a reason if invalid."""
    kind = prop.get("type")
    if kind == "array":
        choices = _item_options(prop)
        parts = [p.strip() for p in text.split(",") if p.strip()]
        if choices is not None:
            return [_pick(p, choices) for p in parts]
        return parts
    choices = _options(prop)
    if choices is not None:
        return _pick(text, choices)
    if kind == "boolean":
        lowered = text.strip().lower()
        if lowered in ("y", "yes", "true", "1"):
            return True
        if lowered in ("n", "no", "false", "0"):
            return False
        raise ValueError("answer y or n")
    if kind == "integer":
        try:
            return int(text.strip())
        except ValueError:
            raise ValueError("expected a whole number") from None
    if kind == "number":
        try:
            number = float(text.strip())
        except ValueError:
            raise ValueError("expected a number") from None
        return int(number) if number.is_integer() and "." not in text else number
    return text


class TerminalHandlers:
    """Sampling and elicitation handlers for the Client, answered at the terminal."""

    def __init__(self, output: Output, *, interactive: bool, reason: str = "--no-input") -> None:
        self.output = output
        self.interactive = interactive
        self.reason = reason
        #: How many sampling requests the user declined (or --no-input refused).
        self.sampling_declined = 0
        self._lock = asyncio.Lock()

    # -- sampling -------------------------------------------------------------------------------

    async def sampling(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        """Show the sampling request; the user types the reply (empty line: decline)."""
        from rich.markup import escape

        out = self.output
        wire = params.to_wire() if hasattr(params, "to_wire") else dict(params)
        if not self.interactive:
            out.note(f"[yellow]sampling request refused ({escape(self.reason)})[/]")
            self.sampling_declined += 1
            raise McpError(USER_REJECTED, f"The user declined the sampling request ({self.reason})")
        async with self._lock:
            with out.paused():
                out.note("[bold magenta]The server asks for an LLM completion (sampling):[/]")
                if wire.get("systemPrompt"):
                    out.note(f"  system: {escape(str(wire['systemPrompt']))}", style="")
                for msg in wire.get("messages", []):
                    content = msg.get("content")
                    blocks = content if isinstance(content, list) else [content]
                    for block in blocks:
                        if isinstance(block, Mapping) and block.get("type") == "text":
                            shown = str(block.get("text", ""))
                        else:
                            shown = f"[{block.get('type') if isinstance(block, Mapping) else '?'}]"
                        out.note(f"  {escape(str(msg.get('role')))}: {escape(shown)}", style="")
                out.note(f"  max tokens: {wire.get('maxTokens')}")
                try:
                    reply = await read_line("Your reply (empty line declines): ")
                except _Cancel:
                    reply = ""
        if not reply.strip():
            out.note("[yellow]sampling declined[/]")
            self.sampling_declined += 1
            raise McpError(USER_REJECTED, "The user declined the sampling request")
        return {
            "role": "assistant",
            "content": {"type": "text", "text": reply},
            "model": "human-at-the-terminal",
            "stopReason": "endTurn",
        }

    # -- elicitation ----------------------------------------------------------------------------

    async def elicitation(self, params: Any, ctx: RequestContext) -> dict[str, Any] | str:
        """Ask for an elicitation answer: accept (field by field), decline or cancel."""
        from rich.markup import escape

        out = self.output
        wire = params.to_wire() if hasattr(params, "to_wire") else dict(params)
        message = str(wire.get("message", ""))
        if not self.interactive:
            out.note(f"[yellow]elicitation declined ({escape(self.reason)}):[/] {escape(message)}")
            return "decline"
        async with self._lock:
            with out.paused():
                try:
                    if wire.get("mode") == "url":
                        return await self._url(wire)
                    return await self._form(wire)
                except _Cancel:
                    out.note("[yellow]elicitation cancelled[/]")
                    return "cancel"

    async def _choose(self) -> str:
        while True:
            answer = (await read_line("Answer? [A]ccept / [d]ecline / [c]ancel: ")).strip().lower()
            if answer in ("", "a", "accept", "y", "yes"):
                return "accept"
            if answer in ("d", "decline", "n", "no"):
                return "decline"
            if answer in ("c", "cancel"):
                return "cancel"

    async def _url(self, wire: Mapping[str, Any]) -> dict[str, Any] | str:
        from rich.markup import escape

        out = self.output
        out.note("[bold magenta]The server asks you to open a URL (elicitation):[/]")
        out.note(f"  {escape(str(wire.get('message', '')))}", style="")
        out.note(f"  {escape(str(wire.get('url', '')))}", style="bold")
        action = await self._choose()
        return {"action": action} if action == "accept" else action

    async def _form(self, wire: Mapping[str, Any]) -> dict[str, Any] | str:
        from rich.markup import escape

        out = self.output
        schema = wire.get("requestedSchema") or {}
        props: Mapping[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        out.note("[bold magenta]The server asks you for input (elicitation):[/]")
        out.note(f"  {escape(str(wire.get('message', '')))}", style="")
        action = await self._choose()
        if action != "accept":
            return action
        if props:
            out.note(
                "  Enter keeps the \\[default]; '-' leaves an optional field empty; Ctrl-D cancels."
            )
        content: dict[str, Any] = {}
        for name, prop in props.items():
            if not isinstance(prop, Mapping):
                continue
            value = await self._field(str(name), prop, str(name) in required)
            if value is not _OMIT:
                content[str(name)] = value
        return {"action": "accept", "content": content}

    async def _field(self, name: str, prop: Mapping[str, Any], required: bool) -> Any:
        out = self.output
        title = prop.get("title")
        description = prop.get("description")
        plain_title = str(title or "").lower().replace(" ", "_")
        label = name + (f" ({title})" if title and plain_title != name.lower() else "")
        if description:
            out.err.print(f"  {label}: {description}", style="dim", markup=False)
        choices = _options(prop) if prop.get("type") != "array" else _item_options(prop)
        if choices:
            shown = "  ".join(f"{i}) {lab}" for i, (_, lab) in enumerate(choices, start=1))
            many = " (comma-separated)" if prop.get("type") == "array" else ""
            out.err.print(f"    {shown}{many}", markup=False)
        has_default = "default" in prop
        hint = f" [{_dump(prop['default'])}]" if has_default else ("" if required else " [skip]")
        if prop.get("type") == "boolean" and not has_default:
            hint = " [y/n]"
        validator = compile_schema(dict(prop))
        while True:
            text = await read_line(f"  {label}{'*' if required else ''}{hint}: ")
            if text == "" and has_default:
                return prop["default"]
            if text in ("", "-") and not required:
                return _OMIT
            if text == "":
                out.note("    this field is required", style="yellow")
                continue
            try:
                value = _convert(text, prop)
            except ValueError as exc:
                out.err.print(f"    {exc}", style="yellow", markup=False)
                continue
            error = validator.first_error(value)
            if error is not None:
                out.err.print(f"    {error}", style="yellow", markup=False)
                continue
            return value


_OMIT: Any = object()
