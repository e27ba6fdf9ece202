"""``mcpkit run`` (stdio and Streamable HTTP, with --reload) and ``mcpkit demo``, driven as
subprocesses; the other commands talk to the served URL."""

from __future__ import annotations

import json
import socket
import sys
import textwrap
from pathlib import Path
from typing import Any

from tests.cli.conftest import EVERYTHING, ROOT, mcpkit

SERVER_V1 = textwrap.dedent(
    """
    from mcpkit import Server

    app = Server("reloadable", version="1")

    @app.tool()
    def one() -> str:
        return "first"
    """
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_run_over_stdio_is_a_command_line_target() -> None:
    target = f"{sys.executable} -m mcpkit run {EVERYTHING}:app"
    done = mcpkit("call", target, "add", "a=1", "b=2", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["content"] == [{"type": "text", "text": '{"result":3}'}]


def test_run_over_http_then_inspect_call_read_prompt(served: Any) -> None:
    server = served(str(EVERYTHING), "--port", "0")
    assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/mcp")

    inspected = mcpkit("inspect", server.url, "--json")
    assert inspected.returncode == 0, inspected.stderr
    info = json.loads(inspected.stdout)
    assert info["url"] == server.url
    assert info["serverInfo"]["name"] == "everything"

    call = mcpkit("call", server.url, "forecast", "city=Rome", "days=2")
    assert call.returncode == 0, call.stderr
    assert json.loads(call.stdout) == {"city": "Rome", "days": 2, "summary": "sunny"}
    assert "progress 2/2: day 2" in call.stderr
    assert "[info] forecasting Rome" in call.stderr

    read = mcpkit("read", server.url, "test://static-text")
    assert read.stdout.splitlines()[-1] == "This is the content of the static text resource."
    prompt = mcpkit("prompt", server.url, "review", "code=x")
    assert prompt.returncode == 0 and "Please review this python code:" in prompt.stdout

    declined = mcpkit("call", server.url, "ask_user", "--no-input")
    assert declined.stdout.strip() == "user chose decline"

    headers = mcpkit("inspect", server.url, "-H", "X-Test: 1", "--json")
    assert headers.returncode == 0, headers.stderr


def test_run_over_http_from_an_mcpservers_config(served: Any, tmp_path: Path) -> None:
    server = served(str(EVERYTHING), "--port", "0", "--event-store", str(tmp_path / "ev.db"))
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"remote": {"url": server.url}}}))
    done = mcpkit("call", "remote", "echo", "text=over http", "--config", str(config))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith("over http")
    assert (tmp_path / "ev.db").is_file()


def test_run_rejects_what_it_cannot_serve() -> None:
    done = mcpkit("run", "python server.py")
    assert done.returncode == 2
    assert done.stderr.startswith("error: cannot run 'python server.py'")
    missing = mcpkit("run", "nope.py")
    assert missing.returncode == 1
    assert missing.stderr.splitlines()[0] == "error: no such file: nope.py"


def test_reload_restarts_the_server_when_a_file_changes(served: Any, tmp_path: Path) -> None:
    source = tmp_path / "reloadable.py"
    source.write_text(SERVER_V1)
    port = _free_port()
    server = served(str(source), "--port", str(port), "--reload")
    first = mcpkit("inspect", server.url, "--json")
    assert [t["name"] for t in json.loads(first.stdout)["tools"]] == ["one"]

    source.write_text(SERVER_V1 + "\n@app.tool()\ndef two() -> str:\n    return 'second'\n")
    server.wait_for(r"reloadable\.py changed: restarting the server")
    server.wait_for(r"serving reloadable 1 on ")
    second = mcpkit("call", server.url, "two")
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "second"

    source.write_text("raise RuntimeError('broken on purpose')\n")  # a crash is reported...
    server.wait_for(r"the server exited with code 1; waiting for a change")
    source.write_text(SERVER_V1)  # ...and the next change brings it back
    server.wait_for(r"serving reloadable 1 on ")
    third = mcpkit("inspect", server.url, "--json")
    assert [t["name"] for t in json.loads(third.stdout)["tools"]] == ["one"]


def test_demo_runs_every_feature_and_ends_by_itself(tmp_path: Path) -> None:
    done = mcpkit("demo", "--save-dir", str(tmp_path), timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "serving over Streamable HTTP at http://127.0.0.1:" in out
    for expected in (
        "protocol: 2025-11-25",
        "<- progress 3/3: day 3",
        "<- log [info] forecasting Oslo",
        '<- structuredContent: {"city":"Oslo","days":3,"summary":"sunny"}',
        "<- error: Error executing tool 'fail': this tool always fails",
        "protocol error -32602",
        "-> tools/call long_job(steps=10000)\n    <- progress 1/10000\n"
        "    -> notifications/cancelled: the caller gave up, no response will come\n"
        "    -> ping: the session carries on",
        "-> scripted LLM replies: 'Paris.'",
        "<- text: Paris.",
        "<- text: hello Ada (green)",
        "/workspace",
        '{"result":42}',
        "-> tasks/result: done after 3 steps",
        "-> tasks/get: completed",
        "-> resources/read test://static-text: This is the content",
        "['Oslo', 'Osaka', 'Ottawa']",
        "<- notifications/resources/updated test://static-text",
        "<- notifications/tools/list_changed",
        "<- text: HELLO",
        "info messages received after setLevel: 0",
        "events stored for resumption:",
        "demo finished in",
    ):
        assert expected in out, expected
    assert (tmp_path / "pixel.png").is_file()
    assert "did not arrive" not in out
    assert done.stderr == ""


def test_demo_script_runs_the_demo() -> None:
    text = (ROOT / "scripts" / "demo.sh").read_text()
    assert "python -m mcpkit demo" in text
