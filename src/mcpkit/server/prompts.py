"""Prompts: ``@app.prompt()``, ``prompts/list`` and ``prompts/get``.

Prompt arguments come from the function signature (name, description from
``Annotated[..., Field(description=...)]``, required when there is no default). Clients send
argument values as strings; they are validated (and converted, ``"3"`` -> ``3`` for an ``int``
parameter) by a validator compiled at registration. The function returns a string (one user
message), a list of messages (:func:`user` / :func:`assistant` helpers, dicts, models), content
blocks (images, embedded resources) or a whole ``GetPromptResult``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal

from mcpkit._models import is_model
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, JSONObject
from mcpkit.server.content import content_block, downgrade_messages, needs_downgrade
from mcpkit.server.dependencies import with_dependencies
from mcpkit.server.errors import failure
from mcpkit.server.invoke import UserFunction
from mcpkit.server.mrtr import InputRequired
from mcpkit.server.pagination import Paginator
from mcpkit.server.schema import ArgumentsError, Signature, analyze
from mcpkit.server.tools import scope_set, wire_dict

if TYPE_CHECKING:
    from mcpkit.server.caching import CacheHints
    from mcpkit.server.session import ServerHandler, ServerRequestContext

__all__ = ["PromptEntry", "PromptRegistry", "assistant", "to_messages", "user"]


def _message(role: Literal["user", "assistant"], content: Any) -> JSONObject:
    block = content_block(content)
    if block is None:
        raise TypeError(f"Not a content block: {type(content).__name__}")
    return {"role": role, "content": block}


def user(content: Any) -> JSONObject:
    """A user message: text, an :class:`~mcpkit.Image`, or any content block."""
    return _message("user", content)


def assistant(content: Any) -> JSONObject:
    """An assistant message: text, an :class:`~mcpkit.Image`, or any content block."""
    return _message("assistant", content)


def to_messages(value: Any) -> list[JSONObject]:
    """Prompt messages for a prompt function's return value."""
    items = value if isinstance(value, (list, tuple)) else [value]
    out: list[JSONObject] = []
    for item in items:
        if isinstance(item, dict) and "role" in item and "content" in item:
            content = item["content"]
            if not isinstance(content, dict):
                content = content_block(content)
            out.append({**item, "content": content})
        elif is_model(item) and hasattr(item, "role") and hasattr(item, "content"):
            out.append(wire_dict(item, "message"))
        else:
            block = content_block(item)
            if block is None:
                raise TypeError(f"A prompt cannot return {type(item).__name__}")
            out.append({"role": "user", "content": block})
    return out


class PromptEntry:
    """One registered prompt."""

    __slots__ = ("cache", "definition", "fn", "function", "name", "scopes", "signature")

    def __init__(
        self,
        fn: Callable[..., Any],
        name: str,
        definition: JSONObject,
        signature: Signature,
        cache: CacheHints | None = None,
    ) -> None:
        self.fn = fn
        #: Its own caching hints (2026-07-28), None for the server's.
        self.cache = cache
        self.name = name
        self.definition = definition
        self.signature = signature
        self.function = UserFunction(fn)
        #: The scopes a principal needs to see and get it (None: everyone).
        self.scopes: frozenset[str] | None = None


