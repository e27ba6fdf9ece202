"""The compat client's remaining differences from the official SDK's, each closed and
compared: the same client script run by the SDK (mcp 2.x, or 1.x) and unchanged on
mcpkit (``python -m mcpkit.compat``) must print the same.

- ``Client``'s public names: the dataclass fields the SDK's ``Client`` keeps readable, and
  ``subscribe_resource``, ``unsubscribe_resource``, ``send_progress_notification``,
  ``send_roots_list_changed`` (sent whatever the server declared, as the SDK sends them;
  a low-level server's ``on_progress`` gets a client's progress).
- ``raise_exceptions=True`` with a server in memory: a handler's exception answers a
  2026-07-28 request with its text (not ``Internal server error``) and, on the handshake
  era, is raised (in an exception group) as the client leaves.
- A line from the server that is not JSON: handed to ``message_handler`` and not answered
  (mcpkit's own client answers it with a -32700 ``Parse error``).
- ``notifications/tasks/status`` (not a notification of the 2.x client's tables): dropped,
  never handed to ``message_handler``.
- ``mcp.types.LoggingCapability`` / ``CompletionsCapability``: models (``isinstance``
  holds on what the client reports), taken by ``ServerCapabilities`` as a dict is.
- A 1.x ``FastMCP`` (or 1.x low-level server) built without a version: it reports the 1.x
  release (the installed ``mcp`` distribution's version, as 1.x reads it), not ``''``.
- A 2026-07-28 request to a compat server without its ``_meta`` envelope (or without a key
  of it): -32602 in 2.x's words, not mcpkit's.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.compat.driving import warmed
from tests.compat.test_unchanged import peer

#: What a script prints on both sides of a comparison: its errors as their leaf's text
#: and code (the SDK's in-memory client wraps some in exception groups; its ``MCPError`` is
#: mcpkit's ``McpError`` by another name).
PRELUDE = """\
import sys
import warnings

import anyio

warnings.simplefilter("ignore")


def leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


def shown(exc: BaseException) -> str:
    exc = leaf(exc)
    code = getattr(getattr(exc, "error", None), "code", "")
    return f"{'error' if code else type(exc).__name__}: {exc} {code}"
"""


def compare(tmp_path: Path, script: str, *args: str, sdk: str = "mcp2") -> list[str]:
    """Run ``script`` on the SDK and on mcpkit; assert both printed the same; the lines."""
    path = tmp_path / "client.py"
    path.write_text(PRELUDE + script)
    seen = {}
    sides = {
        "theirs": [str(peer(sdk)), str(path)],
        "ours": [sys.executable, "-m", "mcpkit.compat", str(path)],
    }
    for side, argv in sides.items():
        done = subprocess.run(warmed([*argv, *args]), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{side}: {done.stderr[-3000:]}"
        seen[side] = done.stdout.splitlines()
    assert seen["ours"] == seen["theirs"]
    return seen["theirs"]


METHODS = """
from mcp.client import Client
from mcp.server.lowlevel import Server
import mcp.types as types

got = []


async def on_sub(ctx, params):
    got.append(("sub", str(params.uri)))
    return types.EmptyResult()


async def on_unsub(ctx, params):
    got.append(("unsub", str(params.uri)))
    return types.EmptyResult()


async def on_progress(ctx, params):
    got.append(("progress", params.progress_token, params.progress, params.total, params.message))


async def on_roots(ctx, params):
    got.append(("roots",))


server = Server(
    "t",
    on_subscribe_resource=on_sub,
    on_unsubscribe_resource=on_unsub,
    on_progress=on_progress,
    on_roots_list_changed=on_roots,
)


async def main():
    client = Client(server, mode=sys.argv[1], raise_exceptions=False)
    print(sorted(n for n in dir(client) if not n.startswith("_")))
    print(client.raise_exceptions, client.input_required_max_rounds, client.mode)
    print(type(client.cache).__name__, client.log_level, client.server is server)
    async with client:
        try:
            print(type(await client.subscribe_resource("memo://a")).__name__)
            print(type(await client.unsubscribe_resource("memo://a")).__name__)
        except Exception as exc:
            print(shown(exc))
        await client.send_progress_notification("tok", 0.5, 1.0, "half")
        await client.send_roots_list_changed()
        await anyio.sleep(0.3)
    print(got)


try:
    anyio.run(main)
except BaseException as exc:
    print(shown(exc))
