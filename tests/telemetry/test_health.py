"""/healthz and /readyz: live always, ready only while the lifespan runs and every check
(and every store with a ``ready()``) passes; on the server's app or a port of their own."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from mcpkit import Server
from mcpkit.server.probes import health_of, probes_for
from mcpkit.transports.http import running


def asgi_client(asgi: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(asgi), base_url="http://probe")


async def test_ready_only_while_the_lifespan_runs() -> None:
    app = Server("probed")
    asgi = app.http_app(health=True)
    async with asgi_client(asgi) as http:  # httpx's ASGI transport sends no lifespan events
        live = await http.get("/healthz")
        assert (live.status_code, live.json()) == (200, {"status": "ok"})
        before = await http.get("/readyz")
        assert before.status_code == 503
        assert before.json() == {"status": "not ready", "checks": {"lifespan": "not running"}}
        async with asgi.lifespan():  # what a host application's lifespan does
            during = await http.get("/readyz")
            assert during.status_code == 200
            assert during.json() == {"status": "ready", "checks": {"lifespan": "ok"}}
            assert during.headers["cache-control"] == "no-store"
            asgi.close_streams()  # what the ASGI server's shutdown begins with
            draining = await http.get("/readyz")
            assert draining.status_code == 503
            assert draining.json()["checks"]["lifespan"] == "shutting down"
        after = await http.get("/readyz")
        assert after.status_code == 503
        assert after.json()["checks"]["lifespan"] == "not running"
        assert (await http.get("/healthz")).status_code == 200


async def test_over_http_the_asgi_lifespan_makes_it_ready() -> None:
    app = Server("probed")
    async with running(app.http_app(health=True)) as base, httpx.AsyncClient() as http:
        ready = await http.get(base + "/readyz")
        assert ready.status_code == 200 and ready.json()["status"] == "ready"
        head = await http.head(base + "/healthz")
        assert head.status_code == 200 and head.content == b""
        post = await http.post(base + "/healthz")
        assert post.status_code == 405 and post.headers["allow"] == "GET, HEAD"


class FlakyStore:
    """A store with the readiness protocol: ``ready()`` raises while it is down."""

    def __init__(self) -> None:
        self.up = True

    async def ready(self) -> None:
        if not self.up:
            raise ConnectionError("store unreachable")


async def test_checks_and_stores_decide_readiness() -> None:
    app = Server("probed")
    store = FlakyStore()
    app.task_manager.store.ready = store.ready  # type: ignore[attr-defined]
    asgi = app.http_app(health=True)
    health = health_of(app)
    health.timeout = 0.2
    flags = {"cache": True}
    health.add_check("cache", lambda: flags["cache"])
    never = asyncio.Event()
    async with asgi_client(asgi) as http, asgi.lifespan():
        ok = await http.get("/readyz")
        assert ok.status_code == 200
        assert ok.json()["checks"] == {"lifespan": "ok", "task_store": "ok", "cache": "ok"}

        store.up = False
        flags["cache"] = False
        down = await http.get("/readyz")
        assert down.status_code == 503
        checks = down.json()["checks"]
        assert checks["task_store"] == "failed: ConnectionError: store unreachable"
        assert checks["cache"] == "failed"
        assert (await http.get("/healthz")).status_code == 200  # alive all the same

        store.up = True
        flags["cache"] = True
        health.add_check("slow", never.wait)
        slow = await http.get("/readyz")
        assert slow.status_code == 503
        assert slow.json()["checks"]["slow"] == "timed out after 0.2s"
        health.remove_check("slow")
        assert (await http.get("/readyz")).status_code == 200
    with pytest.raises(TypeError):
        health.add_check("bad", "not callable")  # type: ignore[arg-type]


async def test_off_by_default() -> None:
    app = Server("plain")
    async with asgi_client(app.http_app()) as http:
        for path in ("/healthz", "/readyz", "/metrics"):
            assert (await http.get(path)).status_code == 404


async def test_a_probe_app_of_its_own() -> None:
    """What ``observability_port=`` serves: the probes and 404 for everything else."""
    app = Server("probed")
    asgi = app.http_app()
    side = probes_for(app, asgi.app, health=True)
    assert list(side.routes) == ["/healthz", "/readyz"]
    async with running(asgi) as base, running(side) as probes, httpx.AsyncClient() as http:
        assert (await http.get(probes + "/readyz")).json()["status"] == "ready"
        assert (await http.get(probes + "/mcp")).status_code == 404
        assert (await http.get(base + "/healthz")).status_code == 404  # not on the MCP port


async def test_mounted_in_a_host_application() -> None:
    """Under a Starlette ``Mount`` the probes answer below the mount's path, and readiness
    follows the lifespan the host gives the app."""
    from starlette.applications import Starlette
    from starlette.routing import Mount

    app = Server("mounted")
    asgi = app.http_app(health=True, metrics=True)
    web = Starlette(routes=[Mount("/tools", app=asgi)], lifespan=asgi.lifespan)
    async with running(web) as base, httpx.AsyncClient(base_url=base) as http:
        ready = await http.get("/tools/readyz")
        assert ready.status_code == 200 and ready.json()["status"] == "ready"
        assert (await http.get("/tools/metrics")).status_code == 200
        assert (await http.get("/healthz")).status_code == 404  # not the host's own path


async def test_the_probes_take_callables_not_a_server() -> None:
    """The probe app knows no server: whether the lifespan runs, the stores and the metrics
    text are callables (what mcpkit.server.probes passes for a Server)."""
    from mcpkit.transports.http.health import Health, ObservabilityApp

    state = {"running": False}
    store = FlakyStore()
    health = Health(lambda: state["running"], lambda: [("cache", store)])
    side = ObservabilityApp(health=health, metrics=lambda: b"up 1\n", metrics_type="text/plain")
    async with asgi_client(side) as http:
        down = await http.get("/readyz")
        assert down.status_code == 503
        assert down.json()["checks"] == {"lifespan": "not running", "cache": "ok"}
        state["running"] = True
        ready = await http.get("/readyz")
        assert ready.status_code == 200 and ready.json()["checks"]["cache"] == "ok"
        store.up = False
        assert (await http.get("/readyz")).status_code == 503
        metrics = await http.get("/metrics")
        assert metrics.text == "up 1\n" and metrics.headers["content-type"] == "text/plain"


def test_the_former_home_of_health_of_still_answers() -> None:
    from mcpkit.transports.http import health as module

    app = Server("moved")
    with pytest.warns(DeprecationWarning, match="mcpkit.server.probes.health_of"):
        assert module.health_of(app) is health_of(app)
