"""The interop harness works: the official Python SDK talks to itself over stdio, 2026-07-28."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.interop.conftest import (
    PEER_SCRIPTS,
    NodePeer,
    PeerMissing,
    PythonPeer,
    check_recorded,
    locate_node_peer,
    locate_python_peer,
)


def test_official_client_2026_talks_to_official_server_over_stdio(
    py_peer: PythonPeer, tmp_path: Path
) -> None:
    log = tmp_path / "wire.jsonl"
    run = py_peer.run(
        PEER_SCRIPTS / "py_client.py",
        "--mode",
        "2026-07-28",
        "--call",
        "add",
        json.dumps({"a": 2, "b": 40}),
        "--",
        sys.executable,
        PEER_SCRIPTS / "tee.py",
        log,
        "--",
        py_peer.python,
        PEER_SCRIPTS / "py_server.py",
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["protocolVersion"] == "2026-07-28"
    assert {"add", "echo"} <= set(report["tools"])
    assert report["prompts"] == ["greet"]
    assert report["resources"] == ["peer://static"]
    (call,) = report["calls"]
    assert call["result"]["content"] == [{"type": "text", "text": "42"}]
    # Stateless on the wire: no handshake, every request carries the modern _meta envelope,
    # and every message is valid against the 2026-07-28 schema.
    checker = check_recorded(log)
    requests = checker.received()
    assert requests and not checker.received("initialize")
    assert all(
        m["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
        for m in requests
        if "method" in m
    )
    assert checker.version == "2026-07-28"
    assert not checker.errors, checker.errors


def test_typescript_client_2026_talks_to_the_python_server(
    ts_peer: NodePeer, py_peer: PythonPeer, tmp_path: Path
) -> None:
    log = tmp_path / "wire.jsonl"
    run = ts_peer.run(
        PEER_SCRIPTS / "ts_client.mjs",
        "--mode",
        "2026-07-28",
        "--call",
        "echo",
        json.dumps({"text": "héllo"}),
        "--",
        sys.executable,
        PEER_SCRIPTS / "tee.py",
        log,
        "--",
        py_peer.python,
        PEER_SCRIPTS / "py_server.py",
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["protocolVersion"] == "2026-07-28"
    assert report["calls"][0]["result"]["content"] == [{"type": "text", "text": "héllo"}]
    checker = check_recorded(log)
    assert not checker.received("initialize") and checker.version == "2026-07-28"
    assert not checker.errors, checker.errors


def test_node_peer_is_installed(ts_peer: NodePeer) -> None:
    assert ts_peer.versions["@modelcontextprotocol/client"].startswith("2.")
    assert ts_peer.versions["@modelcontextprotocol/server"].startswith("2.")
    assert ts_peer.versions["@modelcontextprotocol/inspector"].startswith("2.")
    assert ts_peer.inspector_cli.exists()


def test_a_missing_peer_says_how_to_install_it(tmp_path: Path) -> None:
    with pytest.raises(PeerMissing, match=r"scripts/peers\.sh"):
        locate_python_peer(tmp_path)
    with pytest.raises(PeerMissing, match=r"scripts/peers\.sh"):
        locate_node_peer(tmp_path, tmp_path / "node")


async def test_mcpkit_client_talks_to_the_official_server(py_peer: PythonPeer) -> None:
    # The other direction of the harness: an mcpkit Client against the official server.
    from mcpkit import Client

    async with Client(py_peer.server_command()) as client:
        assert {"add", "echo"} <= {tool.name for tool in await client.list_tools()}
        result = await client.call_tool("add", {"a": 20, "b": 22})
    assert [block.text for block in result.content] == ["42"]  # type: ignore[union-attr]
