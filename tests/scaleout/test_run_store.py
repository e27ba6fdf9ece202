"""``mcpkit run --store URL`` (and ``MCPKIT_STORE``): a server file's ``app`` gets its
shared store from the command line, and two such processes on one Redis, behind nginx
round-robin, serve one session alternately (both eras: sampling answered on the other
process, a list change heard once, MRTR and a task across the two)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from mcpkit import Server
from mcpkit.client import ClientHooks
from mcpkit.redis import RedisBus, RedisTaskStore
from mcpkit.redis.sessions import shared_sessions
from tests.scaleout.broadcasts import RawSession
from tests.scaleout.cluster import ROOT, STORE_SECRET, Nginx, Redis, free_port, wait_port
from tests.scaleout.tours import client, text, until

SERVER = '''
import asyncio
import os

from mcpkit import Context, Server

NAME = os.environ["DEMO_NAME"]
app = Server("store-demo", "1.0")


@app.tool()
def where() -> str:
    """Which process serves this call."""
    return NAME


@app.tool()
async def sample(prompt: str, ctx: Context) -> str:
    """Ask the client's model."""
    result = await ctx.sample(prompt, max_tokens=5)
    return f"{NAME} sampled: {result.content.text}"


@app.tool()
async def ask(ctx: Context) -> str:
    """Ask the user."""
    answer = await ctx.elicit("Go?", {"type": "object", "properties": {"v": {"type": "string"}}})
    return f"{NAME} got: {answer.action}"


@app.tool()
def changed() -> str:
    """Announce that the tool list changed."""
    app.notify_list_changed("tools")
    return NAME


@app.tool(task_support="optional")
async def slow() -> str:
    """A task."""
    await asyncio.sleep(0.2)
    return f"{NAME} slept"
'''


def _run(
    script: Path, port: int, name: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "mcpkit", "run", str(script), "-t", "http"]
    return subprocess.Popen(
        [*command, "--port", str(port), *args],
        cwd=ROOT,
        env={
            **os.environ,
            "DEMO_NAME": name,
            "MCPKIT_REQUEST_STATE_KEYS": "",
            "MCPKIT_STORE_SECRET": STORE_SECRET,
            **(env or {}),
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Redis]:
    server = Redis(tmp_path_factory.mktemp("run-store"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "server.py"
    path.write_text(SERVER)
    return path


async def test_two_run_processes_serve_one_session_alternately(
    redis_server: Redis, script: Path, tmp_path: Path
) -> None:
    ports = [free_port(), free_port()]
    procs = [
        _run(script, ports[0], "A", "--store", redis_server.url),
        _run(script, ports[1], "B", env={"MCPKIT_STORE": redis_server.url}),
    ]
    nginx = Nginx(tmp_path, ports)
    try:
        for port, proc in zip(ports, procs, strict=True):
            wait_port(port, proc, timeout=60)
        nginx.start()
        urls = [f"http://127.0.0.1:{port}/mcp" for port in ports]
        async with httpx.AsyncClient(timeout=30) as http:  # one session, A and B in turn
            session = RawSession(http, urls[0])
            await session.open()
            served = [(await session.call("where", url))["content"][0]["text"] for url in urls * 3]
            assert served == ["A", "B"] * 3
        changed: list[str] = []
        async with client(
            nginx.url, "legacy", hooks=ClientHooks(on_list_changed=changed.append)
        ) as c:
            served = [text(await c.call_tool("where", {})) for _ in range(6)]
            assert set(served) == {"A", "B"}, served  # round-robin through nginx
            for _ in range(2):  # the answer is POSTed to the other process
                sampled = text(await c.call_tool("sample", {"prompt": "hi"}))
                assert sampled.endswith("sampled: re: hi")
            await c.call_tool("changed", {})
            await until(lambda: len(changed) == 1)
            await c.call_tool("where", {})  # the list change came once
            assert changed == ["tools"]
        async with client(nginx.url, "2026-07-28") as c:
            for _ in range(2):  # the sealed requestState opens on the other process
                assert text(await c.call_tool("ask", {})).endswith("got: accept")
            task = await c.start_tool_task("slow", {})
            result = await task.result(timeout=20)
            assert task.status == "completed" and text(result).endswith("slept")
    finally:
        nginx.stop()
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def test_run_refuses_a_bad_store(script: Path) -> None:
    for args, message in (
        (["--store", "mongodb://127.0.0.1/"], "bad --store"),
        (["--store", "redis://127.0.0.1:1/0", "--event-store", "e.db"], "do not go together"),
    ):
        proc = _run(script, free_port(), "A", *args)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 2, err
        assert message in err.decode(), err


def test_run_says_when_the_store_is_unreachable(script: Path) -> None:
    proc = _run(script, free_port(), "A", "--store", f"redis://127.0.0.1:{free_port()}/0")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "Shared store unavailable" in err.decode(), err


async def test_use_store_wires_what_store_does(
    redis_server: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCPKIT_STORE_SECRET", STORE_SECRET)
    app: Server[None] = Server("s")
    app.use_store(redis_server.url)
    assert app.store_backend is not None
    assert isinstance(app.bus, RedisBus) and app.relay.bus is app.bus
    assert isinstance(app.task_manager.store, RedisTaskStore)
    asgi = app.http_app()
    assert asgi.app.shared is shared_sessions(app.store_backend)
    with pytest.raises(RuntimeError, match="already has a store"):
        app.use_store(redis_server.url)
    await app.store_backend.aclose()


async def test_use_store_is_refused_once_serving() -> None:
    app: Server[None] = Server("s")
    async with app.running():
        with pytest.raises(RuntimeError, match="already serving"):
            app.use_store("redis://127.0.0.1:6379/0")
    served: Server[None] = Server("t")
    served.http_app()
    with pytest.raises(RuntimeError, match="already serving"):
        served.use_store("redis://127.0.0.1:6379/0")
    assert app.store_backend is None and served.store_backend is None


def test_run_names_its_store_in_the_banner(redis_server: Redis, script: Path) -> None:
    port = free_port()
    proc = _run(script, port, "A", "--store", redis_server.url)
    try:
        wait_port(port, proc, timeout=60)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    banner = next(line for line in err.decode().splitlines() if "serving" in line)
    assert f"; store {redis_server.url}, keys mcpkit:" in banner, banner


def test_the_banner_hides_a_store_password() -> None:
    from types import SimpleNamespace

    from mcpkit.cli.run import store_note

    backend = SimpleNamespace(
        url="redis://app:hunter2@cache.internal:6380/2", keys=SimpleNamespace(prefix="p")
    )
    note = store_note(SimpleNamespace(store_backend=backend))
    assert note == "; store redis://app:***@cache.internal:6380/2, keys p:*"
    assert store_note(SimpleNamespace(store_backend=None)) == ""


def test_a_store_secret_too_short_is_named_as_the_problem(script: Path) -> None:
    proc = _run(
        script,
        free_port(),
        "A",
        "--store",
        "redis://127.0.0.1:1/0",
        env={"MCPKIT_STORE_SECRET": "short"},
    )
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, err
    text = err.decode()
    assert "cannot use --store: the store secret must be at least 16 bytes" in text, text
    assert "e.g. --store redis://" not in text  # the URL was not the problem


def test_store_over_stdio_says_what_it_shares(script: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcpkit", "run", str(script), "--store", "redis://127.0.0.1:1/0"],
        cwd=ROOT,
        env={**os.environ, "MCPKIT_STORE_SECRET": STORE_SECRET, "DEMO_NAME": "A"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "--store over stdio: this process serves its one client" in done.stderr, done.stderr
    assert "not the session" in done.stderr