class PromptRegistry:
    """The prompts of one server."""

    #: The server this registry belongs to (its workers and dependency overrides), if any.
    owner: Any = None

    def _owner(self) -> Any:
        return self.owner

    def __init__(self, page_size: int, context_type: type, on_change: Callable[[], None]) -> None:
        self.prompts: dict[str, PromptEntry] = {}
        self.context_type = context_type
        self.paginator = Paginator(
            "prompts", lambda: [p.definition for p in self.prompts.values()], page_size
        )
        self._on_change = on_change

    def add(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[Any] | None = None,
        meta: dict[str, Any] | None = None,
        cache: CacheHints | None = None,
        scopes: Iterable[str] | None = None,
    ) -> PromptEntry:
        """Register ``fn`` as a prompt."""
        fn = with_dependencies(fn, self.context_type, self._owner)
        prompt_name = name or getattr(fn, "__name__", None)
        if not prompt_name:
            raise ValueError("A prompt needs a name (pass name=...)")
        if prompt_name in self.prompts:
            raise ValueError(f"A prompt named {prompt_name!r} is already registered")
        signature = analyze(fn, self.context_type, model_name=f"{prompt_name}Arguments")
        definition: JSONObject = {"name": prompt_name}
        if title:
            definition["title"] = title
        doc = description if description is not None else inspect.getdoc(fn)
        if doc:
            definition["description"] = doc
        schema = signature.input_schema
        required = set(schema.get("required", ()))
        arguments: list[JSONObject] = []
        for arg_name, prop in (schema.get("properties") or {}).items():
            arg: JSONObject = {"name": arg_name}
            if isinstance(prop, dict):
                if prop.get("title") and prop["title"] != arg_name.replace("_", " ").title():
                    arg["title"] = prop["title"]
                if prop.get("description"):
                    arg["description"] = prop["description"]
            arg["required"] = arg_name in required
            arguments.append(arg)
        if arguments:
            definition["arguments"] = arguments
        if icons:
            definition["icons"] = [wire_dict(i, "icon") for i in icons]
        if meta:
            definition["_meta"] = dict(meta)
        entry = PromptEntry(fn, prompt_name, definition, signature, cache)
        entry.scopes = scope_set(scopes)
        self.prompts[prompt_name] = entry
        self.paginator.invalidate()
        self._on_change()
        return entry

    def remove(self, name: str) -> None:
        """Unregister a prompt (KeyError when unknown)."""
        del self.prompts[name]
        self.paginator.invalidate()
        self._on_change()

    def handlers(self) -> dict[str, ServerHandler]:
        """``prompts/list`` and ``prompts/get``, by method."""
        return {"prompts/list": self.list_prompts, "prompts/get": self.get_prompt}

    async def list_prompts(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        """``prompts/list``: one page of definitions."""
        return self.paginator.page(params)

    async def get_prompt(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        """``prompts/get``, its messages downgraded for the connection's revision."""
        try:
            result = await self.get(params, rctx)
        except InputRequired as needed:
            return needed.result
        version = rctx.session.protocol_version
        if needs_downgrade(version):
            result = downgrade_messages(result, version)
        return result

    async def get(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        """The ``prompts/get`` result; -32602 for an unknown prompt or bad arguments."""
        if type(params) is not dict:
            raise McpError(INVALID_PARAMS, "prompts/get: params must be an object")
        name = params.get("name")
        if type(name) is not str:
            raise McpError(INVALID_PARAMS, "prompts/get: 'name' must be a string")
        entry = self.prompts.get(name)
        if entry is None:
            from mcpkit.server._revealed import find

            entry = find("prompts", name)  # hidden, but shown to this caller
            if entry is None:
                raise McpError(INVALID_PARAMS, f"Unknown prompt: {name}")
        arguments = params.get("arguments")
        if arguments is not None and (
            type(arguments) is not dict or not all(type(v) is str for v in arguments.values())
        ):
            raise McpError(INVALID_PARAMS, f"Prompt '{name}': arguments must be strings")
        try:
            kwargs = entry.signature.validate(arguments)
        except ArgumentsError as exc:
            raise McpError(
                INVALID_PARAMS, f"Invalid arguments for prompt '{name}': {exc}"
            ) from None
        takes_context = entry.signature.context_param is not None
        if takes_context:
            kwargs[entry.signature.context_param] = rctx.context()  # type: ignore[index]
        try:
            value = await rctx.call_user(entry.function, kwargs, rounds=takes_context)
        except (McpError, InputRequired):
            raise
        except Exception as exc:
            raise failure(rctx, f"Error rendering prompt '{name}'", exc) from exc
        if is_model(value) and hasattr(value, "messages"):
            return wire_dict(value, "result")
        if isinstance(value, dict) and "messages" in value:
            result = dict(value)
            result["messages"] = to_messages(value["messages"])
        else:
            try:
                result = {"messages": to_messages(value)}
            except TypeError as exc:
                raise McpError(INTERNAL_ERROR, f"Prompt '{name}': {exc}") from None
        if "description" not in result and "description" in entry.definition:
            result["description"] = entry.definition["description"]
        return result
