"""The official Python SDK client drives one mcpkit server over stdio in both eras: lists,
tool calls (one that elicits, one that samples, one that lists roots), resources, templates,
prompts and completion; every message of the conversation is schema-checked."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.interop.conftest import PEER_SCRIPTS, PythonPeer, check_recorded

SERVER = Path(__file__).with_name("dual_era_server.py")


def drive(py_peer: PythonPeer, tmp_path: Path, mode: str) -> tuple[dict[str, Any], Any]:
    log = tmp_path / f"wire-{mode}.jsonl"
    run = py_peer.run(
        PEER_SCRIPTS / "py_client.py",
        "--mode",
        mode,
        "--call",
        "add",
        json.dumps({"a": 2, "b": 40}),
        "--call",
        "greet",
        "{}",
        "--call",
        "capital",
        "{}",
        "--call",
        "where",
        "{}",
        "--read",
        "test://static",
        "--read",
        "test://item/7",
        "--get",
        "hello",
        json.dumps({"name": "Ann"}),
        "--complete",
        "prompt",
        "hello",
        "name",
        "al",
        "--elicit-content",
        json.dumps({"name": "Alice"}),
        "--sampling-text",
        "Paris",
        "--",
        sys.executable,
        PEER_SCRIPTS / "tee.py",
        log,
        "--",
        sys.executable,
        SERVER,
    )
    assert run.returncode == 0, run.stderr
    version = "2026-07-28" if mode != "legacy" else "2025-11-25"
    return json.loads(run.stdout), check_recorded(log, version=version)


def texts(report: dict[str, Any]) -> dict[str, str]:
    return {c["name"]: c["result"]["content"][0]["text"] for c in report["calls"]}


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
def test_official_client_drives_both_eras(py_peer: PythonPeer, tmp_path: Path, mode: str) -> None:
    report, checker = drive(py_peer, tmp_path, mode)
    era = "modern" if mode == "2026-07-28" else "legacy"
    assert report["protocolVersion"] == ("2026-07-28" if era == "modern" else "2025-11-25")
    assert report["tools"] == ["add", "greet", "capital", "where"]
    assert report["prompts"] == ["hello"]
    assert report["resources"] == ["test://static"]
    assert report["templates"] == ["test://item/{id}"]
    assert texts(report) == {
        "add": '{"result":42}',
        "greet": f"Hello, Alice! ({era})",
        "capital": "LLM said: Paris",
        "where": "file:///interop/root",
    }
    assert [k["kind"] for k in report["answered"]] == ["elicitation", "sampling", "roots"]
    reads = {r["uri"]: r["result"]["contents"][0]["text"] for r in report["reads"]}
    assert reads == {"test://static": "static text", "test://item/7": "item 7"}
    (got,) = report["gets"]
    assert got["result"]["messages"][0]["content"]["text"] == "Say hello to Ann"
    (completed,) = report["completions"]
    assert completed["result"]["completion"]["values"] == ["alice", "albert"]
    assert not checker.errors, checker.errors
    received = checker.received()
    if era == "modern":
        # stateless: no handshake, nothing asked by request, answers came as input_required
        assert not checker.received("initialize")
        assert not checker.sent("elicitation/create") and not checker.sent("sampling/createMessage")
        results = [m["result"] for d, m in checker.messages if d == "send" and "result" in m]
        assert all(r.get("resultType") in ("complete", "input_required") for r in results)
        assert sum(r.get("resultType") == "input_required" for r in results) == 3
        listed = [r for r in results if "tools" in r]
        assert listed and listed[0]["ttlMs"] == 1000 and listed[0]["cacheScope"] == "public"
    else:
        assert checker.received("initialize")
        assert checker.sent("elicitation/create") and checker.sent("sampling/createMessage")
        results = [m["result"] for d, m in checker.messages if d == "send" and "result" in m]
        assert not any("resultType" in r or "ttlMs" in r for r in results)
    assert received
