"""The official client 2.x's ``logging_callback``, ``message_handler``, ``log_level`` and
``call_tool(progress_callback=...)`` on mcpkit's compat client: the same client script run
by mcp 2.x and unchanged on mcpkit, each against an mcp 2.x server over Streamable HTTP whose tool
logs (debug, info, warning), reports progress, and sends a resource update and a tool list
change, on the handshake era and on 2026-07-28, with and without ``log_level``.

What each callback got is compared (as a sorted list: the log messages and the progress of
a call come on the call's stream, the other notifications on the session's own stream, in
either order): a log message reaches ``logging_callback`` (its params) and then
``message_handler`` (the ``LoggingMessageNotification``), every other notification
``message_handler`` as its model; on 2026-07-28 log messages come only with a ``log_level``
(a ``logging_callback`` alone is no opt-in) and notifications unrelated to a request do not
come at all; progress reaches the call's callback as floats.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.compat.driving import warmed
from tests.compat.recorded import run_both
from tests.compat.test_compat import free_port, serve
from tests.compat.test_unchanged import peer

SERVER = """\
import sys

import uvicorn

from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer("Chatty")


@mcp.tool()
async def chat(word: str, ctx: Context) -> str:
    await ctx.debug("a debug line")
    await ctx.info("said " + word)
    await ctx.report_progress(1, 2, "half")
    await ctx.session.send_resource_updated("memo://one")
    await ctx.session.send_tool_list_changed()
    await ctx.warning({"word": word})
    return "said " + word


