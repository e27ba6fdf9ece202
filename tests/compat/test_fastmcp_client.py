"""fastmcp's ``Client`` and ``create_proxy`` on mcpkit.

The client scripts of ``clients/`` run twice, on fastmcp (its peer virtualenv) and
unchanged on mcpkit (``python -m mcpkit.compat``): what they print (lists, results and their
``.data``, errors, the handlers' calls) must be equal. A proxy served over stdio is driven
by the official client on both, as ``test_unchanged.py`` does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.compat.driving import warmed
from tests.compat.test_unchanged import assert_same, drive_both, normalised, peer

CLIENTS = Path(__file__).resolve().parent / "clients"


#: Each test starts interpreters of both SDKs (several, for the stdio and HTTP scripts):
#: more than the default minute on a loaded machine.
pytestmark = pytest.mark.timeout(180)


def start(argv: list[str]) -> subprocess.Popen[str]:
    """Run ``argv``; ``ECHO_SERVER`` tells it how to start ``clients/echo_server.py`` with
    the same interpreter (``fastmcp_client_http.py``)."""
    server = [*argv[:-1], str(CLIENTS / "echo_server.py")]
    env = {**os.environ, "ECHO_SERVER": json.dumps(server)}
    return subprocess.Popen(
        warmed(argv, env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=CLIENTS,
        env=env,
    )


def printed(proc: subprocess.Popen[str], tag: str) -> str:
    """What ``proc`` printed (it must succeed)."""
    out, err = proc.communicate(timeout=150)
    assert proc.returncode == 0, f"{tag} failed:\n{err[-4000:]}"
    return out


def run_both(script: Path) -> tuple[str, str]:
    """``script``'s output on fastmcp and on mcpkit (run at the same time)."""
    theirs = start([str(peer("fastmcp")), str(script)])
    ours = start([sys.executable, "-m", "mcpkit.compat", str(script)])
    return printed(theirs, "fastmcp"), printed(ours, "mcpkit")


@pytest.mark.parametrize(
    "name",
    [
        "fastmcp_client_memory.py",
        "fastmcp_client_stdio.py",
        "fastmcp_client_http.py",
        "fastmcp_client_levels.py",
        "fastmcp_client_config.py",
        "fastmcp_client_complete.py",
        "fastmcp_client_data.py",
    ],
)
def test_client_script_prints_the_same(name: str) -> None:
    theirs, ours = run_both(CLIENTS / name)
    assert ours.splitlines() == theirs.splitlines()
    assert len(ours.splitlines()) >= 6


PROXY_SCRIPT: list[dict[str, Any]] = [
    {"op": "list"},
    {"op": "call", "name": "echo", "args": {"message": "hi"}},
    {"op": "call", "name": "add", "args": {"a": 1, "b": 2}},
    {"op": "call", "name": "boom", "args": {}},
    {"op": "call", "name": "nope", "args": {}},
    {"op": "read", "uri": "data://x"},
    {"op": "read", "uri": "greet://ada"},
    {"op": "get", "name": "ask", "args": {"topic": "tea"}},
    {"op": "call", "name": "greet_me", "args": {}, "answer": {"value": "Ada"}},
]


def without_forwarded(report: dict[str, Any], server: str) -> dict[str, Any]:
    """``report`` without what mcpkit's proxy forwards and fastmcp 4.2.3's does not (checked
    apart): the progress or the logs the upstream sent during ``add`` (fastmcp forwards one
    of the two, which one depending on how it reaches the upstream), and, from an upstream
    it started over stdio, the elicitation of ``greet_me`` (fastmcp answers an error)."""
    for op in report["ops"]:
        if op.get("name") == "add":
            op.pop("progress"), op.pop("logs")
    if server == "fastmcp_proxy_stdio.py":
        report["ops"] = [op for op in report["ops"] if op.get("name") != "greet_me"]
        report["answered"] = []
    return report


@pytest.mark.parametrize("server", ["fastmcp_proxy_memory.py", "fastmcp_proxy_stdio.py"])
def test_proxy_over_stdio_answers_like_fastmcp(server: str, tmp_path: Path) -> None:
    path = CLIENTS / server
    reports = drive_both(
        PROXY_SCRIPT,
        [str(peer("fastmcp")), str(path)],
        [sys.executable, "-m", "mcpkit.compat", str(path)],
        tmp_path,
    )
    theirs, ours = (normalised(r) for r in reports)
    add = next(op for op in ours["ops"] if op.get("name") == "add")
    assert add["progress"] == [[1.0, 2.0, "half"]]
    assert add["logs"] == [{"data": {"extra": None, "msg": "adding"}, "level": "info"}]
    greeted = next(op for op in ours["ops"] if op.get("name") == "greet_me")
    assert greeted["result"]["content"] == [{"type": "text", "text": "hello Ada"}]
    assert ours["serverInfo"] == {"name": "Prox"}
    assert_same(without_forwarded(theirs, server), without_forwarded(ours, server))


