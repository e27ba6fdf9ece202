"""What both compat layers share: handing a handler the compat ``Context`` it asked for, and
turning a tool's return value into content the way the official SDK's high-level server does.

A handler whose parameter is annotated with a compat context class is registered on the
native :class:`~mcpkit.Server` through a wrapper whose signature names the native
:class:`~mcpkit.Context` instead (so the native registry leaves it out of the schema and
injects it); the wrapper builds the compat context around it. Handlers without one are
registered as they are.
"""

from __future__ import annotations

import functools
import inspect
import sys
import types
import typing
from collections.abc import Callable
from typing import Any, get_args, get_origin

import pydantic_core

from mcpkit._defaults import DEFAULT
from mcpkit._models import is_model, is_model_class
from mcpkit.errors import McpError
from mcpkit.server.content import _Media, content_block
from mcpkit.server.context import Context as NativeContext
from mcpkit.server.errors import ClientCapabilityError
from mcpkit.server.mrtr import InputRequired
from mcpkit.server.tools import ToolEntry, ToolRegistry, error_result

__all__ = [
    "CompatToolEntry",
    "ToolFailure",
    "adapt",
    "answer_unknown_tools",
    "compact_json_text",
    "failures_as_results",
    "official_content",
    "official_schemas",
    "resolved_hints",
    "to_json_text",
]

ContextFactory = Callable[[NativeContext], Any]


def _is(hint: Any, cls: type) -> bool:
    if isinstance(hint, type):
        return issubclass(hint, cls)
    origin = get_origin(hint)
    if isinstance(origin, type) and issubclass(origin, cls):
        return True
    if origin is typing.Annotated:
        return _is(get_args(hint)[0], cls)
    if origin is typing.Union or origin is types.UnionType:
        args = [a for a in get_args(hint) if a is not type(None)]
        return len(args) == 1 and _is(args[0], cls)
    return False


def resolved_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """``fn``'s annotations evaluated in its own module (string annotations included)."""
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except Exception:
        return dict(getattr(fn, "__annotations__", {}))


def context_parameter(fn: Callable[..., Any], context_cls: type) -> str | None:
    """The name of ``fn``'s parameter annotated ``context_cls`` (or a subscript of it)."""
    hints = resolved_hints(fn)
    for name in inspect.signature(fn).parameters:
        if name in hints and _is(hints[name], context_cls):
            return name
    return None


def adapt(
    fn: Callable[..., Any],
    context_cls: type,
    make_context: ContextFactory,
    *,
    around: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None,
) -> Callable[..., Any]:
    """``fn`` ready for the native registry: its ``context_cls`` parameter, if any, receives
    ``make_context(native_ctx)``; ``around`` (when given) wraps the call itself."""
    name = context_parameter(fn, context_cls)
    if name is None and around is None:
        return fn
    hints = resolved_hints(fn)
    sig = inspect.signature(fn)
    params = []
    for pname, param in sig.parameters.items():
        annotation = NativeContext if pname == name else hints.get(pname, param.annotation)
        params.append(param.replace(annotation=annotation))
    call = around(fn) if around is not None else fn
    if inspect.iscoroutinefunction(fn):

        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            if name is not None:
                kwargs[name] = make_context(kwargs[name])
            return await call(*args, **kwargs)

    else:

        def wrapper(*args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
            if name is not None:
                kwargs[name] = make_context(kwargs[name])
            return call(*args, **kwargs)

    functools.update_wrapper(wrapper, fn)
    del wrapper.__wrapped__  # type: ignore[attr-defined]  # the signature below is the one
    wrapper.__compat_original__ = fn  # type: ignore[attr-defined]  # what the server wrote
    returns = hints.get("return", sig.return_annotation)
    wrapper.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=params, return_annotation=returns
    )
    annotations = {p.name: p.annotation for p in params if p.annotation is not p.empty}
    if returns is not sig.empty:
        annotations["return"] = returns
    wrapper.__annotations__ = annotations
    return wrapper