# sys.argv[1] is the path of a log this server keeps none of
uvicorn.run(mcp.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""

CLIENT = """\
import sys

import anyio

import mcp.types as types
from mcp import Client

got: list[object] = []


async def on_log(params: types.LoggingMessageNotificationParams) -> None:
    got.append(("log", type(params).__name__, params.level, params.data))


async def on_message(message: object) -> None:
    if isinstance(message, Exception):
        got.append(("exception", type(message).__name__))
        return
    assert isinstance(message, types.ServerNotification)
    params = message.params.model_dump(mode="json", exclude_none=True) if message.params else None
    if params:
        params.pop("progress_token", None)
    got.append(("message", type(message).__name__, message.method, params))


async def on_progress(*args: object) -> None:
    got.append(("progress", args))


async def main() -> None:
    url, mode, level = sys.argv[1:4]
    options = {} if level == "-" else {"log_level": level}
    async with Client(
        url, mode=mode, logging_callback=on_log, message_handler=on_message, **options
    ) as client:
        result = await client.call_tool("chat", {"word": "hi"}, progress_callback=on_progress)
        print(result.content[0].text)
        with anyio.fail_after(10):
            while not any(item[0] == "progress" for item in got):
                await anyio.sleep(0.05)
        await anyio.sleep(0.3)  # anything that would follow
    for item in sorted(got, key=repr):
        print(item)


anyio.run(main)
"""


@pytest.mark.parametrize(
    ("mode", "level"), [("legacy", "-"), ("2026-07-28", "-"), ("2026-07-28", "info")]
)
def test_callbacks_get_what_the_sdks_get(mode: str, level: str, tmp_path: Path) -> None:
    runs = run_both(tmp_path, SERVER, CLIENT, mode, args=[level])
    seen = {side: out.splitlines() for side, (out, _) in runs.items()}
    assert seen["ours"] == seen["theirs"]
    out = seen["theirs"]
    assert out[0] == "said hi"
    assert "('progress', (1.0, 2.0, 'half'))" in out
    logs = [line for line in out if line.startswith("('log'")]
    if mode == "legacy":
        assert len(logs) == 3
        assert any("ResourceUpdatedNotification" in line for line in out)
        assert any("ToolListChangedNotification" in line for line in out)
    elif level == "-":
        assert logs == []
    else:
        assert [eval(line)[2] for line in logs] == ["info", "warning"]


#: The 1.x client's callbacks, in memory: ``create_connected_server_and_client_session``
#: with a 1.x ``FastMCP`` whose tool logs, reports progress and sends notifications.
MEMORY_V1 = """\
import anyio

import mcp.types as types
from mcp.server.fastmcp import Context, FastMCP
from mcp.shared.memory import create_connected_server_and_client_session

mcp = FastMCP("Chatty")
got: list[object] = []


@mcp.tool()
async def chat(word: str, ctx: Context) -> str:
    await ctx.debug("a debug line")
    await ctx.info("said " + word)
    await ctx.report_progress(1, 2, "half")
    await ctx.session.send_resource_updated("memo://one")
    await ctx.session.send_tool_list_changed()
    await ctx.warning({"word": word})
    return "said " + word


async def on_log(params: types.LoggingMessageNotificationParams) -> None:
    got.append(("log", type(params).__name__, params.level, params.data))


async def on_message(message: object) -> None:
    if isinstance(message, Exception):
        got.append(("exception", type(message).__name__))
        return
    root = message.root
    params = None
    if root.params:
        params = root.params.model_dump(mode="json", by_alias=True, exclude_none=True)
        params.pop("progressToken", None)
    got.append(("message", type(root).__name__, root.method, params))


async def on_progress(*args: object) -> None:
    got.append(("progress", args))


async def main() -> None:
    async with create_connected_server_and_client_session(
        mcp, logging_callback=on_log, message_handler=on_message
    ) as session:
        result = await session.call_tool("chat", {"word": "hi"}, progress_callback=on_progress)
        print(result.content[0].text)
        with anyio.fail_after(10):
            while len(got) < 10:
                await anyio.sleep(0.05)
        await anyio.sleep(0.2)  # anything that would follow
    for item in sorted(got, key=repr):
        print(item)


anyio.run(main)
"""


def test_memory_session_callbacks_as_1x(tmp_path: Path) -> None:
    """1.x's in-memory session: every log message to ``logging_callback`` and then, as
    every other notification, to ``message_handler`` (a ``ServerNotification`` whose
    ``root`` is the notification model)."""
    # No server, and the script reads no argument (the 1.x session knows no mode).
    runs = run_both(tmp_path, None, MEMORY_V1, "legacy", client_peer="mcp1")
    seen = {side: out.splitlines() for side, (out, _) in runs.items()}
    assert seen["ours"] == seen["theirs"]
    assert len(seen["theirs"]) == 11
    assert "('progress', (1.0, 2.0, 'half'))" in seen["theirs"]
    assert sum(line.startswith("('log'") for line in seen["theirs"]) == 3


EXAMPLES = Path(__file__).resolve().parent / "examples" / "official_v2"


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_streaming_story_client_on_mcpkit(era: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The 2.x ``stories/streaming`` client (``logging_callback`` with ``log_level``, a
    ``progress_callback``, a call cancelled in flight; it asserts what it got), run
    unchanged on mcpkit's compat client against the story's server on mcp 2.x."""
    import os

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(EXAMPLES), *sys.path]))
    port = free_port()
    proc = serve([str(peer("mcp2")), "-m", "stories.streaming.server", "--http", "--port"], port)
    try:
        legacy = ["--legacy"] if era == "legacy" else []
        url = f"http://127.0.0.1:{port}/mcp"
        command = [sys.executable, "-m", "mcpkit.compat", "stories.streaming.client"]
        done = subprocess.run(
            warmed([*command, "--http", url, *legacy]),
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"OK: streaming (http/{era})" in done.stderr


#: The same callbacks with the server object in memory (``Client(mcp)``).
IN_MEMORY = """\
import sys

import anyio

import mcp.types as types
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer("Chatty")
got: list[object] = []


@mcp.tool()
async def chat(word: str, ctx: Context) -> str:
    await ctx.info("said " + word)
    await ctx.report_progress(1, 2, "half")
    await ctx.session.send_resource_updated("memo://one")
    await ctx.warning({"word": word})
    return "said " + word


async def on_log(params: types.LoggingMessageNotificationParams) -> None:
    got.append(("log", params.level, params.data))


async def on_message(message: object) -> None:
    got.append(("message", type(message).__name__))


async def main() -> None:
    mode = sys.argv[1]
    async with Client(
        mcp, mode=mode, logging_callback=on_log, message_handler=on_message, log_level="info"
    ) as client:
        print((await client.call_tool("chat", {"word": "hi"})).content[0].text)
        await anyio.sleep(0.3)
    for item in sorted(got, key=repr):
        print(item)


anyio.run(main)
"""


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_callbacks_in_memory_as_the_sdk(mode: str, tmp_path: Path) -> None:
    runs = run_both(tmp_path, None, IN_MEMORY, mode)
    seen = {side: out.splitlines() for side, (out, _) in runs.items()}
    assert seen["ours"] == seen["theirs"]
    assert seen["theirs"].count("('message', 'LoggingMessageNotification')") == 2


#: A stdio server written by hand that, before its tools, writes a line that is no JSON,
#: a notification no revision defines and a tool list change.
RAW_SERVER = """\
import json, sys

for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:  # a notification, or an answer to a line
        continue
    if msg["method"] == "initialize":
        info = {"name": "raw", "version": "1"}
        caps = {"tools": {}}
        result = {"protocolVersion": "2025-11-25", "capabilities": caps, "serverInfo": info}
    elif msg["method"] == "tools/list":
        sys.stdout.write("this is not json\\n")
        for method in ("notifications/unknown/thing", "notifications/tools/list_changed"):
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\\n")
        result = {"tools": []}
    else:
        error = {"code": -32601, "message": "nope"}
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": error}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"""

RAW_CLIENT = """\
import sys

import anyio

from mcp import Client, StdioServerParameters

got = []


async def on_message(message):
    got.append(type(message).__name__)


async def main():
    mode, server = sys.argv[1:3]
    params = StdioServerParameters(command=sys.executable, args=[server])
    async with Client(params, mode=mode, message_handler=on_message) as client:
        print(len((await client.list_tools()).tools))
        await anyio.sleep(0.5)
    print(got)


anyio.run(main)
"""


def test_message_handler_gets_what_the_wire_breaks(tmp_path: Path) -> None:
    """A line that is no JSON reaches ``message_handler`` as the pydantic
    ``ValidationError`` the SDK's transport hands over; a notification no revision
    defines is dropped; the connection serves on."""
    server = tmp_path / "raw_server.py"
    server.write_text(RAW_SERVER)
    # The client starts the server itself, over stdio.
    runs = run_both(tmp_path, None, RAW_CLIENT, "legacy", args=[str(server)])
    seen = {side: out.splitlines() for side, (out, _) in runs.items()}
    assert seen["ours"] == seen["theirs"]
    assert seen["theirs"] == ["0", "['ValidationError', 'ToolListChangedNotification']"]