def test_transport_inference_and_refusals(tmp_path: Path) -> None:
    """The transport each argument gives, and the arguments refused with a clear error."""
    from mcpkit.compat.fastmcp import FastMCP
    from mcpkit.compat.fastmcp.client import Client
    from mcpkit.compat.fastmcp.client.transports import (
        FastMCPTransport,
        MCPConfigTransport,
        PythonStdioTransport,
        SSETransport,
        StdioTransport,
        StreamableHttpTransport,
    )

    server = FastMCP("s")
    assert isinstance(Client(server).transport, FastMCPTransport)
    assert Client(server).transport.target() is server.native
    script = tmp_path / "server.py"
    script.write_text("")
    for arg in (script, str(script)):
        transport = Client(arg).transport
        assert isinstance(transport, PythonStdioTransport)
        # run under the compat layer, so its fastmcp imports are served by mcpkit
        assert transport.target() == [sys.executable, "-m", "mcpkit.compat", str(script)]
    assert isinstance(Client("http://localhost:1/mcp").transport, StreamableHttpTransport)
    assert isinstance(Client("http://localhost:1/sse").transport, SSETransport)
    assert Client("http://localhost:1/sse").transport.target() == "http://localhost:1/sse"
    config = {"mcpServers": {"a": {"command": "node", "args": ["x.js"]}}}
    transport = Client(config).transport
    assert isinstance(transport, MCPConfigTransport)
    assert transport.target() == ["node", "x.js"]
    assert StdioTransport("python", [str(script)]).target()[1:3] == ["-m", "mcpkit.compat"]
    two = {"mcpServers": {"a": {"url": "http://a/mcp"}, "b": {"url": "http://b/mcp"}}}
    router = Client(two).transport.target()  # the servers' proxies mounted on one router
    assert router.name == "MCPRouter"
    with pytest.raises(ValueError, match="Could not infer"):
        Client(42)
    with pytest.raises(ValueError, match="Could not infer"):
        Client("not a url or a file")


async def test_not_connected_and_nested_blocks() -> None:
    """Using a client outside ``async with`` fails clearly; nested blocks share one
    connection, closed when the outermost ends."""
    from mcpkit.compat.fastmcp import FastMCP
    from mcpkit.compat.fastmcp.client import Client

    server = FastMCP("s")

    @server.tool
    def hello() -> str:
        return "hi"

    client = Client(server)
    with pytest.raises(RuntimeError, match="not connected"):
        await client.list_tools()
    async with client:
        native = client.native
        async with client:
            assert client.native is native
            assert (await client.call_tool("hello")).data == "hi"
        assert client.is_connected()
    assert not client.is_connected()
    assert client.initialize_result is None


async def test_proxy_classes_under_both_paths() -> None:
    """``FastMCPProxy(client_factory=...)`` from fastmcp 4.x's and 2.x's modules serves its
    upstream; a factory returning anything but a client is refused."""
    from mcpkit.compat.fastmcp import FastMCP
    from mcpkit.compat.fastmcp.client import Client
    from mcpkit.compat.fastmcp.server import proxy as old
    from mcpkit.compat.fastmcp.server.providers import proxy as new

    upstream = FastMCP("up")

    @upstream.tool
    def hello() -> str:
        return "hi"

    assert old.FastMCPProxy is new.FastMCPProxy
    front = new.FastMCPProxy(client_factory=lambda: new.ProxyClient(upstream), name="front")
    for mode in ("auto", "legacy"):  # the proxy's own identity on both wires
        async with Client(front, mode=mode) as client:
            assert client.server_info is not None and client.server_info.name == "front"
            result = await client.call_tool("hello")
            assert result.data == "hi"
            info = (result.meta or {}).get("io.modelcontextprotocol/serverInfo")
            assert info == ({"name": "front", "version": ""} if mode == "auto" else None)
    with pytest.raises(TypeError, match="client_factory"):
        new.FastMCPProxy(client_factory=lambda: upstream)
    with pytest.raises(TypeError, match="not both"):
        new.FastMCPProxy()


async def test_auth_and_connection_failures(tmp_path: Path) -> None:
    """A token goes as ``Authorization: Bearer``, ``auth="oauth"`` is fastmcp's browser
    flow bound to the URL (test_fastmcp_client_oauth.py runs it), auth on a transport
    without HTTP is refused; a server that ends before answering is fastmcp's "Connection
    closed" error and one that cannot be reached a RuntimeError naming the failed
    connection, as fastmcp reports them."""
    from mcpkit.compat.fastmcp import FastMCP
    from mcpkit.compat.fastmcp.client import Client

    client = Client("http://127.0.0.1:1/mcp", auth="secret-token")
    assert client.transport.client_options()["headers"] == {"Authorization": "Bearer secret-token"}
    from mcpkit.compat.fastmcp.client.auth import OAuth

    oauth = Client("http://127.0.0.1:1/mcp", auth="oauth").transport.client_options()["auth"]
    assert isinstance(oauth, OAuth) and oauth.mcp_url == "http://127.0.0.1:1/mcp"
    with pytest.raises(ValueError, match="does not support auth"):
        Client(FastMCP("s"), auth="secret-token")
    with pytest.raises(ValueError, match="only supported for HTTP"):
        Client(FastMCP("s"), verify=False)
    from mcpkit.compat.mcp.shared.exceptions import McpError

    script = tmp_path / "quits.py"
    script.write_text("import sys\nsys.exit(0)\n")
    with pytest.raises(McpError, match="Connection closed") as closed:
        async with Client(script):
            pass
    assert closed.value.error.code == -32000  # fastmcp's CONNECTION_CLOSED
    with pytest.raises(RuntimeError, match="Client failed to connect"):
        async with Client("http://127.0.0.1:1/mcp"):
            pass
