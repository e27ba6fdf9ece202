"""``Server.run``: Ctrl-C ends it quietly (stdio and HTTP), HTTP announces its URL on
stderr, ``"sse"`` adds the legacy HTTP+SSE endpoints, an unknown transport is a clear
ValueError, and the HTTP options are typed (no catch-all keywords)."""

from __future__ import annotations

import inspect
import signal
import subprocess
import sys
import textwrap
import typing
from pathlib import Path

import httpx
import pytest

from mcpkit import Server

SERVER = textwrap.dedent(
    """
    import sys
    from mcpkit import Server

    app = Server("quiet", version="1.2")

    @app.tool()
    async def hi() -> str:
        return "hi"

    transport = sys.argv[1]
    if transport == "stdio":
        app.run()
    else:
        app.run(transport, port=0, path="/rpc")
    """
)


def _start(tmp_path: Path, transport: str) -> subprocess.Popen[str]:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    return subprocess.Popen(
        [sys.executable, str(script), transport],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _interrupt(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    return err


def test_stdio_ctrl_c_exits_quietly(tmp_path: Path) -> None:
    proc = _start(tmp_path, "stdio")
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == '{"jsonrpc":"2.0","id":1,"result":{}}'
    err = _interrupt(proc)
    assert proc.returncode == 0
    assert "Traceback" not in err and "KeyboardInterrupt" not in err


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_http_prints_its_url_and_ctrl_c_exits_quietly(tmp_path: Path, transport: str) -> None:
    proc = _start(tmp_path, transport)
    assert proc.stderr is not None
    try:
        line = proc.stderr.readline()
        assert line.startswith("mcpkit: serving quiet 1.2 on http://127.0.0.1:"), line
        url = line.split(" on ", 1)[1].split(" ", 1)[0]
        assert url.endswith("/rpc")
        base = url.removesuffix("/rpc")
        with httpx.Client(timeout=10) as http:
            init = http.post(
                url,
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"},
                    },
                },
                headers={"Accept": "application/json, text/event-stream"},
            )
            assert init.status_code == 200
            assert "quiet" in init.text
            with http.stream("GET", f"{base}/sse") as legacy:
                if transport == "sse":
                    assert legacy.status_code == 200
                    first = next(legacy.iter_lines())
                    assert first == "event: endpoint"
                else:
                    assert legacy.status_code == 404
    except BaseException:
        proc.kill()
        proc.communicate()
        raise
    err = _interrupt(proc)
    assert proc.returncode == 0
    assert "Traceback" not in err and "KeyboardInterrupt" not in err


def test_unknown_transport_names_the_choices() -> None:
    with pytest.raises(ValueError, match=r"'stdio', 'http'.*'sse'"):
        Server("x").run("websocket")  # type: ignore[call-overload]


def test_http_options_are_typed_keywords() -> None:
    from mcpkit.transports.http.options import FIELDS, HttpSettings

    _stdio, http = typing.get_overloads(Server.run)
    params = inspect.signature(http).parameters
    for name in ("host", "port", "path", "options"):
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY
    # The app's settings (stateless, json_response, event_store, ...) are keywords typed by
    # HttpSettings, the fields of HttpServerOptions, so a misspelt one is a type error.
    assert params["settings"].annotation == "Unpack[HttpSettings]"
    assert set(HttpSettings.__annotations__) == FIELDS
    settings = inspect.signature(Server.http_app).parameters["settings"]
    assert settings.annotation == "Unpack[HttpSettings]"
    assert "prot" not in params
