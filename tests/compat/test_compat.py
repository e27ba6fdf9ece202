"""Servers written for the official SDK and for fastmcp, run on them and on mcpkit through
the compat imports, compared through the official Python client (see README.md)."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.compat.driving import Job, submit, warmed
from tests.interop.conftest import (
    PEER_SCRIPTS,
    PEERS_DIR,
    PeerMissing,
    check_recorded,
    locate_python_peer,
)

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
FASTMCP_PYTHON = PEERS_DIR / "fastmcp" / "bin" / "python"

CORE_SCRIPT: list[dict[str, Any]] = [
    {"op": "list"},
    {"op": "call", "name": "add", "args": {"a": 2, "b": 3}},
    {"op": "call", "name": "weather", "args": {"city": "Oslo", "days": 2}},
    {"op": "call", "name": "point", "args": {"x": 4}},
    {"op": "call", "name": "names"},
    {"op": "call", "name": "mapping"},
    {"op": "call", "name": "plain", "args": {"text": "hi"}},
    {"op": "call", "name": "untyped", "args": {"n": 3}},
    {"op": "call", "name": "direct", "args": {"flag": True}},
    {"op": "call", "name": "direct", "args": {"flag": False}},
    {"op": "call", "name": "picture"},
    {"op": "call", "name": "mixed"},
    {"op": "call", "name": "fail", "args": {"reason": "testing"}},
    {"op": "call", "name": "renamed", "args": {"values": [1, 2.5], "scale": 2}},
    {"op": "read", "uri": "config://app"},
    {"op": "read", "uri": "data://blob"},
    {"op": "read", "uri": "data://json"},
    {"op": "read", "uri": "users://42/profile"},
    {"op": "read", "uri": "repos://acme/rocket/readme"},
    {"op": "get", "name": "review", "args": {"code": "print(1)"}},
    {"op": "get", "name": "debug_error", "args": {"error": "KeyError"}},
    {
        "op": "complete",
        "ref": {"type": "ref/resource", "uri": "repos://{owner}/{repo}/readme"},
        "argument": {"name": "repo", "value": "ro"},
        "context": {"owner": "acme"},
    },
    {
        "op": "complete",
        "ref": {"type": "ref/prompt", "name": "debug_error"},
        "argument": {"name": "language", "value": "p"},
    },
    {
        "op": "complete",
        "ref": {"type": "ref/prompt", "name": "review"},
        "argument": {"name": "code", "value": "x"},
    },
]

CONTEXT_SCRIPT: list[dict[str, Any]] = [
    {"op": "list"},
    {"op": "call", "name": "steps", "args": {"count": 3}},
    {"op": "call", "name": "chatty"},
    {"op": "call", "name": "who"},
    {"op": "call", "name": "ask", "args": {"question": "2+2?"}},
    {"op": "call", "name": "greeting"},
    {"op": "call", "name": "own_config"},
    {"op": "call", "name": "announce"},
    {"op": "call", "name": "numbered_07", "args": {"value": "y"}},
    {"op": "call", "name": "grow", "args": {"name": "doubler"}},
    {"op": "call", "name": "doubler", "args": {"x": 21}},
    {"op": "list"},
]

FASTMCP_SCRIPT: list[dict[str, Any]] = [
    {"op": "list"},
    {"op": "call", "name": "add", "args": {"a": 2, "b": 3}},
    {"op": "call", "name": "forecast", "args": {"city": "Oslo"}},
    {"op": "call", "name": "shout", "args": {"text": "hi"}},
    {"op": "call", "name": "listing", "args": {"n": 3}},
    {"op": "call", "name": "fail"},
    {"op": "call", "name": "steps", "args": {"count": 2}},
    {"op": "call", "name": "refuse"},
    {"op": "call", "name": "loose", "args": {"n": 4}},
    {"op": "call", "name": "who"},
    {"op": "call", "name": "greeting"},
    {"op": "call", "name": "own"},
    {"op": "read", "uri": "config://app"},
    {"op": "read", "uri": "users://7/profile"},
    {"op": "get", "name": "review", "args": {"code": "x = 1"}},
    {"op": "get", "name": "explain", "args": {"topic": "MCP", "depth": "2"}},
]

MOUNT_SCRIPT: list[dict[str, Any]] = [
    {"op": "list"},
    {"op": "call", "name": "echo", "args": {"text": "over http"}},
    {"op": "read", "uri": "mounted://web"},
]


@pytest.fixture(scope="module")
def official() -> Path:
    """The official SDK's interpreter (fails, never skips, when it is not installed)."""
    try:
        return locate_python_peer().python
    except PeerMissing as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="module")
