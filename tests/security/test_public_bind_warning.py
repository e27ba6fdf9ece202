"""Serving on a public address with no ``allowed_hosts`` turns DNS-rebinding protection off
(every Host header accepted): that is said at start, with what to set, never silently."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from mcpkit import Server
from mcpkit.transports.http import StreamableHTTPApp
from mcpkit.transports.http.host_origin import check_bind


def _server() -> Server:
    server = Server("public")

    @server.tool()
    def echo(text: str) -> str:
        return text

    return server


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "", "192.0.2.10", "mcp.example.com"])
def test_a_public_bind_without_allowed_hosts_warns(
    host: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    for app in (_server().http_app(), StreamableHTTPApp(_server().session)):
        caplog.clear()
        text = check_bind(app, host)
        assert text is not None
        assert "DNS rebinding protection is off" in text
        assert "allowed_hosts" in text and "--allowed-host" in text
        assert "dns_rebinding_protection=False" in text  # how to say "a proxy checks Host"
        warned = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert [r.getMessage() for r in warned] == [text]
        assert warned[0].name == "mcpkit.http"


@pytest.mark.parametrize(
    ("host", "options"),
    [
        ("127.0.0.1", {}),
        ("localhost", {}),
        ("::1", {}),
        ("127.0.0.2", {}),
        ("0.0.0.0", {"allowed_hosts": ["mcp.example.com"]}),
        ("0.0.0.0", {"dns_rebinding_protection": True}),
        ("0.0.0.0", {"dns_rebinding_protection": False}),  # said on purpose
    ],
)
def test_no_warning_when_the_guard_is_on_or_turned_off_on_purpose(
    host: str, options: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    assert check_bind(_server().http_app(**options), host) is None
    assert not caplog.records


def test_an_app_without_the_policy_is_left_alone() -> None:
    async def bare(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("not called")

    assert check_bind(bare, "0.0.0.0") is None


def test_the_cli_says_it_in_its_banner_not_twice(caplog: pytest.LogCaptureFixture) -> None:
    from mcpkit.cli.run import _bind_warning

    caplog.set_level(logging.WARNING)
    app = _server().http_app()
    text = _bind_warning(app, "0.0.0.0")
    assert text is not None and "--allowed-host" in text
    assert not caplog.records  # the banner says it (mcpkit: warning: ...)
    assert check_bind(app, "0.0.0.0") == text  # serving it then does not log it again
    assert not caplog.records
    assert _bind_warning(_server().http_app(), "127.0.0.1") is None