def to_json_text(value: Any) -> str:
    """JSON text the way the official SDK writes a non-string value: indented by two."""
    return pydantic_core.to_json(value, fallback=str, indent=2).decode()


def compact_json_text(value: Any) -> str:
    """JSON text without spaces (fastmcp's form)."""
    return pydantic_core.to_json(value, fallback=str).decode()


def official_content(value: Any, serialize: Callable[[Any], str] = to_json_text) -> list[Any]:
    """Content blocks for a tool's return value by the official SDK's rules: None is no
    content, a list or tuple is flattened, strings, images, audio and content models are
    content, anything else is ``serialize(value)`` (indented JSON) as text."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [block for item in value for block in official_content(item, serialize)]
    if isinstance(value, (str, _Media)) or (is_model(value) and _is_content_model(value)):
        block = content_block(value)
        if block is not None:
            return [block]
    return [{"type": "text", "text": serialize(value)}]


def _is_content_model(value: Any) -> bool:
    from mcpkit.server.content import content_types

    return isinstance(value, content_types())


class ToolFailure:
    """What a wrapped tool returns when it raised: the text of the error result."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


#: What a tool's exception must not turn into an error result: the protocol's own signals.
PASS_THROUGH = (McpError, InputRequired, ClientCapabilityError)


def _media_read(value: Any) -> Any:
    """``value``, the bytes of a media file in it (or in a list or tuple of it) read."""
    if isinstance(value, _Media):
        _ = value.data
    elif type(value) in (list, tuple):
        for item in value:
            if isinstance(item, _Media):
                _ = item.data
    return value


