"""serving: the transport choice and checks of ``Server.run``, on a stand-in server (only
the members of the Served Protocol), and the Server as a Served."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Coroutine
from typing import Any

import pytest

from mcpkit import Server
from mcpkit.server import serving
from mcpkit.transports.http import HttpServerOptions


class StandIn:
    """A Served that records what serving asked of it."""

    name = "stand-in"
    version = "1.0"

    def __init__(self) -> None:
        self.store_backend: Any = None
        self.stdio: dict[str, Any] | None = None
        self.stores: list[Any] = []

    def use_store(self, store: Any) -> None:
        self.stores.append(store)

    def run_stdio(self, **session_kwargs: Any) -> Coroutine[Any, Any, None]:
        self.stdio = session_kwargs

        async def done() -> None:
            return None

        return done()

    def http_app(self, path: str = "/mcp", **options: Any) -> Any:
        raise AssertionError("not served over HTTP here")

    def probes(self, http_app: Any, *, health: bool, metrics: bool) -> Any:
        raise AssertionError("no probes here")

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Any]:
        yield self

    def session(self, transport: Any, **session_kwargs: Any) -> Any:
        raise AssertionError("no session here")


def test_unknown_transport_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCPKIT_TRANSPORT", raising=False)
    with pytest.raises(ValueError, match="Unknown transport 'pigeon'"):
        serving.run(StandIn(), "pigeon", {})


def test_stdio_gets_the_session_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCPKIT_STORE", raising=False)
    server = StandIn()
    serving.run(server, "stdio", {"max_in_flight": 4})
    assert server.stdio == {"max_in_flight": 4}
    assert server.stores == []


def test_store_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPKIT_STORE", "redis://127.0.0.1:1/0")
    server = StandIn()
    serving.run(server, "stdio", {})
    assert server.stores == ["redis://127.0.0.1:1/0"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"observability_port": 9000}, "observability_port"),
        ({"options": HttpServerOptions(legacy_sse=True), "server": "uvicorn"}, "need a store"),
    ],
)
def test_workers_refuse_what_they_cannot_serve(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        serving.run_workers(StandIn(), 2, None, **options)


def test_a_server_is_served() -> None:
    server: serving.Served = Server("real")  # mypy checks the Protocol
    assert server.name == "real"
