"""What a server declares and how a failing prompt is answered, on both protocol eras,
compared on the wire with the SDK it was written for: a 2.x ``MCPServer`` (mcp 2.x), a 1.x
``FastMCP`` (mcp 1.x, which serves the handshake era only) and fastmcp's ``FastMCP``.

- the capabilities of ``initialize`` (2025-11-25) and of ``server/discover`` (2026-07-28):
  2.x declares no ``logging`` on either (an ``MCPServer`` has no ``logging/setLevel``
  handler), and on 2026-07-28 ``listChanged`` / ``subscribe`` as ``subscriptions/listen`` is
  served; fastmcp declares ``logging``, and on 2026-07-28 ``listChanged`` false and the MCP
  Apps extension;
- ``prompts/get`` of a prompt that raises, of an unknown prompt and without a required
  argument: code 0 with the SDK's text on the handshake era, -32603 ``Internal server
  error`` on 2026-07-28 (2.x's modern entry answers any exception but an ``MCPError`` so);
- a log message of a tool still reaches a 2026-07-28 client, though ``logging`` is not
  declared (as the SDK sends it).
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from typing import Any

import pytest

from tests.compat.test_unchanged import peer

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "probe", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/logLevel": "debug",
}

SERVER = """\
{imports}

mcp = Server("Declared")


@mcp.tool()
async def hello(ctx: Context) -> str:
    await ctx.info("hello from the tool")
    return "ok"


@mcp.resource("note://first")
def first() -> str:
    return "first"


@mcp.prompt()
def failing(topic: str) -> str:
    raise ValueError("boom: " + topic)


@mcp.prompt()
def fine(topic: str) -> str:
    return "About " + topic


if __name__ == "__main__":
    mcp.run({run})
"""

#: Each flavour: its peer, its imports, ``run()``'s arguments, the eras its SDK serves.
FLAVOURS: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "mcp2": (
        "mcp2",
        "from mcp.server.mcpserver import Context, MCPServer as Server",
        "",
        ("legacy", "modern"),
    ),
    "mcp1": (
        "mcp1",
        "from mcp.server.fastmcp import Context, FastMCP as Server",
        "",
        ("legacy",),
    ),
    "fastmcp": (
        "fastmcp",
        "from fastmcp import Context, FastMCP as Server",
        "show_banner=False",
        ("legacy", "modern"),
    ),
}


def _requests(era: str) -> list[dict[str, Any]]:
    """What the probe sends on ``era`` (the handshake first on the handshake era)."""
    prompts = [
        ("prompts/get", {"name": "failing", "arguments": {"topic": "x"}}),
        ("prompts/get", {"name": "nope"}),
        ("prompts/get", {"name": "fine"}),
        ("prompts/get", {"name": "fine", "arguments": {"topic": "y"}}),
        ("tools/call", {"name": "hello", "arguments": {}}),
    ]
    if era == "modern":
        first = [("server/discover", {})]
        return [
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": m,
                "params": {**p, "_meta": {**MODERN_META, "progressToken": i}},
            }
            for i, (m, p) in enumerate(first + prompts, 1)
        ]
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    }
    out: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    out += [
        {"jsonrpc": "2.0", "id": i, "method": m, "params": p} for i, (m, p) in enumerate(prompts, 2)
    ]
    return out


def exchange(command: list[str], messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every frame the stdio server ``command`` writes for ``messages`` (each request sent
    once the one before it is answered), in order, until the last request is answered."""
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[bytes] = queue.Queue()
    out = proc.stdout
    threading.Thread(target=lambda: [lines.put(line) for line in out], daemon=True).start()
    frames: list[dict[str, Any]] = []
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message).encode() + b"\n")
            proc.stdin.flush()
            if "id" not in message:
                continue
            while True:
                frame = json.loads(lines.get(timeout=60))
                frames.append(frame)
                if frame.get("id") == message["id"] and "method" not in frame:
                    break
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return frames


def _normalised(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frames without what each SDK fills in its own way: the server's version (the
    ``serverInfo`` of ``initialize``, the ``_meta`` of 2026-07-28 results), and a result's
    ``isError`` when false (the default, which mcpkit leaves out)."""
    out = []
    for frame in frames:
        frame = json.loads(json.dumps(frame))
        result = frame.get("result")
        if isinstance(result, dict):
            result.pop("serverInfo", None)
            result.pop("_meta", None)
            if result.get("isError") is False:
                del result["isError"]
        out.append(frame)
    return out


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, str], Any]:
    """The frames each side wrote, by (flavour, era, side), all probes run at once."""
    folder = tmp_path_factory.mktemp("declared")
    jobs: dict[tuple[str, str, str], Any] = {}
    threads = []
    for flavour, (name, imports, run, eras) in FLAVOURS.items():
        path = folder / f"{flavour}_server.py"
        path.write_text(SERVER.format(imports=imports, run=run))
        sides = {
            "theirs": [str(peer(name)), str(path)],
            "ours": [sys.executable, "-m", "mcpkit.compat", str(path)],
        }
        for era in eras:
            for side, command in sides.items():
                key = (flavour, era, side)

                def probe(key: Any = key, command: Any = command, era: str = era) -> None:
                    try:
                        jobs[key] = exchange(command, _requests(era))
                    except Exception as exc:  # reported by the test that reads it
                        jobs[key] = exc

                threads.append(threading.Thread(target=probe))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=150)
    return jobs


CASES = [(f, era) for f, (_, _, _, eras) in FLAVOURS.items() for era in eras]


@pytest.mark.parametrize(("flavour", "era"), CASES, ids=["-".join(c) for c in CASES])
def test_same_declaration_and_answers(
    flavour: str, era: str, seen: dict[tuple[str, str, str], Any]
) -> None:
    theirs, ours = (seen[(flavour, era, side)] for side in ("theirs", "ours"))
    for frames in (theirs, ours):
        if isinstance(frames, Exception):
            raise frames
    theirs, ours = _normalised(theirs), _normalised(ours)
    caps = [frames[0]["result"]["capabilities"] for frames in (theirs, ours)]
    assert caps[1] == caps[0]
    assert ours == theirs
    errors = [f["error"] for f in ours if "error" in f]
    if flavour == "mcp2":
        assert "logging" not in caps[1]
        if era == "modern":
            assert errors == [{"code": -32603, "message": "Internal server error"}] * 3
        else:
            assert errors[:2] == [
                {"code": 0, "message": "Error rendering prompt failing"},
                {"code": 0, "message": "Unknown prompt: nope"},
            ]
    logs = [f["params"]["data"] for f in ours if f.get("method") == "notifications/message"]
    assert len(logs) == 1 and "hello from the tool" in json.dumps(logs[0])
