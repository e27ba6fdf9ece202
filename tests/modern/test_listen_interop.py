"""The official Python SDK's client in 2026-07-28 mode opens ``subscriptions/listen``
streams on an mcpkit server over stdio and sees the changes (a registration, an
announcement, a resource update) on the stream that asked for them; the whole
conversation is checked against the 2026-07-28 schema."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import server_env
from tests.interop.conftest import PEER_SCRIPTS, PeerMissing, check_recorded, locate_python_peer

HERE = Path(__file__).parent


def test_the_official_python_client_listens(tmp_path: Path) -> None:
    try:
        peer = locate_python_peer()
    except PeerMissing as exc:
        pytest.fail(str(exc), pytrace=False)
    log = tmp_path / "wire.jsonl"
    run = peer.run(
        HERE / "listen_sdk_client.py",
        "--",
        sys.executable,
        PEER_SCRIPTS / "tee.py",
        log,
        "--",
        sys.executable,
        HERE / "listen_app.py",
        env=server_env(),
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["protocolVersion"] == "2026-07-28"
    assert report["honored"] == {
        "tools": {"toolsListChanged": True},
        "prompts": {"promptsListChanged": True, "resourceSubscriptions": ["test://watched"]},
    }
    assert report["tools"] == ["ToolsListChanged", "ToolsListChanged"]
    assert report["prompts"] == ["PromptsListChanged", "ResourceUpdated:test://watched"]
    assert "from_sdk" in report["listed"]
    checker = check_recorded(log, version="2026-07-28")
    assert not checker.errors, "\n".join(checker.errors)
    listens = [m for m in checker.received("subscriptions/listen")]
    assert len(listens) == 2
    acks = checker.sent("notifications/subscriptions/acknowledged")
    assert sorted(a["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] for a in acks) == (
        sorted(m["id"] for m in listens)
    )