def fastmcp_python() -> Path:
    """fastmcp's interpreter (fails, never skips, when it is not installed)."""
    if not FASTMCP_PYTHON.exists():
        pytest.fail(
            f"fastmcp is not installed ({FASTMCP_PYTHON} missing): run scripts/peers.sh",
            pytrace=False,
        )
    return FASTMCP_PYTHON


def rewrite(source: str, package: str) -> str:
    """``source`` with its imports of ``package`` (``mcp`` or ``fastmcp``) turned into
    imports of ``mcpkit.compat.<package>``, and nothing else changed."""
    pattern = rf"^(\s*)(from|import) {package}(\.| )"
    out = re.sub(pattern, rf"\1\2 mcpkit.compat.{package}\3", source, flags=re.M)
    assert out != source, f"no import of {package} to rewrite"
    return out


def start_drive(
    peer: Path,
    script: list[Any],
    target: list[str],
    tmp: Path,
    tag: str,
    mode: str = "legacy",
) -> Job:
    """Start the official client on ``target`` (a stdio command, or ``["--url", url]``), in
    the driver of :mod:`tests.compat.driving` (``tmp`` is the test's folder)."""
    if target[0] == "--url":
        return submit(peer, script, tag, url=target[1], mode=mode)
    return submit(peer, script, tag, command=target, mode=mode)


def finish(job: Job) -> dict[str, Any]:
    return job.report()


