"""Tool transforms: a new tool made from an existing one.

```python
app.transform_tool(
    "search",
    name="find",
    description="Find documents.",
    args={"q": ArgTransform(name="query"), "limit": ArgTransform(hide=True, default=10)},
)
```

The new tool is an ordinary registered tool: its ``inputSchema`` is the original's with
hidden arguments removed, renamed ones renamed (``required`` and ``default`` updated), and
its arguments are validated against that schema before the original is called with the
original names (hidden arguments fixed to their value, or left to the original's default).
``wrap(arguments, call_next)`` runs around the call: it gets the arguments by the new
names, may change them before ``await call_next(arguments)``, and returns the
:class:`ToolResult` it got (or changed), or any value a tool may return. The original may
be a tool of this server, of a mounted one (by its mounted name) or, on a proxy, of its
upstream (made once the upstream's tools are listed: see :mod:`mcpkit.proxy.transforms`);
``keep_original=False``
unregisters a local original (the new tool still calls it). Nothing here runs for a tool
that is not a transform.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from mcpkit.errors import McpError
from mcpkit.jsonrpc import JSONObject
from mcpkit.server.context import Context
from mcpkit.server.errors import ToolError
from mcpkit.server.schema import ArgumentsError
from mcpkit.server.tools import error_result

if TYPE_CHECKING:
    from mcpkit.server.core import ServerCore as Server
    from mcpkit.server.tools import ToolEntry

__all__ = ["ArgTransform", "CallNext", "ToolResult", "Wrap", "transform_tool"]


class _Unset:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset()


@dataclass(frozen=True, slots=True)
class ArgTransform:
    """How one argument of the original tool appears in the new one.

    ``name``: its new name. ``description``: its new description. ``default``: the value
    used when the client leaves it out (it becomes optional). ``hide``: the client neither
    sees nor sends it: the original gets ``default`` when one is given, else its own
    default. ``required=True`` makes an optional argument required.
    """

    name: str | None = None
    description: str | None = None
    default: Any = UNSET
    hide: bool = False
    required: bool | None = None


class ToolResult(dict[str, Any]):
    """A ``CallToolResult`` as ``call_next`` returns it (a dict in wire form: ``content``,
    ``structuredContent``, ``isError``); a wrap returning one sends it as it is."""

    @property
    def is_error(self) -> bool:
        """True for an error result (``isError``)."""
        return bool(self.get("isError"))

    @property
    def structured(self) -> Any:
        """Its ``structuredContent`` (None without)."""
        return self.get("structuredContent")

    @property
    def text(self) -> str:
        """Its text content blocks joined."""
        return "".join(
            str(b.get("text", "")) for b in self.get("content", ()) if b.get("type") == "text"
        )


#: ``await call_next(arguments)``: the original tool called with the new tool's arguments.
CallNext = Callable[[dict[str, Any]], Awaitable[ToolResult]]
#: ``wrap(arguments, call_next)``, sync or async.
Wrap = Callable[[dict[str, Any], CallNext], Any]
#: Calls the original: (original-named arguments, the Context) -> result dict.
_Forward = Callable[[dict[str, Any], Context], Awaitable[JSONObject]]


def _auto_title(name: str) -> str:
    return name.replace("_", " ").title()


def _return_type(fn: Callable[..., Any]) -> Any:
    """The return annotation of ``fn`` when it says something (not Any or a ToolResult)."""
    try:
        returns = typing.get_type_hints(fn).get("return")
    except Exception:
        return None
    if returns is None or returns is Any or returns is ToolResult:
        return None
    return returns


def _new_schema(
    schema: Mapping[str, Any], args: Mapping[str, ArgTransform], tool: str
) -> tuple[dict[str, Any], dict[str, str], dict[str, Any], dict[str, Any]]:
    """The new input schema; new name -> original name; defaults by new name; fixed
    values by original name."""
    props: dict[str, Any] = dict(schema.get("properties") or {})
    required = list(schema.get("required") or ())
    unknown = set(args) - set(props)
    if unknown:
        raise ValueError(f"tool {tool!r} has no argument(s) {', '.join(sorted(unknown))}")
    new_props: dict[str, Any] = {}
    new_required: list[str] = []
    mapping: dict[str, str] = {}
    defaults: dict[str, Any] = {}
    fixed: dict[str, Any] = {}
    for original, prop in props.items():
        t = args.get(original, ArgTransform())
        if t.hide:
            if t.default is not UNSET:
                fixed[original] = t.default
            elif original in required:
                raise ValueError(
                    f"argument {original!r} of tool {tool!r} is required: hiding it needs a "
                    "default= (the value it is fixed to)"
                )
            continue
        new = t.name or original
        if new in new_props:
            raise ValueError(f"two arguments would be named {new!r}")
        prop = dict(prop) if isinstance(prop, Mapping) else prop
        if isinstance(prop, dict):
            if new != original and prop.get("title") == _auto_title(original):
                prop["title"] = _auto_title(new)
            if t.description is not None:
                prop["description"] = t.description
            if t.default is not UNSET:
                prop["default"] = t.default
        mapping[new] = original
        is_required = original in required and t.default is UNSET
        if t.required is not None:
            is_required = t.required
        if t.default is not UNSET and not is_required:
            defaults[new] = t.default
        if is_required:
            new_required.append(new)
        new_props[new] = prop
    out = {k: v for k, v in schema.items() if k not in ("properties", "required")}
    out["type"] = "object"
    out["properties"] = new_props
    if new_required:
        out["required"] = new_required
    return out, mapping, defaults, fixed


def _source(server: Server[Any], name: str) -> tuple[JSONObject, _Forward, ToolEntry | None]:
    """The original's definition and how to call it (its entry when it is local)."""
    upstream = getattr(server, "_transform_source", None)  # a proxy: an upstream tool
    found_upstream = upstream(name) if upstream is not None else None
    if found_upstream is not None:
        return typing.cast("tuple[JSONObject, _Forward, None]", found_upstream)
    entry = server.tools.tools.get(name)
    if entry is not None:
        registry = server.tools
        local = entry

        async def forward_local(arguments: dict[str, Any], ctx: Context) -> JSONObject:
            return await registry.run(local, arguments, ctx._request, ctx._rctx)

        return entry.definition, forward_local, entry
    from mcpkit.server.mount import _mounts

    mounts = _mounts(server)
    found = mounts.find("tool", name) if mounts is not None else None
    child_entry = found[0].server.tools.tools.get(found[1]) if found is not None else None
    if mounts is None or child_entry is None:
        raise ValueError(f"no tool named {name!r} to transform")
    definition = {**child_entry.definition, "name": name}
    served = mounts

    async def forward_mounted(arguments: dict[str, Any], ctx: Context) -> JSONObject:
        params: JSONObject = {"name": name, "arguments": arguments}
        return await served.call_tool(params, ctx._request)

    return definition, forward_mounted, None


