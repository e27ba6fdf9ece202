"""Without the ``http`` extra, HTTP fails with one clear line naming it (no import chain)."""

from __future__ import annotations

import sys

import pytest

import mcpkit.transports.http as http_pkg
from mcpkit import Server


def test_the_client_transport_without_httpx_names_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delattr(http_pkg, "StreamableHTTPClientTransport", raising=False)
    monkeypatch.delitem(sys.modules, "mcpkit.transports.http.client", raising=False)
    monkeypatch.setitem(sys.modules, "httpx", None)  # what an uninstalled module looks like
    with pytest.raises(ImportError) as info:
        _ = http_pkg.StreamableHTTPClientTransport
    assert str(info.value) == (
        "mcpkit.transports.http.StreamableHTTPClientTransport needs the 'http' extra "
        "(httpx is not installed): in the mcpkit checkout: pip install '.[http]'"
    )
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_serving_http_without_uvicorn_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    with pytest.raises(ImportError) as info:
        Server("no-uvicorn").run("http", port=0)
    assert (
        "'http' extra (uvicorn is not installed): in the mcpkit checkout: pip install '.[http]'"
        in str(info.value)
    )
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_another_missing_module_is_not_blamed_on_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(http_pkg, "MemoryEventStore", raising=False)
    monkeypatch.setitem(sys.modules, "mcpkit.transports.http.event_store", None)
    with pytest.raises(ModuleNotFoundError) as info:
        _ = http_pkg.MemoryEventStore
    assert "http' extra" not in str(info.value)
