"""MCP Apps (the ``io.modelcontextprotocol/ui`` extension): what both roles share.

An *app* is a ``ui://`` HTML resource (MIME type ``text/html;profile=mcp-app``) that a host
renders in a sandboxed iframe when a tool linked to it is called. The link is the tool's
``_meta.ui`` (``resourceUri``, ``visibility``: who may call the tool, ``"model"`` and/or
``"app"``, both when absent); the resource's ``_meta.ui`` says what the iframe needs: a
Content Security Policy (``csp``: ``connectDomains``, ``resourceDomains``, ``frameDomains``,
``baseUriDomains``), browser permissions (``camera``, ``microphone``, ``geolocation``,
``clipboardWrite``), a dedicated sandbox ``domain`` and ``prefersBorder``. A client that can
render apps declares ``capabilities.extensions["io.modelcontextprotocol/ui"] =
{"mimeTypes": ["text/html;profile=mcp-app"]}`` (at ``initialize``, or in every request's
``_meta`` on the 2026-07-28 wire).

This module holds the constants, the typed metadata (:class:`Csp`, :class:`Permissions`,
:class:`UiResourceMeta`, :class:`ToolUi`) with their wire forms and validation, and the
host-side helpers that turn them into a CSP header and an iframe ``allow`` attribute. The
server's helpers are in :mod:`mcpkit.server.mcp_apps`, the client's in :mod:`mcpkit.client.apps`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, cast

__all__ = [
    "EXTENSION_ID",
    "MIME_TYPE",
    "PERMISSIONS",
    "RESOURCE_URI_KEY",
    "VISIBILITIES",
    "Csp",
    "Permissions",
    "ToolUi",
    "UiResourceMeta",
    "Visibility",
    "client_settings",
    "declares_apps",
    "parse_visibility",
]

#: The extension's identifier, the key under ``capabilities.extensions``.
EXTENSION_ID: Final = "io.modelcontextprotocol/ui"
#: The MIME type of an app's HTML (resources/list entry and resources/read contents).
MIME_TYPE: Final = "text/html;profile=mcp-app"
#: The deprecated flat tool ``_meta`` key older hosts read (``_meta["ui/resourceUri"]``).
RESOURCE_URI_KEY: Final = "ui/resourceUri"

Visibility = Literal["model", "app"]
#: Who may see and call a tool: the model (the agent's tool list) and/or the app.
VISIBILITIES: Final[tuple[Visibility, ...]] = ("model", "app")
#: The permissions a resource may request: wire name -> Permission Policy feature.
PERMISSIONS: Final[Mapping[str, str]] = {
    "camera": "camera",
    "microphone": "microphone",
    "geolocation": "geolocation",
    "clipboardWrite": "clipboard-write",
}
_PERMISSION_ALIASES: Final[Mapping[str, str]] = {
    "camera": "camera",
    "microphone": "microphone",
    "geolocation": "geolocation",
    "clipboardWrite": "clipboardWrite",
    "clipboard_write": "clipboardWrite",
    "clipboard-write": "clipboardWrite",
}
_CSP_FIELDS: Final[Mapping[str, str]] = {
    "connectDomains": "connect_domains",
    "resourceDomains": "resource_domains",
    "frameDomains": "frame_domains",
    "baseUriDomains": "base_uri_domains",
}
_NONE: Final = "'none'"
_SELF: Final = "'self'"
# scheme://host[:port] with an optional leading "*." wildcard label; no path, no spaces,
# no quotes or semicolons (a domain goes verbatim into a CSP header).
_ORIGIN = re.compile(r"[a-z][a-z0-9+.\-]*://(\*\.)?[A-Za-z0-9\-._~\[\]:]+(:(\d{1,5}|\*))?/?")


def _origins(name: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise ValueError(f"csp {name} must be a list of origins, not {type(value).__name__}")
    out: list[str] = []
    for item in value:
        if not isinstance(item, str) or not _ORIGIN.fullmatch(item):
            raise ValueError(
                f"csp {name}: {item!r} is not an origin (scheme://host[:port], "
                "e.g. 'https://api.example.com' or 'https://*.example.com')"
            )
        out.append(item)
    return tuple(out)


@dataclass(frozen=True)
class Csp:
    """The origins an app may reach (``_meta.ui.csp``); each empty list is the secure
    default (nothing)."""

    #: fetch/XHR/WebSocket targets (``connect-src``).
    connect_domains: Sequence[str] = ()
    #: Scripts, styles, images, fonts and media (``script-src``, ``style-src``, ...).
    resource_domains: Sequence[str] = ()
    #: Nested iframes (``frame-src``).
    frame_domains: Sequence[str] = ()
    #: Allowed ``<base>`` URIs (``base-uri``).
    base_uri_domains: Sequence[str] = ()

    def __post_init__(self) -> None:
        for wire, attr in _CSP_FIELDS.items():
            object.__setattr__(self, attr, _origins(wire, getattr(self, attr)))

    @classmethod
    def of(cls, value: Csp | Mapping[str, Any] | None) -> Csp:
        """A Csp from itself, a wire dict (camelCase) or keyword names (snake_case);
        ValueError naming an unknown key or a value that is not an origin."""
        if value is None:
            return cls()
        if isinstance(value, Csp):
            return value
        if not isinstance(value, Mapping):
            raise ValueError(f"csp must be a Csp or a dict, not {type(value).__name__}")
        kwargs: dict[str, Any] = {}
        for key, item in value.items():
            attr = _CSP_FIELDS.get(key) or (key if key in _CSP_FIELDS.values() else None)
            if attr is None:
                raise ValueError(f"csp: unknown key {key!r} (expected {', '.join(_CSP_FIELDS)})")
            kwargs[attr] = item
        return cls(**kwargs)

    def __bool__(self) -> bool:
        return any(getattr(self, attr) for attr in _CSP_FIELDS.values())

    def to_wire(self) -> dict[str, list[str]]:
        """The ``_meta.ui.csp`` object (only the lists that are not empty)."""
        return {
            wire: list(getattr(self, attr))
            for wire, attr in _CSP_FIELDS.items()
            if getattr(self, attr)
        }

    def header(self) -> str:
        """The ``Content-Security-Policy`` a host applies to the app's document: the
        extension's restrictive default, widened only by the declared origins."""
        res = "".join(f" {d}" for d in self.resource_domains)

        def listed(domains: Sequence[str], empty: str) -> str:
            return " ".join(domains) if domains else empty

        return "; ".join(
            (
                "default-src 'none'",
                f"script-src 'self' 'unsafe-inline'{res}",
                f"style-src 'self' 'unsafe-inline'{res}",
                f"img-src 'self' data:{res}",
                f"font-src 'self' data:{res}",
                f"media-src 'self' data:{res}",
                f"connect-src {listed(self.connect_domains, _NONE)}",
                f"frame-src {listed(self.frame_domains, _NONE)}",
                f"base-uri {listed(self.base_uri_domains, _SELF)}",
            )
        )


