"""``mcpkit run --health --metrics [--observability-port]``: the probes beside the endpoint
or on a port of their own."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from mcpkit import Client
from tests.cli.conftest import EVERYTHING


def test_probes_beside_the_endpoint(served: Any) -> None:
    server = served(str(EVERYTHING), "--port", "0", "--health", "--metrics")
    base = server.url.removesuffix("/mcp")
    assert "/healthz, /readyz, /metrics beside it" in server.lines[-1]
    assert httpx.get(base + "/healthz").json() == {"status": "ok"}
    assert httpx.get(base + "/readyz").status_code == 200

    async def add() -> Any:
        async with Client(server.url) as client:
            return await client.call_tool("add", {"a": 1, "b": 2})

    assert asyncio.run(add()).structured_content == {"result": 3}
    families = {
        f.name: f for f in text_string_to_metric_families(httpx.get(base + "/metrics").text)
    }
    calls = [
        s.value
        for s in families["mcp_server_requests"].samples
        if s.name == "mcp_server_requests_total" and s.labels["method"] == "tools/call"
    ]
    assert calls == [1.0]


def test_probes_on_a_port_of_their_own(served: Any) -> None:
    server = served(str(EVERYTHING), "--port", "0", "--observability-port", "0")
    found = re.search(r"/healthz, /readyz on (http://\S+);", server.lines[-1])
    assert found, server.lines
    probes = found.group(1)
    assert httpx.get(probes + "/readyz").json()["status"] == "ready"
    assert httpx.get(probes + "/metrics").status_code == 404  # not asked for
    assert httpx.get(server.url.removesuffix("/mcp") + "/healthz").status_code == 404
