"""``app.run("http", health=..., metrics=..., observability_port=...)``: what it serves
where (the coroutine behind ``run``, stopped by the SIGTERM handler it installs)."""

from __future__ import annotations

import asyncio
import os
import re
import signal

import httpx
import pytest

from mcpkit import Server
from mcpkit.server.serving import serve_http


async def serve_until_announced(
    app: Server, capsys: pytest.CaptureFixture[str], **options: object
) -> tuple[asyncio.Task[None], str]:
    task = asyncio.get_running_loop().create_task(serve_http(app, port=0, **options))
    seen = ""
    async with asyncio.timeout(30):
        while "Ctrl-C stops" not in seen:
            if task.done():
                task.result()
            await asyncio.sleep(0.02)
            seen += capsys.readouterr().err
    return task, seen


async def stop(task: asyncio.Task[None]) -> None:
    os.kill(os.getpid(), signal.SIGTERM)  # the handler serve_http installed sets its stop
    async with asyncio.timeout(30):
        await task
    asyncio.get_running_loop().remove_signal_handler(signal.SIGTERM)


async def test_probes_beside_the_endpoint(capsys: pytest.CaptureFixture[str]) -> None:
    app = Server("served")
    task, line = await serve_until_announced(app, capsys, health=True, metrics=True)
    base = re.search(r"on (http://\S+)/mcp", line)
    assert base, line
    async with httpx.AsyncClient(base_url=base.group(1)) as http:
        assert (await http.get("/readyz")).json()["status"] == "ready"
        assert (await http.get("/metrics")).status_code == 200
    await stop(task)


async def test_probes_on_a_port_of_their_own(capsys: pytest.CaptureFixture[str]) -> None:
    app = Server("served")
    task, line = await serve_until_announced(app, capsys, metrics=True, observability_port=0)
    found = re.search(r"on (http://\S+)/mcp \(Streamable HTTP; /metrics on (http://\S+);", line)
    assert found, line
    main, side = found.groups()
    async with httpx.AsyncClient() as http:
        assert (await http.get(side + "/metrics")).status_code == 200
        assert (await http.get(side + "/healthz")).status_code == 404  # only metrics asked for
        assert (await http.get(main + "/metrics")).status_code == 404
    await stop(task)