@dataclass(frozen=True)
class Permissions:
    """The browser features an app asks for (``_meta.ui.permissions``); hosts may refuse."""

    camera: bool = False
    microphone: bool = False
    geolocation: bool = False
    clipboard_write: bool = False

    @classmethod
    def of(cls, value: Permissions | Mapping[str, Any] | Iterable[str] | None) -> Permissions:
        """Permissions from themselves, a wire dict (``{"camera": {}}``) or names
        (``["camera", "clipboardWrite"]``); ValueError naming an unknown one."""
        if value is None:
            return cls()
        if isinstance(value, Permissions):
            return value
        if isinstance(value, str):
            value = [value]
        names = list(value.keys() if isinstance(value, Mapping) else value)
        chosen: dict[str, bool] = {}
        for name in names:
            wire = _PERMISSION_ALIASES.get(name) if isinstance(name, str) else None
            if wire is None:
                raise ValueError(
                    f"permissions: unknown permission {name!r} (expected {', '.join(PERMISSIONS)})"
                )
            if isinstance(value, Mapping) and not isinstance(value[name], Mapping):
                raise ValueError(f"permissions: {name!r} must map to an object ({{}})")
            chosen["clipboard_write" if wire == "clipboardWrite" else wire] = True
        return cls(**chosen)

    def __bool__(self) -> bool:
        return self.camera or self.microphone or self.geolocation or self.clipboard_write

    def names(self) -> list[str]:
        """The wire names of the requested permissions."""
        flags = (self.camera, self.microphone, self.geolocation, self.clipboard_write)
        return [name for name, on in zip(PERMISSIONS, flags, strict=True) if on]

    def to_wire(self) -> dict[str, dict[str, Any]]:
        """The ``_meta.ui.permissions`` object."""
        return {name: {} for name in self.names()}

    def allow_attribute(self) -> str:
        """The iframe ``allow`` attribute granting them (``"camera; clipboard-write"``)."""
        return "; ".join(PERMISSIONS[name] for name in self.names())