def raising_as(
    failed: Callable[[Exception], Exception],
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A wrapper for a function (sync or async): an exception it raises is raised again as
    the one ``failed`` makes of it (chained; ``failed`` may hand the same one back)."""

    def around(fn: Callable[..., Any]) -> Callable[..., Any]:
        if inspect.iscoroutinefunction(fn):

            async def acall(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await fn(*args, **kwargs)
                except Exception as exc:
                    raise failed(exc) from exc

            return acall

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                raise failed(exc) from exc

        return call

    return around


def failures_as_results(
    failure: Callable[[Exception], ToolFailure],
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A wrapper for a tool function (sync or async): an exception it raises becomes the
    error result ``failure`` makes of it, except the protocol's own signals
    (:data:`PASS_THROUGH`), which propagate. An ``Image`` or ``Audio`` of a file it returns
    is read there too (the SDKs convert the result inside the tool's error handling, so a
    missing file is the tool's error)."""

    def around(fn: Callable[..., Any]) -> Callable[..., Any]:
        if inspect.iscoroutinefunction(fn):

            async def acall(*args: Any, **kwargs: Any) -> Any:
                try:
                    return _media_read(await fn(*args, **kwargs))
                except PASS_THROUGH:
                    raise
                except Exception as exc:
                    return failure(exc)

            return acall

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return _media_read(fn(*args, **kwargs))
            except PASS_THROUGH:
                raise
            except Exception as exc:
                return failure(exc)

        return call

    return around


class _UnknownAsResult(ToolRegistry):
    """A tool registry whose ``tools/call`` naming no tool answers an error result (the
    text :attr:`unknown_text` makes of the name) instead of the JSON-RPC error -32602."""

    unknown_text: Callable[[str], str]
    #: Another name a called name stands for (fastmcp's ``__<hash>_<name>`` identity
    #: addresses of app tools), None when it stands for none; unset: names are as called.
    aliases: Callable[[str], str | None] | None = None
    #: Tools called by their identity address alone, listed under no name (an app tool
    #: whose name an earlier tool of the server took), by address; unset: none.
    unlisted: dict[str, ToolEntry] | None = None

    def lookup(self, params: Any) -> ToolEntry:
        """The tool a ``tools/call`` names, an unlisted one by its address included."""
        try:
            return super().lookup(params)
        except McpError:
            unlisted = self.unlisted
            name = params.get("name") if type(params) is dict else None
            found = unlisted.get(name) if unlisted and type(name) is str else None
            if found is None:
                raise
            return found

    def _addressed(self, params: Any) -> Any:
        """``params`` naming the tool an alias stands for."""
        aliases = self.aliases
        if aliases is not None and type(params) is dict:
            name = params.get("name")
            if type(name) is str and name not in self.tools:
                target = aliases(name)
                if target is not None:
                    return {**params, "name": target}
        return params

    def unknown_result(self, name: str) -> dict[str, Any]:
        """The error result for a call of ``name``, a tool this caller may not see (the
        scope rules of :mod:`mcpkit.server.scopes` answer with it)."""
        return error_result(self.unknown_text(name))

    def _unknown(self, params: Any) -> dict[str, Any] | None:
        """The error result for a call naming no tool (None: the tool is there)."""
        if type(params) is dict:
            name = params.get("name")
            if type(name) is str and name not in self.tools:
                try:
                    self.lookup(params)  # a hidden tool shown to this caller is found
                except McpError:
                    return error_result(self.unknown_text(name))
        return None

    async def call_tool(self, params: Any, rctx: Any) -> Any:
        """``tools/call`` (also as a parent's own tools are called beside its mounts)."""
        params = self._addressed(params)
        unknown = self._unknown(params)
        return unknown if unknown is not None else await super().call_tool(params, rctx)

    async def call_tool_timed(self, params: Any, rctx: Any) -> Any:
        """``tools/call`` of a registry with tool timeouts."""
        params = self._addressed(params)
        unknown = self._unknown(params)
        return unknown if unknown is not None else await super().call_tool_timed(params, rctx)


def answer_unknown_tools(registry: ToolRegistry, text: Callable[[str], str]) -> None:
    """Make ``registry`` answer a call of a tool it does not have with an error result
    reading ``text(name)``, as the official SDK's 1.x ``FastMCP`` and fastmcp do."""
    registry.__class__ = _UnknownAsResult
    typing.cast(_UnknownAsResult, registry).unknown_text = text


class CompatToolEntry(ToolEntry):
    """A native tool whose return value becomes content by the official SDK's rules (the
    structured part, its schema and its validation stay the native ones)."""

    __slots__ = ()

    def invalid_arguments(self, error: Any, arguments: Any) -> str:
        """Refused arguments as the official SDK words them: ``Error executing tool <name>:``
        and pydantic's report."""
        return f"Error executing tool {self.name}: {error}"

    def to_result(self, value: Any) -> dict[str, Any]:
        """The ``CallToolResult`` dict for a return value (``isError`` sent even when false,
        as the SDKs' models dump it)."""
        if isinstance(value, ToolFailure):
            return error_result(value.text)
        if self.returned_as_is(value):
            result = super().to_result(value)
        elif self.output is None:
            result = {"content": official_content(value)}
        else:
            result = super().to_result(value)
            if "structuredContent" in result:
                result["content"] = official_content(value)
        result.setdefault("isError", False)
        return result

    def returned_as_is(self, value: Any) -> bool:
        """True for a ``CallToolResult`` (sent as it is)."""
        pt = self.passthrough_type
        if pt is None and is_model(value):  # mcpkit.types was imported after registration
            pt = self.passthrough_type = getattr(
                sys.modules.get("mcpkit.types"), "CallToolResult", None
            )
        return pt is not None and isinstance(value, pt)


def official_schemas(entry: ToolEntry, fn: Callable[..., Any]) -> None:
    """Advertise ``entry``'s schemas as the official SDK names them: the input schema titled
    ``<function>Arguments`` (extra arguments not ruled out), a wrapped output
    ``<function>Output`` with a ``Result`` property, a dict output ``<function>DictOutput``.
    Only the advertised text changes; validation stays the native one."""
    fname = getattr(fn, "__name__", entry.name)
    schema = dict(entry.definition["inputSchema"])
    if schema.get("additionalProperties") is False:
        del schema["additionalProperties"]
    schema.setdefault("properties", {})
    # Keys sorted as pydantic generates them (2.x reorders them per revision on the wire).
    entry.definition["inputSchema"] = _sorted({**schema, "title": f"{fname}Arguments"})
    output = entry.output
    if output is None or "outputSchema" not in entry.definition:
        return
    out = dict(entry.definition["outputSchema"])
    if output.wrap:
        props = dict(out.get("properties", {}))
        if isinstance(props.get("result"), dict):
            props["result"] = {"title": "Result", **props["result"]}
        out["properties"] = props
        out["title"] = f"{fname}Output"
    elif get_origin(resolved_hints(fn).get("return")) is dict:
        out["title"] = f"{fname}DictOutput"
    entry.definition["outputSchema"] = _sorted(out)


def _sorted(schema: dict[str, Any]) -> dict[str, Any]:
    return {key: schema[key] for key in sorted(schema)}


_PLAIN_SKIP = (str, int, float, bool, bytes, type(None), dict, list, tuple, set, frozenset)


def plain_class_model(returns: Any) -> Any:
    """For a return annotation naming an ordinary class with annotations (not a pydantic
    model, TypedDict, dataclass or builtin), the pydantic model the official SDK makes of
    it (its annotated attributes, read from the value's attributes); else None."""
    import dataclasses

    if not isinstance(returns, type) or returns in _PLAIN_SKIP or is_model_class(returns):
        return None
    if dataclasses.is_dataclass(returns) or typing.is_typeddict(returns):
        return None
    if issubclass(returns, (_Media, BaseException)) or _is_content_class(returns):
        return None
    try:
        hints = typing.get_type_hints(returns)
    except Exception:
        return None
    if not hints:
        return None
    from pydantic import ConfigDict, create_model

    fields: dict[str, Any] = {}
    for field, tp in hints.items():
        if field.startswith("_"):
            continue
        default = getattr(returns, field, DEFAULT)
        fields[field] = tp if default is DEFAULT else (tp, default)
    return create_model(returns.__name__, __config__=ConfigDict(from_attributes=True), **fields)


def no_structured_output(returns: Any) -> bool:
    """True for the return annotations the official SDK makes no output schema of: a bare
    ``dict`` and an ordinary class without annotations."""
    import dataclasses

    if returns is dict:
        return True
    if not isinstance(returns, type) or returns in _PLAIN_SKIP or is_model_class(returns):
        return False
    if dataclasses.is_dataclass(returns) or typing.is_typeddict(returns):
        return False
    if issubclass(returns, _Media) or _is_content_class(returns):
        return False
    try:
        return not typing.get_type_hints(returns)
    except Exception:
        return True


def _is_content_class(cls: type) -> bool:
    from mcpkit.server.content import content_types

    return issubclass(cls, content_types())


def structured_by_model(entry: ToolEntry, model: Any) -> None:
    """Give ``entry`` the structured output of ``model`` (values read by attribute)."""
    from pydantic import TypeAdapter

    from mcpkit.server.schema import OutputSpec

    adapter: Any = TypeAdapter(model)
    schema = adapter.json_schema(mode="serialization")

    def convert(value: Any) -> Any:
        return adapter.dump_python(adapter.validate_python(value), mode="json")

    entry.output = OutputSpec(schema, convert, wrap=False)
    entry.definition["outputSchema"] = schema


def is_typing_dict(returns: Any) -> bool:
    """True for ``typing.Dict[...]`` (which the official SDK wraps as ``{"result": ...}``,
    unlike ``dict[str, ...]``)."""
    return (
        get_origin(returns) is dict
        and not isinstance(returns, types.GenericAlias)
        and returns is not dict
    )


def wrap_output(entry: ToolEntry) -> None:
    """``entry``'s structured output wrapped as ``{"result": ...}``."""
    from mcpkit.server.schema import OutputSpec

    output = entry.output
    if output is None or output.wrap:
        return
    inner = dict(output.schema)
    defs = inner.pop("$defs", None)
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"result": inner},
        "required": ["result"],
    }
    if defs:
        schema["$defs"] = defs
    entry.output = OutputSpec(schema, output.convert, wrap=True)
    entry.definition["outputSchema"] = schema