def transform_tool(
    server: Server[Any],
    source: str,
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    args: Mapping[str, ArgTransform] | None = None,
    wrap: Wrap | None = None,
    keep_original: bool = True,
    **options: Any,
) -> ToolEntry:
    """Register a tool made from ``source`` (see the module docstring and
    :meth:`mcpkit.Server.transform_tool`); returns its entry."""
    definition, forward, local = _source(server, source)
    new_name = name or source
    if new_name == source and (keep_original or local is None):
        raise ValueError(f"the new tool needs a name of its own (name=...), not {source!r}")
    schema, mapping, defaults, fixed = _new_schema(
        definition.get("inputSchema") or {"type": "object"}, args or {}, source
    )
    originals = set((definition.get("inputSchema") or {}).get("properties") or ())

    def to_original(arguments: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in arguments.items():
            original = mapping.get(key)
            if original is not None:
                out[original] = value
            elif key not in originals:  # extras the schema allows, never a hidden name
                out[key] = value
        out.update(fixed)
        return out

    def with_defaults(arguments: dict[str, Any]) -> dict[str, Any]:
        if not defaults:
            return arguments
        return {**defaults, **arguments}

    own_output = False
    transformed: Callable[..., Awaitable[Any]]
    # A local original that takes no Context is called here, without a Context of ours
    # (which would cost an MRTR round on the 2026-07-28 wire); any other through its server.
    plain = local is not None and local.context_param is None and not local.limiter
    if plain:
        assert local is not None
        signature, function, workers = local.signature, local.function, server.workers
    if plain and wrap is None:  # its values are converted as the original converts them

        async def direct(arguments: dict[str, Any]) -> Any:
            kwargs = signature.validate(to_original(with_defaults(arguments)))
            return await function.call(workers, **kwargs)

        transformed = direct
    elif wrap is None:

        async def through(arguments: dict[str, Any], ctx: Context) -> Any:
            return ToolResult(await forward(to_original(with_defaults(arguments)), ctx))

        transformed = through
        if getattr(forward, "contextless", False):  # it finds its request on its own

            async def through_alone(arguments: dict[str, Any]) -> Any:
                mapped = to_original(with_defaults(arguments))
                return ToolResult(await forward(mapped, typing.cast("Context", None)))

            transformed = through_alone
    elif plain:
        assert local is not None
        user_wrap, original = wrap, local

        async def call_plain(arguments: dict[str, Any]) -> ToolResult:
            try:
                kwargs = signature.validate(to_original(with_defaults(dict(arguments))))
            except ArgumentsError as exc:
                return ToolResult(error_result(f"Invalid arguments for tool '{source}': {exc}"))
            try:
                value = await function.call(workers, **kwargs)
            except McpError:
                raise
            except ToolError as exc:
                return ToolResult(error_result(f"Error executing tool '{source}': {exc}"))
            except Exception as exc:
                if server.mask_errors:  # as a call of the original would answer
                    from mcpkit.server.masking import report

                    eid = report(f"Tool '{source}'", exc)
                    message = f"Error executing tool '{source}' (error id {eid})"
                else:
                    message = f"Error executing tool '{source}': {str(exc) or type(exc).__name__}"
                return ToolResult(error_result(message))
            return ToolResult(original.to_result(value))

        async def wrapped_direct(arguments: dict[str, Any]) -> Any:
            value = user_wrap(with_defaults(arguments), call_plain)
            if inspect.isawaitable(value):
                value = await value
            return value

        transformed = wrapped_direct
    else:
        user_wrap = wrap

        async def wrapped_through(arguments: dict[str, Any], ctx: Context) -> Any:
            async def call_next(arguments: dict[str, Any]) -> ToolResult:
                mapped = to_original(with_defaults(dict(arguments)))
                return ToolResult(await forward(mapped, ctx))

            value = user_wrap(with_defaults(arguments), call_next)
            if inspect.isawaitable(value):
                value = await value
            return value

        transformed = wrapped_through
        if getattr(forward, "contextless", False):  # it finds its request on its own

            async def wrapped_alone(arguments: dict[str, Any]) -> Any:
                async def call_next(arguments: dict[str, Any]) -> ToolResult:
                    mapped = to_original(with_defaults(dict(arguments)))
                    return ToolResult(await forward(mapped, typing.cast("Context", None)))

                value = user_wrap(with_defaults(arguments), call_next)
                if inspect.isawaitable(value):
                    value = await value
                return value

            transformed = wrapped_alone

    if wrap is not None:
        returns = _return_type(wrap)
        own_output = returns is not None
        if returns is not None:  # the wrap says what the tool returns: its output schema
            typing.cast("Any", transformed).__annotations__["return"] = returns
    own_output = own_output or "output_schema" in options
    description = description if description is not None else definition.get("description")
    title = title if title is not None else definition.get("title")
    annotations = options.pop("annotations", definition.get("annotations"))
    if not keep_original and local is not None:
        server.remove_tool(source)
    try:
        server.add_tool(
            transformed,
            name=new_name,
            title=title,
            description=description,
            input_schema=schema,
            annotations=annotations,
            **options,
        )
    except BaseException:
        if not keep_original and local is not None:  # put it back as it was
            server.tools.tools[source] = local
            server.tools._changed()
        raise
    entry = server.tools.tools[new_name]
    if plain and wrap is None:  # its values are the original's, converted as it does
        assert local is not None
        entry.output, entry.passthrough_type = local.output, local.passthrough_type
    else:
        entry.passthrough_type = ToolResult
    output_schema = definition.get("outputSchema")
    if output_schema is not None and not own_output:
        entry.definition["outputSchema"] = output_schema
        entry.output = local.output if local is not None else None
        server.tools._changed()
    return entry