@dataclass(frozen=True)
class UiResourceMeta:
    """An app resource's ``_meta.ui``: what its sandbox needs and how it likes to look."""

    csp: Csp = field(default_factory=Csp)
    permissions: Permissions = field(default_factory=Permissions)
    #: A dedicated sandbox origin (its format is the host's; None: the host's default).
    domain: str | None = None
    #: True: a visible border and background; False: none; None: the host decides.
    prefers_border: bool | None = None

    def __post_init__(self) -> None:
        if self.domain is not None and (not isinstance(self.domain, str) or not self.domain):
            raise ValueError("domain must be a non-empty string")
        if self.prefers_border is not None and not isinstance(self.prefers_border, bool):
            raise ValueError("prefers_border must be True, False or None")

    def to_wire(self) -> dict[str, Any]:
        """The ``_meta.ui`` object (empty parts left out)."""
        out: dict[str, Any] = {}
        if self.csp:
            out["csp"] = self.csp.to_wire()
        if self.permissions:
            out["permissions"] = self.permissions.to_wire()
        if self.domain is not None:
            out["domain"] = self.domain
        if self.prefers_border is not None:
            out["prefersBorder"] = self.prefers_border
        return out

    @classmethod
    def from_wire(cls, value: Any) -> UiResourceMeta:
        """Parse a peer's ``_meta.ui`` leniently: unknown keys are ignored, a malformed
        part is dropped (a host then applies the restrictive default)."""
        if not isinstance(value, Mapping):
            return cls()
        try:
            csp = Csp.of(
                {k: v for k, v in dict(value.get("csp") or {}).items() if k in _CSP_FIELDS}
            )
        except (ValueError, TypeError):
            csp = Csp()
        raw_perms = value.get("permissions")
        try:
            perms = Permissions.of(
                {k: v for k, v in raw_perms.items() if k in PERMISSIONS}
                if isinstance(raw_perms, Mapping)
                else None
            )
        except ValueError:
            perms = Permissions()
        domain = value.get("domain")
        border = value.get("prefersBorder")
        return cls(
            csp=csp,
            permissions=perms,
            domain=domain if isinstance(domain, str) and domain else None,
            prefers_border=border if isinstance(border, bool) else None,
        )


def parse_visibility(value: Any) -> tuple[Visibility, ...]:
    """A tool's visibility from ``"app"``, ``["model", "app"]``...; ValueError when empty,
    repeated or not ``"model"``/``"app"``."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, Iterable) or isinstance(items, Mapping):
        raise ValueError(f"visibility must be a list of 'model'/'app', not {value!r}")
    out: list[Visibility] = []
    for item in items:
        if item not in VISIBILITIES:
            raise ValueError(f"visibility: {item!r} is not 'model' or 'app'")
        if item in out:
            raise ValueError(f"visibility: {item!r} is given twice")
        out.append(cast("Visibility", item))
    if not out:
        raise ValueError(
            "visibility must name 'model', 'app' or both (an empty list hides the "
            "tool from everyone)"
        )
    return tuple(out)


@dataclass(frozen=True)
class ToolUi:
    """A tool's ``_meta.ui``: the app it renders in and who may call it."""

    #: The ``ui://`` resource rendering its results (None: an app-callable tool without one).
    resource_uri: str | None = None
    #: Who may see and call it (the default: both).
    visibility: tuple[Visibility, ...] = VISIBILITIES

    @property
    def model_visible(self) -> bool:
        """True when the model (the agent's tool list) may see and call the tool."""
        return "model" in self.visibility

    @property
    def app_callable(self) -> bool:
        """True when an app of the same server may call the tool."""
        return "app" in self.visibility

    @classmethod
    def from_tool_meta(cls, meta: Any) -> ToolUi | None:
        """The UI of a tool's ``_meta`` (``ui`` first, then the flat ``ui/resourceUri``),
        None when it has neither; a malformed visibility counts as the default."""
        if not isinstance(meta, Mapping):
            return None
        ui = meta.get("ui")
        uri = None
        visibility: tuple[Visibility, ...] = VISIBILITIES
        if isinstance(ui, Mapping):
            if isinstance(ui.get("resourceUri"), str):
                uri = ui["resourceUri"]
            if "visibility" in ui:
                try:
                    visibility = parse_visibility(ui["visibility"])
                except ValueError:
                    visibility = VISIBILITIES
        if uri is None and isinstance(meta.get(RESOURCE_URI_KEY), str):
            uri = meta[RESOURCE_URI_KEY]
        if uri is None and not isinstance(ui, Mapping):
            return None
        return cls(uri, visibility)


def client_settings() -> dict[str, Any]:
    """The settings a client declares under ``extensions["io.modelcontextprotocol/ui"]``."""
    return {"mimeTypes": [MIME_TYPE]}


def declares_apps(capabilities: Any) -> bool:
    """True when client ``capabilities`` declare the extension with the app MIME type
    (what the extension's servers check before offering apps)."""
    if not isinstance(capabilities, Mapping):
        return False
    extensions = capabilities.get("extensions")
    settings = extensions.get(EXTENSION_ID) if isinstance(extensions, Mapping) else None
    if not isinstance(settings, Mapping):
        return False
    mime_types = settings.get("mimeTypes")
    return isinstance(mime_types, (list, tuple)) and MIME_TYPE in mime_types
