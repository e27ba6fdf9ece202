"""fastmcp's ``FastMCPApp``: an MCP App as a provider, its entry-point tools (``@app.ui``,
shown to the model, rendered by the Prefab renderer) and its backend tools (``@app.tool``,
called by the UI), each tagged with the app's name and its identity hash
(``_meta.fastmcp.app``, ``_meta.fastmcp.tool_hash``) as fastmcp lists them."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from mcpkit.compat.fastmcp.apps.config import PREFAB_PLACEHOLDER_URI

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp._server import FastMCP

__all__ = ["FastMCPApp", "hash_tool", "hashed_name"]

#: The length of a tool's identity hash.
HASH_LENGTH = 12
_HEX = frozenset("0123456789abcdef")


def hash_tool(app_name: str, tool_name: str) -> str:
    """The identity hash of tool ``tool_name`` of app ``app_name``."""
    return hashlib.sha256(f"{app_name}\x00{tool_name}".encode()).hexdigest()[:HASH_LENGTH]


def hashed_name(app_name: str, tool_name: str) -> str:
    """The identity address of a tool (``__<hash>_<name>``)."""
    return f"__{hash_tool(app_name, tool_name)}_{tool_name}"


def parse_hashed_name(name: str) -> tuple[str, str] | None:
    """``(hash, name)`` of an identity address, None for any other name."""
    if not name.startswith("__") or len(name) <= HASH_LENGTH + 3:
        return None
    digest, sep, local = name[2 : 2 + HASH_LENGTH], name[2 + HASH_LENGTH], name[3 + HASH_LENGTH :]
    if sep != "_" or not set(digest) <= _HEX:
        return None
    return digest, local


def _check_name(name: str) -> None:
    if parse_hashed_name(name) is not None:
        raise ValueError(
            f"Tool name {name!r} is reserved for generated tool addresses "
            "(__<12 lowercase hex>_<name>). Choose a different tool name."
        )


class FastMCPApp:
    """An MCP App served by the servers it is added to (``FastMCP(providers=[app])`` or
    ``add_provider(app)``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._tools: list[tuple[Callable[..., Any], str, dict[str, Any]]] = []
        self._servers: list[FastMCP] = []

    def __repr__(self) -> str:
        return f"FastMCPApp({self.name!r})"

    def _register(
        self, fn: Callable[..., Any], name: str | None, ui: dict[str, Any], **options: Any
    ) -> None:
        resolved = name or getattr(fn, "__name__", None)
        if resolved is None:
            raise ValueError(f"Cannot determine tool name for {fn!r}")
        _check_name(resolved)
        if any(known == resolved for _, known, _ in self._tools):
            raise ValueError(f"Tool already exists: {resolved}")
        meta = {"fastmcp": {"app": self.name, "tool_hash": hash_tool(self.name, resolved)}}
        entry = (fn, resolved, {**options, "meta": meta, "app": ui})
        self._tools.append(entry)
        for server in self._servers:
            self._install_one(server, entry)

    def _dispatch(
        self, name_or_fn: Any, name: str | None, register: Callable[[Any, str | None], Any]
    ) -> Any:
        if callable(name_or_fn):
            register(name_or_fn, name)
            return name_or_fn
        if isinstance(name_or_fn, str) and name is not None:
            raise TypeError("Cannot specify both a name as first argument and as keyword")
        given = name_or_fn if isinstance(name_or_fn, str) else name

        def decorator(fn: Any) -> Any:
            register(fn, given)
            return fn

        return decorator

    def tool(
        self,
        name_or_fn: Any = None,
        *,
        name: str | None = None,
        description: str | None = None,
        model: bool = False,
        auth: Any = None,
        timeout: float | None = None,
    ) -> Any:
        """Register a backend tool the UI calls (``visibility=["app"]``; ``model=True``:
        ``["app", "model"]``)."""
        visibility: list[Literal["app", "model"]] = ["app", "model"] if model else ["app"]
        return self._dispatch(
            name_or_fn,
            name,
            lambda fn, n: self._register(
                fn, n, {"visibility": visibility}, description=description, auth=auth
            ),
        )

    def ui(
        self,
        name_or_fn: Any = None,
        *,
        name: str | None = None,
        description: str | None = None,
        title: str | None = None,
        tags: set[str] | None = None,
        icons: list[Any] | None = None,
        annotations: Any = None,
        auth: Any = None,
        timeout: float | None = None,
    ) -> Any:
        """Register an entry-point tool the model calls to open the app
        (``visibility=["model"]``, rendered by the Prefab renderer)."""
        ui = {"resourceUri": PREFAB_PLACEHOLDER_URI, "visibility": ["model"]}
        options = {
            "description": description,
            "title": title,
            "tags": tags,
            "icons": icons,
            "annotations": annotations,
            "auth": auth,
        }
        return self._dispatch(name_or_fn, name, lambda fn, n: self._register(fn, n, ui, **options))

    def add_tool(self, tool: Any) -> Any:
        """Add a function (or a ``fastmcp.tools.FunctionTool``) as a backend tool of the
        app (``visibility=["app"]`` unless its ``meta`` names one)."""
        from mcpkit.compat.fastmcp.tools import FunctionTool

        options: dict[str, Any] = {}
        name: str | None = None
        if isinstance(tool, FunctionTool):
            options = {
                k: v for k, v in tool.options.items() if k in ("description", "title", "tags")
            }
            name, tool = tool.name, tool.fn
        self._register(tool, name, {"visibility": ["app"]}, **options)
        return tool

    # -- serving ----------------------------------------------------------------------------

    def install(self, server: FastMCP) -> None:
        """Serve the app's tools on ``server`` (and those registered later)."""
        self._servers.append(server)
        for entry in self._tools:
            self._install_one(server, entry)

    def _install_one(
        self, server: FastMCP, entry: tuple[Callable[..., Any], str, dict[str, Any]]
    ) -> None:
        fn, name, options = entry
        from mcpkit.compat.fastmcp.apps._prefab import APP_TOOLS, SHARED_NAMES

        tools = server.native.tools
        if name not in tools.tools:
            APP_TOOLS[hash_tool(self.name, name)] = name
            server._add_tool(fn, name, **options)
            return
        # The server lists an earlier tool under this name (another app's, as two
        # ``FormInput``s both have ``submit_form``): this one is reached by its identity
        # address alone, as fastmcp routes it, and its UI references name that address.
        address = hashed_name(self.name, name)
        earlier = tools.tools[name].definition.get("_meta", {}).get("fastmcp", {})
        if "tool_hash" in earlier:
            SHARED_NAMES.add(earlier["tool_hash"])
        server._add_tool(fn, address, **options)
        unlisted = tools.tools[address]
        server.native.registration.remove_tool(address)
        table = getattr(tools, "unlisted", None)
        if table is None:
            table = {}
            tools.unlisted = table  # type: ignore[attr-defined]
        table[address] = unlisted

    def run(self, transport: str | None = None, **kwargs: Any) -> None:
        """Serve the app alone, on a server of its name."""
        from mcpkit.compat.fastmcp._server import FastMCP

        server = FastMCP(self.name)
        server.add_provider(self)
        server.run(transport, **kwargs)
