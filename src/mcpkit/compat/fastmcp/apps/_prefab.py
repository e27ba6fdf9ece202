"""Prefab UI on compat's fastmcp: which tools render with the Prefab renderer, the
renderer resource they share (its URI derived from prefab-ui's version, delivery mode and
the resource's ``_meta.ui``, as fastmcp derives it) and a Prefab value as a tool result
(``structuredContent`` the Prefab JSON, the text ``[Rendered Prefab UI]``)."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import types
from dataclasses import dataclass
from typing import Annotated, Any, Union, cast, get_args, get_origin

from mcpkit.compat.fastmcp.apps.config import (
    PREFAB_PLACEHOLDER_URI,
    UI_MIME_TYPE,
    AppConfig,
    ResourceCSP,
    ResourcePermissions,
    app_config_to_meta_dict,
    merge_domains,
)

__all__ = [
    "APP_TOOLS",
    "TEXT_FALLBACK",
    "Renderer",
    "app_tool_named",
    "is_prefab_type",
    "is_prefab_value",
    "prefab_result",
    "renderer_for",
    "tool_ui",
]

#: The text content fastmcp sends beside a Prefab UI.
TEXT_FALLBACK = "[Rendered Prefab UI]"
#: The ``_meta.ui`` fields that belong to the renderer resource, not the tool.
_RESOURCE_FIELDS = ("csp", "permissions", "domain", "prefersBorder")
_CSP_FIELDS = (
    ("connect_domains", "connectDomains"),
    ("resource_domains", "resourceDomains"),
    ("frame_domains", "frameDomains"),
    ("base_uri_domains", "baseUriDomains"),
)


def _prefab_types() -> tuple[type[Any], type[Any]] | None:
    """``(PrefabApp, Component)``, or None when prefab-ui is not loaded."""
    if "prefab_ui" not in sys.modules:
        return None
    from prefab_ui.app import PrefabApp
    from prefab_ui.components.base import Component

    return PrefabApp, Component


def is_prefab_type(annotation: Any) -> bool:
    """True for a Prefab app or component type, also inside a union or ``Annotated``."""
    kinds = _prefab_types()
    if kinds is None:
        return False
    if isinstance(annotation, type):
        return issubclass(annotation, kinds)
    if get_origin(annotation) in (Union, types.UnionType, Annotated):
        return any(is_prefab_type(a) for a in get_args(annotation))
    return False


def is_prefab_value(value: Any) -> bool:
    """True for a Prefab app or component."""
    kinds = _prefab_types()
    return kinds is not None and isinstance(value, kinds)


#: The tools of the ``FastMCPApp``s served in this process: identity hash -> listed name.
APP_TOOLS: dict[str, str] = {}
#: The identity hashes of app tools whose name another app's tool also has: a UI refers
#: to them by their address, never by the shared name (as fastmcp resolves them).
SHARED_NAMES: set[str] = set()


def app_tool_named(address: str) -> str | None:
    """The listed name of the app tool an identity address (``__<hash>_<name>``) names,
    None for any other name."""
    if not address.startswith("__"):
        return None
    from mcpkit.compat.fastmcp.apps.app import parse_hashed_name

    parsed = parse_hashed_name(address)
    if parsed is None or APP_TOOLS.get(parsed[0]) != parsed[1]:
        return None
    return parsed[1]


def _referenced(fn: Any) -> str:
    """The name a ``CallTool`` target (a tool's name or function) refers to."""
    if isinstance(fn, str):
        return fn
    name = getattr(fn, "__name__", None)
    if name is None:
        raise ValueError(f"Cannot resolve tool reference: {fn!r}")
    return str(name)


def prefab_json(value: Any, app_name: str | None = None) -> dict[str, Any]:
    """The wire JSON of a Prefab app or component (a component wrapped in an app). In an
    app's tool, a reference to a tool of the app is its listed name, the identity address
    behind each in ``_meta.fastmcp.toolNames`` (as fastmcp addresses them)."""
    from prefab_ui.app import PrefabApp, ResolvedTool

    from mcpkit.compat.fastmcp.apps.app import hashed_name, parse_hashed_name

    addresses: dict[str, str] = {}

    def resolve(fn: Any) -> Any:
        name = _referenced(fn)
        if not app_name:
            return ResolvedTool(name=name)
        address = name if parse_hashed_name(name) is not None else hashed_name(app_name, name)
        parsed = parse_hashed_name(address)
        listed = (
            APP_TOOLS.get(parsed[0])
            if parsed is not None and parsed[0] not in SHARED_NAMES
            else None
        )
        addresses[listed or address] = address
        return ResolvedTool(name=listed or address)

    app = value if isinstance(value, PrefabApp) else PrefabApp(view=value)
    data: dict[str, Any] = app.to_json(tool_resolver=resolve)
    if addresses:
        meta = data.setdefault("_meta", {})
        meta.setdefault("fastmcp", {})["toolNames"] = addresses
    return data


def prefab_result(value: Any, app_name: str | None = None) -> dict[str, Any]:
    """The ``CallToolResult`` of a tool returning a Prefab app or component."""
    return {
        "content": [{"type": "text", "text": TEXT_FALLBACK}],
        "structuredContent": prefab_json(value, app_name),
    }


@dataclass(frozen=True, slots=True)
class Renderer:
    """The Prefab renderer resource a set of tools shares."""

    uri: str
    mode: str
    meta: dict[str, Any]

    def html(self) -> str:
        """The renderer's HTML (loaded when read)."""
        from prefab_ui.renderer import get_renderer_html

        text: str = get_renderer_html(mode=cast(Any, self.mode))
        return text


def _mode() -> str:
    from prefab_ui import __version__

    url = os.environ.get("PREFAB_RENDERER_URL", "").rstrip("/")
    if url:
        return url
    dev = "dev" in __version__ or __version__ == "0.0.0"
    return "bundled" if os.environ.get("PREFAB_BUNDLED_RENDERER") or dev else "cdn"


def renderer_for(ui: dict[str, Any]) -> Renderer:
    """The renderer resource of a Prefab tool whose ``_meta.ui`` is ``ui``: the renderer's
    CSP merged with the tool's, with the tool's permissions, domain and border wish."""
    from prefab_ui import __version__
    from prefab_ui.renderer import get_renderer_csp

    mode = _mode()
    defaults: dict[str, Any] = get_renderer_csp(mode=cast(Any, mode)) or {}
    csp = ui.get("csp")
    given: dict[str, Any] = csp if isinstance(csp, dict) else {}
    merged: dict[str, Any] = {}
    for snake, camel in _CSP_FIELDS:
        extra = given.get(snake, given.get(camel))
        domains = merge_domains(defaults.get(snake), extra if isinstance(extra, list) else None)
        merged[snake] = sorted(set(domains)) if domains else None
    permissions = ui.get("permissions")
    config = AppConfig(
        csp=ResourceCSP(**merged) if any(merged.values()) else None,
        permissions=(ResourcePermissions(**permissions) if isinstance(permissions, dict) else None),
        domain=ui["domain"] if isinstance(ui.get("domain"), str) else None,
        prefers_border=(ui["prefersBorder"] if isinstance(ui.get("prefersBorder"), bool) else None),
    )
    meta = {"ui": app_config_to_meta_dict(config)}
    identity = json.dumps(
        {"version": __version__, "mode": mode, "mime_type": UI_MIME_TYPE, "meta": meta},
        sort_keys=True,
        separators=(",", ":"),
    )
    digest = hashlib.sha256(identity.encode()).hexdigest()
    return Renderer(f"ui://prefab/renderer/{digest}/renderer.html", mode, meta)


def tool_ui(app: Any, returns: Any) -> tuple[dict[str, Any] | None, Renderer | None]:
    """A tool's ``_meta.ui`` on the wire and the Prefab renderer it uses (if any), from
    its ``app=`` option and return annotation, as fastmcp lists them."""
    if app is True or (app is None and is_prefab_type(returns)):
        if app is True and "prefab_ui" not in sys.modules:
            try:
                import prefab_ui  # noqa: F401
            except ImportError:
                return None, None
        ui: dict[str, Any] = {"resourceUri": PREFAB_PLACEHOLDER_URI}
    elif app is None or app is False:
        return None, None
    else:
        ui = dict(app_config_to_meta_dict(app))
    if ui.get("resourceUri") != PREFAB_PLACEHOLDER_URI:
        return ui, None
    renderer = renderer_for(ui)
    wire = {k: v for k, v in ui.items() if k not in _RESOURCE_FIELDS}
    wire["resourceUri"] = renderer.uri
    return wire, renderer