def both(
    sdk_python: Path,
    client: Path,
    server: Path,
    package: str,
    script: list[Any],
    tmp: Path,
    mode: str = "legacy",
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The reports of the official client on ``server`` run by its SDK and on mcpkit;
    every message of mcpkit's conversation is checked against the protocol's schema."""
    migrated = tmp / server.name
    migrated.write_text(rewrite(server.read_text(), package))
    log = tmp / "wire.jsonl"
    recorded = [sys.executable, str(PEER_SCRIPTS / "tee.py"), str(log), "--"]
    theirs = start_drive(client, script, [str(sdk_python), str(server)], tmp, "theirs", mode)
    ours = start_drive(
        client, script, [*recorded, sys.executable, str(migrated)], tmp, "ours", mode
    )
    reports = finish(theirs), finish(ours)
    version = "2025-11-25" if mode == "legacy" else mode
    assert not check_recorded(log, version=version).errors
    return reports


def drop_schema_title(answered: list[Any]) -> list[Any]:
    """Elicitation requests without the schema's top-level ``title`` and ``description``
    (mcpkit sends the restricted form schema without them)."""
    out = []
    for item in answered:
        item = json.loads(json.dumps(item))
        schema = item.get("elicitation", {}).get("requestedSchema")
        if isinstance(schema, dict):
            schema.pop("title", None)
            schema.pop("description", None)
        out.append(item)
    return out


def compare(theirs: dict[str, Any], ours: dict[str, Any]) -> None:
    """What the official client saw must be the same, but for mcpkit's deliberate extras."""
    assert ours["capabilities"] == theirs["capabilities"]
    assert ours["serverInfo"]["name"] == theirs["serverInfo"]["name"]
    assert ours["instructions"] == theirs["instructions"]
    assert len(ours["ops"]) == len(theirs["ops"])
    for mine, ref in zip(ours["ops"], theirs["ops"], strict=True):
        assert mine == ref, f"{ref['op']} {ref.get('name') or ref.get('uri') or ''} differs"
    assert drop_schema_title(ours["answered"]) == drop_schema_title(theirs["answered"])


def test_official_sdk_tools_resources_prompts_completion(official: Path, tmp_path: Path) -> None:
    """Tools (structured output of every kind, a CallToolResult returned directly, images,
    a failing tool, names, titles, annotations, icons), resources (text, bytes, declared
    MIME types), templates, prompts (strings and messages) and completion."""
    theirs, ours = both(
        official, official, SERVERS / "official_core.py", "mcp", CORE_SCRIPT, tmp_path
    )
    compare(theirs, ours)
    tools = {t["name"]: t for t in ours["ops"][0]["tools"]}
    assert tools["add"]["outputSchema"]["title"] == "addOutput"  # the official names
    assert tools["renamed"]["icons"] == [{"src": "https://example.com/i.png"}]
    direct = ours["ops"][9]["result"]
    assert direct["isError"] is True and direct["structuredContent"] == {"flag": False}
    assert ours["ops"][10]["result"]["content"][0]["mimeType"] == "image/png"
    completed = ours["ops"][21]["result"]["completion"]["values"]
    assert completed == ["rocket", "roadrunner"]


def test_official_sdk_context_lifespan_notifications(official: Path, tmp_path: Path) -> None:
    """Progress and logs, elicitation, sampling through ``ctx.session.create_message``, the
    lifespan's state, reading the server's own resource, notifications, forty tools listed
    in full (pagination) and a tool added while connected."""
    theirs, ours = both(
        official, official, SERVERS / "official_context.py", "mcp", CONTEXT_SCRIPT, tmp_path
    )
    # A tool registered while clients are connected is not announced, as there.
    assert ours["notifications"] == theirs["notifications"]
    compare(theirs, ours)
    ops = {(op["op"], op.get("name")): op for op in ours["ops"]}
    assert ops["call", "steps"]["progress"] == [
        [1, 3, "step 1"],
        [2, 3, "step 2"],
        [3, 3, "step 3"],
    ]
    assert [log["level"] for log in ops["call", "chatty"]["logs"]] == [
        "debug",
        "info",
        "warning",
        "error",
    ]
    assert ops["call", "who"]["result"]["content"][0]["text"] == "Ada is 36"
    assert ops["call", "greeting"]["result"]["structuredContent"] == {
        "result": "hello from context"
    }
    assert len(ours["ops"][-1]["tools"]) == len(ours["ops"][0]["tools"]) + 1 == 49


def test_fastmcp_server(fastmcp_python: Path, official: Path, tmp_path: Path) -> None:
    """A fastmcp server: bare and configured decorators, tags, fastmcp's schemas, titles and
    result form, its error text, progress and logs, elicitation, the lifespan, resources,
    templates and prompts."""
    theirs, ours = both(
        fastmcp_python, official, SERVERS / "fastmcp_app.py", "fastmcp", FASTMCP_SCRIPT, tmp_path
    )
    assert not theirs["notifications"] and not ours["notifications"]
    compare(theirs, ours)
    tools = {t["name"]: t for t in ours["ops"][0]["tools"]}
    assert tools["forecast"]["_meta"] == {"fastmcp": {"tags": ["weather"]}}
    assert ours["ops"][5]["result"]["content"][0]["text"] == "Error calling tool 'fail': boom"
    assert ours["ops"][6]["logs"][0]["data"] == {"msg": "working", "extra": None}
    assert ours["ops"][7]["result"]["content"][0]["text"] == "not today"
    assert ours["ops"][8]["result"]["structuredContent"] == {"n": 4}  # sent all the same
    assert "outputSchema" not in tools["loose"]


def test_official_sdk_server_on_the_stateless_wire(official: Path, tmp_path: Path) -> None:
    """The same context server driven on 2026-07-28: what the official SDK serves, mcpkit
    serves alike; the elicitation and sampling the official ``MCPServer`` cannot do there
    (no back-channel) work on mcpkit, as multi round-trip input requests."""
    script = [op for op in CONTEXT_SCRIPT if op.get("name") not in ("announce", "grow", "doubler")]
    theirs, ours = both(
        official,
        official,
        SERVERS / "official_context.py",
        "mcp",
        script,
        tmp_path,
        mode="2026-07-28",
    )
    for mine, ref in zip(ours["ops"], theirs["ops"], strict=True):
        if "error" in ref:
            assert "no back-channel" in ref["error"], ref["error"]
            assert "error" not in mine and mine["result"]["isError"] is False, mine
        else:
            assert mine == ref
    interactive = {op["name"]: op for op in ours["ops"] if op.get("name") in ("who", "ask")}
    assert interactive["who"]["result"]["content"][0]["text"] == "Ada is 36"
    assert interactive["ask"]["result"]["content"][0]["text"] == "sampled: 1"
    assert [log["level"] for log in ours["ops"][2]["logs"]] == ["debug", "info", "warning", "error"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def serve(argv: list[str], port: int) -> Any:
    proc = subprocess.Popen(
        warmed([*argv, str(port)]), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            if proc.poll() is not None:
                raise AssertionError(
                    f"the server exited: {proc.stderr.read() if proc.stderr else ''}"
                )
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("the server did not start listening")


def test_official_sdk_mounted_in_starlette(official: Path, tmp_path: Path) -> None:
    """``streamable_http_app()`` mounted under ``/api`` of a Starlette app whose lifespan
    runs ``mcp.session_manager.run()``: the same over Streamable HTTP on both."""
    server = SERVERS / "official_mount.py"
    migrated = tmp_path / server.name
    migrated.write_text(rewrite(server.read_text(), "mcp"))
    port_theirs, port_ours = free_port(), free_port()
    procs = [serve([str(official), str(server)], port_theirs)]
    try:
        procs.append(serve([sys.executable, str(migrated)], port_ours))
        runs = [
            start_drive(
                official, MOUNT_SCRIPT, ["--url", f"http://127.0.0.1:{port}/api/mcp"], tmp_path, tag
            )
            for port, tag in ((port_theirs, "theirs"), (port_ours, "ours"))
        ]
        theirs, ours = (finish(r) for r in runs)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
    compare(theirs, ours)
    assert ours["ops"][1]["progress"] == [[1, 1, "echoing"]]
    assert ours["ops"][1]["logs"] == [{"data": "echo over http", "level": "info"}]
