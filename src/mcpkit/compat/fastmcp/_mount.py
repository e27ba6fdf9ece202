"""fastmcp's namespacing of a mounted server: tools and prompts ``<namespace>_<name>``,
resources and templates ``<scheme>://<namespace>/<path>``, and a tool's generated title
following its namespaced name, served by mcpkit's mounting (:mod:`mcpkit.server.mount`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from mcpkit.errors import McpError
from mcpkit.server.mount import Kind, Mount

if TYPE_CHECKING:
    from mcpkit.jsonrpc import JSONObject
    from mcpkit.server.session import ServerRequestContext

__all__ = ["FastMount", "default_title"]

_URI = re.compile(r"^([^:]+://)(.*?)$", re.DOTALL)


def default_title(name: str) -> str:
    """fastmcp's title for a tool named ``name``: ``get_user-id`` -> ``Get User Id``."""
    return name.replace("_", " ").replace("-", " ").title()


class FastMount(Mount):
    """A mount named as fastmcp names it (see the module); ``renames`` are the tool names
    given by ``mount(..., tool_names={old: new})``, applied before the namespace."""

    #: The child's tool names served under other names (``{"forecast": "tomorrow"}``).
    renames: dict[str, str] = {}
    #: Their inverse.
    originals: dict[str, str] = {}

    @classmethod
    def renaming(cls, tool_names: dict[str, str] | None) -> type[FastMount]:
        """This class with ``tool_names`` as its renames (itself without any)."""
        if not tool_names:
            return cls
        renames = {str(k): str(v) for k, v in tool_names.items()}
        originals = {v: k for k, v in renames.items()}
        return type(cls.__name__, (cls,), {"renames": renames, "originals": originals})

    def has_tool(self, local: str) -> bool:
        """A renamed tool is there by its new name only."""
        if local in self.originals:
            return super().has_tool(self.originals[local])
        return local not in self.renames and super().has_tool(local)

    def uri(self, local: str) -> str:
        """``weather://forecast`` -> ``weather://<namespace>/forecast`` (a URI without
        ``://`` stays as it is)."""
        if not self.prefix:
            return local
        match = _URI.match(local)
        return f"{match[1]}{self.prefix}/{match[2]}" if match else local

    def local_uri(self, uri: str) -> str | None:
        """The child's URI behind ``uri`` (None: not in this namespace)."""
        if not self.prefix:
            return uri
        match = _URI.match(uri)
        if match is None:
            return uri
        head = f"{self.prefix}/"
        return f"{match[1]}{match[2][len(head) :]}" if match[2].startswith(head) else None

    async def call(self, method: str, params: JSONObject, rctx: ServerRequestContext) -> Any:
        """The child's answer, its words about a tool or prompt it does not have naming the
        parent's name (``Unknown tool: 'weather_nope'``), as fastmcp answers."""
        local = params.get("name")
        sent = local
        if method == "tools/call" and type(local) is str:
            if local in self.originals:
                sent = self.originals[local]
            elif local in self.renames:  # served by its new name only: no such tool
                sent = f"\x00{local}"
            params = {**params, "name": sent}
        try:
            result = await super().call(method, params, rctx)
        except McpError as exc:
            if type(local) is str and exc.message == f"Unknown prompt: {local!r}":
                raise McpError(
                    exc.code, f"Unknown prompt: {self.name(local)!r}", exc.data
                ) from None
            raise
        if method == "tools/call" and type(local) is str and type(result) is dict:
            content = result.get("content")
            if (
                result.get("isError")
                and type(content) is list
                and len(content) == 1
                and type(content[0]) is dict
                and content[0].get("text")
                in (f"Unknown tool: {sent!r}", f"Unknown tool: {local!r}")
            ):
                text = f"Unknown tool: {self.name(local)!r}"
                result = {**result, "content": [{**content[0], "text": text}]}
        return result

    async def list_all(self, kind: Kind, rctx: ServerRequestContext) -> list[JSONObject]:
        """The child's list in the parent's names; a tool's title made from its name is
        made from its namespaced name."""
        items = await super().list_all(kind, rctx)
        if kind == "tools" and (self.name_prefix or self.renames):
            for item in items:
                local = item["name"][len(self.name_prefix) :]
                name = self.name(self.renames.get(local, local))
                item["name"] = name
                if local in self.renames and type(item.get("inputSchema")) is dict:
                    item["inputSchema"] = _rebuilt(item["inputSchema"])
                if item.get("title") == default_title(local):
                    item["title"] = default_title(name)
        return items


def _rebuilt(schema: dict[str, Any]) -> dict[str, Any]:
    """A renamed tool's input schema as fastmcp's tool transform rebuilds it: its
    properties, their required names (always listed), no other properties, its ``$defs``."""
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    out: dict[str, Any] = {
        "type": "object",
        "properties": props,
        "required": [p for p in props if p in required],
        "additionalProperties": False,
    }
    if schema.get("$defs"):
        out["$defs"] = schema["$defs"]
    return out


def mount_args(
    args: tuple[Any, ...], options: dict[str, Any]
) -> tuple[Any, str | None, dict[str, str] | None]:
    """The server, namespace and tool renames of a ``mount`` call, in any of fastmcp's
    spellings: ``mount(server, namespace=..., tool_names=...)`` (4.x),
    ``mount(server, prefix=...)`` and ``mount(prefix, server)`` (2.x)."""
    options = dict(options)
    server = options.pop("server", None)
    namespace = options.pop("namespace", None)
    prefix = options.pop("prefix", None)
    tool_names = options.pop("tool_names", None)
    if tool_names is not None and not isinstance(tool_names, dict):
        raise TypeError("mount(): tool_names maps tool names to new names")
    rest = list(args)
    if rest and isinstance(rest[0], str):  # 2.x: mount(prefix, server)
        prefix = rest.pop(0)
    if server is None and rest:
        server = rest.pop(0)
    if rest and namespace is None:
        namespace = rest.pop(0)
    if rest and tool_names is None and isinstance(rest[0], dict):
        tool_names = rest.pop(0)
    if rest:
        raise TypeError("mount() takes a server and a namespace")
    unknown = set(options) - {"as_proxy"}
    if unknown:
        raise TypeError(f"mount() got unexpected keyword arguments: {', '.join(sorted(unknown))}")
    if server is None:
        raise TypeError("mount() needs the server to mount")
    return server, namespace if namespace is not None else prefix, tool_names
