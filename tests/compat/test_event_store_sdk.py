"""An event store of the official SDK's interface (``mcp.server.streamable_http.EventStore``)
handed to a compat server is the one used: every SSE event is written through its
``store_event`` under the id it gives, and a ``Last-Event-ID`` resume is replayed through
its ``replay_events_after``, as on mcp 1.x. ``servers/sdk_event_store.py`` records every
call its store gets; both sides are served by uvicorn and driven with raw HTTP.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import httpx
import pytest

from tests.compat.test_compat import SERVERS
from tests.compat.test_http_examples import served
from tests.compat.test_unchanged import peer

SERVER = SERVERS / "sdk_event_store.py"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def events(response: httpx.Response, want: int | None = None) -> list[dict[str, Any]]:
    """The SSE events of an answer (each one's id and parsed data, None for a priming
    event), the first ``want`` of them."""
    out: list[dict[str, Any]] = []
    event: dict[str, Any] = {}
    for line in response.iter_lines():
        if line.startswith("id:"):
            event["id"] = line[3:].strip()
        elif line.startswith("data:"):
            data = line[5:].strip()
            event["data"] = json.loads(data) if data else None
        elif not line and event:
            out.append(event)
            event = {}
            if want is not None and len(out) == want:
                break
    return out


def conversation(port: int, version: str) -> dict[str, Any]:
    """Initialize, the standalone GET stream opened and left, a call streaming two log
    lines, a GET resuming that call's stream after its first log line, then what the store
    was asked (stream ids as their order of appearance, the server's version left out)."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
    init["params"] = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    }
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
    call["params"] = {"name": "notes", "arguments": {}}
    calls = {"jsonrpc": "2.0", "id": 3, "method": "tools/call"}
    calls["params"] = {"name": "calls", "arguments": {}}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
        with http.stream("POST", "/mcp/", json=init, headers=ACCEPT) as response:
            initialized = events(response)
            headers = {**ACCEPT, "mcp-protocol-version": version}
            headers["mcp-session-id"] = response.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert http.post("/mcp/", json=note, headers=headers).status_code == 202
        get = {**headers, "accept": "text/event-stream"}
        with http.stream("GET", "/mcp/", headers=get) as response:
            assert response.status_code == 200  # the standalone stream: nothing stored
        with http.stream("POST", "/mcp/", json=call, headers=headers) as response:
            first = events(response)
        messages = [event for event in first if event["data"] is not None]
        time.sleep(0.3)  # mcp 1.x has let go of the call's stream: it primes a resumed one
        again = {**headers, "accept": "text/event-stream", "last-event-id": messages[0]["id"]}
        with http.stream("GET", "/mcp/", headers=again) as response:
            status = response.status_code
            # the events after the first message, then (2025-11-25) a priming event; mcp
            # 1.x keeps the stream open after that, mcpkit ends it
            replayed = events(response, len(messages) - 1 + (version >= "2025-11-25"))
        with http.stream("POST", "/mcp/", json=calls, headers=headers) as response:
            answer = [event for event in events(response) if event["data"] is not None]
    record = json.loads(answer[0]["data"]["result"]["content"][0]["text"])
    streams: dict[str, str] = {}
    for entry in record:
        if entry[0] == "store_event":
            entry[1] = streams.setdefault(entry[1], f"s{len(streams)}")
            if entry[2] and "serverInfo" in entry[2].get("result", {}):
                entry[2]["result"]["serverInfo"].pop("version")
    for event in initialized:
        if event["data"] is not None:
            event["data"]["result"]["serverInfo"].pop("version")
    return {
        "initialize": initialized,
        "call": first,
        "resumed": status,
        "replayed": replayed,
        "store": record,
    }


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18"])
def test_sdk_event_store_is_used(version: str) -> None:
    """Every event stored through the given store under its ids (``ev0``, ``ev1``, ...),
    priming events on 2025-11-25 only, and the resume replayed through it: the same calls,
    the same events on the wire, on mcpkit as on mcp 1.x."""
    with served(
        [str(peer("mcp1")), str(SERVER), "--port"],
        [sys.executable, "-m", "mcpkit.compat", str(SERVER), "--port"],
    ) as ports:
        theirs, ours = (conversation(port, version) for port in ports)
    assert ours == theirs, json.dumps([ours["store"], theirs["store"]])
    assert ["replay_events_after", ours["call"][-3]["id"]] in ours["store"]
    replayed = [event["id"] for event in ours["replayed"] if event["data"] is not None]
    assert replayed == [event["id"] for event in ours["call"][-2:]]
    assert all(event["id"].startswith("ev") for event in ours["call"])