"""


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_client_methods_and_fields_as_the_sdks(mode: str, tmp_path: Path) -> None:
    out = compare(tmp_path, METHODS, mode)
    assert "subscribe_resource" in out[0] and "send_roots_list_changed" in out[0]
    assert out[1] == f"False 10 {mode}"
    if mode == "legacy":
        assert out[-1] == (
            "[('sub', 'memo://a'), ('unsub', 'memo://a'), "
            "('progress', 'tok', 0.5, 1.0, 'half'), ('roots',)]"
        )
    else:  # no resources/subscribe on 2026-07-28; a client's notifications are dropped
        assert "Method not found" in out[3]
        assert out[-1] == "[]"


#: A server speaking raw JSON-RPC over stdio that writes a line that is not JSON before it
#: answers ``ping``, three notifications before it answers ``tools/call``, and records
#: every message it got in the file of its argument.
RAW_SERVER = """\
import json
import sys

NOTIFICATIONS = [
    ("notifications/tasks/status", {
        "taskId": "t1", "status": "working", "createdAt": "2025-01-01T00:00:00Z",
        "lastUpdatedAt": "2025-01-01T00:00:00Z", "ttl": None,
    }),
    ("notifications/elicitation/complete", {"elicitationId": "e1"}),
    ("notifications/tools/list_changed", None),
]
seen = open(sys.argv[1], "w")
for line in sys.stdin:
    msg = json.loads(line)
    seen.write(json.dumps({k: msg[k] for k in ("method", "error") if k in msg}) + "\\n")
    seen.flush()
    if "id" not in msg or "method" not in msg:
        continue
    if msg["method"] == "initialize":
        result = {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "1"},
        }
    elif msg["method"] == "tools/list":
        result = {"tools": []}
    elif msg["method"] == "tools/call":
        for method, params in NOTIFICATIONS:
            note = {"jsonrpc": "2.0", "method": method, "params": params}
            sys.stdout.write(json.dumps(note) + "\\n")
        result = {"content": []}
    else:
        if msg["method"] == "ping":
            sys.stdout.write("this is not json\\n")
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\\n")
    sys.stdout.flush()
"""

NOT_JSON = """
from mcp import StdioServerParameters
from mcp.client import Client

got = []


async def on_message(message):
    got.append(type(message).__name__ if isinstance(message, Exception) else "message")


async def main():
    server, seen = sys.argv[1:3]
    params = StdioServerParameters(command=sys.argv[3], args=[server, seen])
    async with Client(params, mode="legacy", message_handler=on_message) as client:
        print(len((await client.list_tools()).tools))
        await client.send_ping()
        await client.send_ping()
    print(got)
    print(open(seen).read())


anyio.run(main)
"""


def test_a_line_that_is_not_json_goes_unanswered(tmp_path: Path) -> None:
    server = tmp_path / "raw_server.py"
    server.write_text(RAW_SERVER)
    out = compare(tmp_path, NOT_JSON, str(server), str(tmp_path / "seen.jsonl"), sys.executable)
    assert out[0] == "0"
    got = [line for line in out[2:] if line]
    assert got == [
        '{"method": "initialize"}',
        '{"method": "notifications/initialized"}',
        '{"method": "tools/list"}',
        '{"method": "ping"}',
        '{"method": "ping"}',
    ]


TASK_STATUS = """
from mcp import StdioServerParameters
from mcp.client import Client

got = []


async def on_message(message):
    got.append(getattr(message, "method", type(message).__name__))


async def main():
    server, seen = sys.argv[1:3]
    params = StdioServerParameters(command=sys.argv[3], args=[server, seen])
    async with Client(params, mode="legacy", message_handler=on_message) as client:
        await client.call_tool("any", {})
        with anyio.fail_after(10):
            while "notifications/tools/list_changed" not in got:
                await anyio.sleep(0.05)
    print(got)


anyio.run(main)
"""


def test_task_status_is_not_handed_to_message_handler(tmp_path: Path) -> None:
    server = tmp_path / "raw_server.py"
    server.write_text(RAW_SERVER)
    out = compare(tmp_path, TASK_STATUS, str(server), str(tmp_path / "seen.jsonl"), sys.executable)
    assert out == ["['notifications/elicitation/complete', 'notifications/tools/list_changed']"]


CAPABILITY_MODELS = """
import mcp.types as types
from mcp.client import Client
from mcp.server.lowlevel import Server

caps = types.ServerCapabilities(
    logging=types.LoggingCapability(), completions=types.CompletionsCapability()
)
print(repr(caps.logging), isinstance(caps.logging, types.LoggingCapability))
print(caps.model_dump(by_alias=True, exclude_none=True))
print(types.ServerCapabilities(logging={}).logging)


