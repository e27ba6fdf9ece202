"""The extension's typed metadata, its wire forms and the host-side CSP it implies."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.apps import (
    MIME_TYPE,
    Csp,
    Permissions,
    ToolUi,
    UiResourceMeta,
    declares_apps,
    parse_visibility,
)

#: The extension's restrictive default when a resource declares no CSP (SEP-1865).
SPEC_DEFAULT = {
    "default-src": "'none'",
    "script-src": "'self' 'unsafe-inline'",
    "style-src": "'self' 'unsafe-inline'",
    "img-src": "'self' data:",
    "media-src": "'self' data:",
    "connect-src": "'none'",
}


def directives(header: str) -> dict[str, str]:
    out = {}
    for part in header.split(";"):
        name, _, value = part.strip().partition(" ")
        out[name] = value
    return out


def test_no_csp_gives_the_spec_default() -> None:
    got = directives(Csp().header())
    for name, value in SPEC_DEFAULT.items():
        assert got[name] == value
    assert got["frame-src"] == "'none'" and got["base-uri"] == "'self'"


def test_declared_origins_widen_only_their_directives() -> None:
    csp = Csp(
        connect_domains=["https://api.example.com"],
        resource_domains=["https://cdn.example.com"],
        frame_domains=["https://player.vimeo.com"],
        base_uri_domains=["https://cdn.example.com"],
    )
    got = directives(csp.header())
    assert got["default-src"] == "'none'"
    assert got["connect-src"] == "https://api.example.com"
    for name in ("script-src", "style-src", "img-src", "font-src", "media-src"):
        assert got[name].endswith(" https://cdn.example.com")
    assert got["frame-src"] == "https://player.vimeo.com"
    assert got["base-uri"] == "https://cdn.example.com"


@pytest.mark.parametrize(
    "origin",
    [
        "https://a.example",
        "wss://rt.example:8443",
        "http://localhost:5173",
        "https://*.example.com",
    ],
)
def test_origins_accepted(origin: str) -> None:
    assert Csp(connect_domains=[origin]).connect_domains == (origin,)


def test_wire_round_trip() -> None:
    meta = UiResourceMeta(
        Csp.of({"connectDomains": ["https://a.example"], "resource_domains": []}),
        Permissions.of(["camera", "clipboard_write"]),
        "x.example",
        True,
    )
    wire = meta.to_wire()
    assert wire == {
        "csp": {"connectDomains": ["https://a.example"]},
        "permissions": {"camera": {}, "clipboardWrite": {}},
        "domain": "x.example",
        "prefersBorder": True,
    }
    assert UiResourceMeta.from_wire(wire) == meta
    assert UiResourceMeta().to_wire() == {}


@pytest.mark.parametrize(
    "wire",
    [
        None,
        "csp",
        {"csp": {"connectDomains": ["not an origin"]}},
        {"csp": "x", "permissions": ["camera"], "domain": 3, "prefersBorder": "no"},
    ],
)
def test_a_peers_malformed_metadata_falls_back_to_the_restrictive_default(wire: Any) -> None:
    meta = UiResourceMeta.from_wire(wire)
    assert meta == UiResourceMeta()
    assert directives(meta.csp.header())["connect-src"] == "'none'"


def test_permissions_allow_attribute() -> None:
    assert (
        Permissions.of({"microphone": {}, "camera": {}}).allow_attribute() == "camera; microphone"
    )
    assert Permissions().allow_attribute() == ""


def test_tool_ui_from_meta() -> None:
    assert ToolUi.from_tool_meta(None) is None
    assert ToolUi.from_tool_meta({"other": 1}) is None
    nested = ToolUi.from_tool_meta({"ui": {"resourceUri": "ui://a", "visibility": ["app"]}})
    assert nested == ToolUi("ui://a", ("app",))
    assert ToolUi.from_tool_meta({"ui/resourceUri": "ui://b"}) == ToolUi("ui://b")
    # The nested form wins over the flat one; a bad visibility means the default.
    both = ToolUi.from_tool_meta(
        {"ui": {"resourceUri": "ui://a", "visibility": []}, "ui/resourceUri": "ui://b"}
    )
    assert both == ToolUi("ui://a", ("model", "app"))
    # An app-callable tool without a view of its own.
    assert ToolUi.from_tool_meta({"ui": {"visibility": ["app"]}}) == ToolUi(None, ("app",))


def test_visibility_parsing() -> None:
    assert parse_visibility("model") == ("model",)
    assert parse_visibility(("app", "model")) == ("app", "model")
    with pytest.raises(ValueError):
        parse_visibility({"model": True})


def test_declares_apps_follows_the_spec_check() -> None:
    ext = "io.modelcontextprotocol/ui"
    assert declares_apps({"extensions": {ext: {"mimeTypes": [MIME_TYPE]}}})
    assert declares_apps({"extensions": {ext: {"mimeTypes": ["text/x", MIME_TYPE]}}})
    assert not declares_apps({"extensions": {ext: {}}})
    assert not declares_apps({"extensions": {"other/ui": {"mimeTypes": [MIME_TYPE]}}})
    assert not declares_apps({"experimental": {ext: {"mimeTypes": [MIME_TYPE]}}})
    assert not declares_apps(None)
