"""MCP Apps on the client: declare the extension, find the apps of tools, fetch an app's
HTML with what its sandbox needs, and apply the host's visibility rules.

```python
from mcpkit import Client
from mcpkit.client.apps import APPS_EXTENSION, list_tool_apps, model_tools, read_app

async with Client("python weather.py", extensions=APPS_EXTENSION) as client:
    for app in await list_tool_apps(client):        # tools with a ui:// resource
        view = await read_app(client, app.resource_uri)
        view.html, view.csp_header(), view.allow_attribute()
    tools_for_the_model = model_tools(await client.list_tools())
```

A server shows app-only tools (``visibility: ["app"]``) only to a client that declared the
extension; such a client, as a host, keeps them out of the model's tool list
(:func:`model_tools`) and lets an app call only tools whose visibility includes ``"app"``
(:func:`call_tool_for_app`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from mcpkit.apps import (
    EXTENSION_ID,
    MIME_TYPE,
    Csp,
    Permissions,
    ToolUi,
    UiResourceMeta,
    Visibility,
    client_settings,
)
from mcpkit.errors import McpkitError

if TYPE_CHECKING:
    from mcpkit.client.client import Client
    from mcpkit.types import CallToolResult, Tool

__all__ = [
    "APPS_EXTENSION",
    "AppToolRefused",
    "AppView",
    "NotAnApp",
    "ToolApp",
    "call_tool_for_app",
    "list_tool_apps",
    "model_tools",
    "read_app",
    "tool_ui",
]

#: What ``Client(extensions=...)`` takes to declare MCP Apps (both eras).
APPS_EXTENSION: Final[Mapping[str, Mapping[str, Any]]] = {EXTENSION_ID: client_settings()}


class NotAnApp(McpkitError, ValueError):
    """The resource read is not an app (not ``ui://``, not ``text/html;profile=mcp-app``,
    or not text)."""


class AppToolRefused(McpkitError, ValueError):
    """An app asked to call a tool whose visibility does not include ``"app"``."""


def tool_ui(tool: Tool) -> ToolUi | None:
    """The UI of ``tool`` (``_meta.ui``, or the flat ``ui/resourceUri``), None without one."""
    return ToolUi.from_tool_meta(tool.meta)


@dataclass(frozen=True)
class ToolApp:
    """A tool with a UI: the tool and its ``_meta.ui``."""

    tool: Tool
    ui: ToolUi

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.tool.name

    @property
    def resource_uri(self) -> str | None:
        """The ``ui://`` resource that renders its results (None for an app-callable tool
        without one)."""
        return self.ui.resource_uri

    @property
    def visibility(self) -> tuple[Visibility, ...]:
        """Who may call it: ``"model"`` and/or ``"app"``."""
        return self.ui.visibility

    @property
    def model_visible(self) -> bool:
        """True when it belongs in the model's tool list."""
        return self.ui.model_visible

    @property
    def app_callable(self) -> bool:
        """True when an app of this server may call it."""
        return self.ui.app_callable


async def list_tool_apps(client: Client) -> list[ToolApp]:
    """The server's tools that have a UI (``_meta.ui``), in listing order."""
    out = []
    for tool in await client.list_tools():
        ui = tool_ui(tool)
        if ui is not None:
            out.append(ToolApp(tool, ui))
    return out


def model_tools(tools: Iterable[Tool]) -> list[Tool]:
    """The tools a host gives the model: all but those whose visibility lacks ``"model"``."""
    return [t for t in tools if (ui := tool_ui(t)) is None or ui.model_visible]


@dataclass(frozen=True)
class AppView:
    """An app's document, ready for a sandboxed iframe."""

    uri: str
    html: str
    mime_type: str
    #: The resource's ``_meta.ui`` (from the read contents, else its resources/list entry).
    meta: UiResourceMeta

    @property
    def csp(self) -> Csp:
        """The origins it may reach."""
        return self.meta.csp

    @property
    def permissions(self) -> Permissions:
        """The browser features it asks for."""
        return self.meta.permissions

    @property
    def domain(self) -> str | None:
        """The dedicated sandbox origin it asks for, if any."""
        return self.meta.domain

    @property
    def prefers_border(self) -> bool | None:
        """Its border preference (None: the host decides)."""
        return self.meta.prefers_border

    def csp_header(self) -> str:
        """The Content-Security-Policy to serve its document with."""
        return self.meta.csp.header()

    def allow_attribute(self) -> str:
        """The iframe ``allow`` attribute for its permissions."""
        return self.meta.permissions.allow_attribute()


async def read_app(client: Client, uri: str) -> AppView:
    """``resources/read`` an app: its HTML (text, or a base64 blob of UTF-8) and its
    ``_meta.ui``; :class:`NotAnApp` when ``uri`` is not ``ui://`` or what comes back is
    not ``text/html;profile=mcp-app``."""
    if not uri.startswith("ui://"):
        raise NotAnApp(f"{uri} is not an app: app resources use the ui:// scheme")
    result = await client.read_resource(uri)
    item = next((c for c in result.contents if c.uri == uri), None)
    if item is None and result.contents:
        item = result.contents[0]
    if item is None:
        raise NotAnApp(f"{uri}: the server returned no contents")
    if item.mime_type != MIME_TYPE:
        raise NotAnApp(f"{uri} is served as {item.mime_type!r}, not {MIME_TYPE!r}")
    text = getattr(item, "text", None)
    if text is None:
        try:
            text = base64.b64decode(getattr(item, "blob", ""), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise NotAnApp(f"{uri}: the blob is not base64 of UTF-8 HTML ({exc})") from None
    ui = (item.meta or {}).get("ui")
    if not isinstance(ui, Mapping):
        ui = await _listed_ui(client, uri)
    return AppView(uri, text, item.mime_type, UiResourceMeta.from_wire(ui))


async def _listed_ui(client: Client, uri: str) -> Any:
    for resource in await client.list_resources():
        if resource.uri == uri:
            return (resource.meta or {}).get("ui")
    return None


async def call_tool_for_app(
    client: Client, name: str, arguments: Mapping[str, Any] | None = None, **options: Any
) -> CallToolResult:
    """``tools/call`` on behalf of an app: :class:`AppToolRefused` unless the tool's
    visibility includes ``"app"`` (the host's rule); ``options`` go to
    :meth:`Client.call_tool`."""
    tool = next((t for t in await client.list_tools() if t.name == name), None)
    if tool is None:
        raise AppToolRefused(f"An app asked for the tool {name!r}, which the server does not list")
    ui = tool_ui(tool)
    if ui is not None and not ui.app_callable:
        raise AppToolRefused(
            f"An app may not call {name!r}: its visibility is {list(ui.visibility)} (no 'app')"
        )
    return await client.call_tool(name, dict(arguments) if arguments else None, **options)