async def on_level(ctx, params):
    return types.EmptyResult()


async def on_complete(ctx, params):
    return types.CompleteResult(completion=types.Completion(values=[]))


server = Server("x", on_set_logging_level=on_level, on_completion=on_complete)


async def main():
    for mode in ("legacy", "auto"):
        async with Client(server, mode=mode) as client:
            got = client.server_capabilities
            print(mode, repr(got.logging), isinstance(got.logging, types.LoggingCapability))
            print(isinstance(got.completions, types.CompletionsCapability))


anyio.run(main)
"""


def test_logging_capability_is_a_model(tmp_path: Path) -> None:
    out = compare(tmp_path, CAPABILITY_MODELS)
    assert out[0] == "LoggingCapability() True"
    assert out[3:] == [
        "legacy LoggingCapability() True",
        "True",
        "auto LoggingCapability() True",
        "True",
    ]


VERSIONLESS_V1 = """
from mcp.server.fastmcp import FastMCP
from mcp.server.lowlevel import Server
from mcp.shared.memory import create_connected_server_and_client_session

low = Server("low")


@low.list_tools()
async def list_tools():
    return []


async def main():
    for server in (FastMCP("Demo"), low):
        async with create_connected_server_and_client_session(server) as session:
            print(repr((await session.initialize()).serverInfo.version))
    print(repr(low.create_initialization_options().server_version))


anyio.run(main)
"""


def test_a_versionless_1x_server_reports_the_sdks_release(tmp_path: Path) -> None:
    out = compare(tmp_path, VERSIONLESS_V1, sdk="mcp1")
    assert out == ["'1.30.0'"] * 3


ENVELOPE_SERVER = """\
import sys

import uvicorn

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("Enveloped")


@mcp.tool()
def echo(word: str) -> str:
    return word


uvicorn.run(mcp.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""

#: 2026-07-28 requests whose ``_meta`` envelope is missing, or lacks a key of it.
ENVELOPES = [
    {},
    None,
    {"_meta": {}},
    {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
    {"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}},
]


def test_a_request_without_its_envelope_is_refused_as_the_sdk_refuses_it(
    tmp_path: Path,
) -> None:
    import httpx

    from tests.compat.test_compat import free_port, serve

    path = tmp_path / "server.py"
    path.write_text(ENVELOPE_SERVER)
    seen: dict[str, list[object]] = {}
    sides = {
        "theirs": [str(peer("mcp2")), str(path)],
        "ours": [sys.executable, "-m", "mcpkit.compat", str(path)],
    }
    for side, argv in sides.items():
        port = free_port()
        proc = serve(argv, port)
        try:
            answers: list[object] = []
            for params in ENVELOPES:
                body: dict[str, object] = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
                if params is not None:
                    body["params"] = params
                reply = httpx.post(
                    f"http://127.0.0.1:{port}/mcp",
                    json=body,
                    headers={
                        "accept": "application/json, text/event-stream",
                        "mcp-protocol-version": "2026-07-28",
                        "mcp-method": "tools/list",
                    },
                    timeout=20,
                )
                answers.append((reply.status_code, reply.json()))
            seen[side] = answers
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    assert seen["ours"] == seen["theirs"]
    codes = {answer[1]["error"]["code"] for answer in seen["theirs"]}  # type: ignore[index]
    assert codes == {-32602}


RAISING = """
from mcp.client import Client
from mcp.server.lowlevel import Server


async def on_list_tools(ctx, params):
    raise ValueError("boom in list_tools")


async def main():
    for mode in ("legacy", "auto"):
        for raising in (False, True):
            try:
                async with Client(
                    Server("t", on_list_tools=on_list_tools), raise_exceptions=raising, mode=mode
                ) as client:
                    try:
                        await client.list_tools()
                    except Exception as exc:
                        print(mode, raising, "answered", exc.error.code, exc.error.message)
            except BaseException as exc:
                inner = leaf(exc)
                print(mode, raising, "raised", type(exc).__name__, type(inner).__name__, inner)


anyio.run(main)
"""


def test_raise_exceptions_as_the_sdk(tmp_path: Path) -> None:
    out = compare(tmp_path, RAISING)
    assert out == [
        "legacy False answered 0 boom in list_tools",
        "legacy True answered 0 boom in list_tools",
        "legacy True raised ExceptionGroup ValueError boom in list_tools",
        "auto False answered -32603 Internal server error",
        "auto True answered -32603 boom in list_tools",
    ]
