"""The official SDK's example servers that serve Streamable HTTP only, run unchanged on
mcpkit and on the SDK they were written for, each side served by uvicorn on a port of its
own, and compared over HTTP (``examples/NOTICE`` for the sources):

- 1.x and 2.x ``servers/everything-server`` (the conformance server): every tool, resource,
  template and prompt it lists exercised by the official client (``drive.py``'s
  ``everything``), the SSE stream it closes mid-call resumed by the client;
- 2.x ``servers/simple-streamablehttp-stateless``; 1.x ``servers/simple-streamablehttp``
  (an event store, SSE or JSON responses);
- the 2.x stories exporting an ASGI app (``run_app_from_args``): each story's own client
  passes against both sides, and the official client's conversations and raw requests
  (the headers, the content type, the session id) answer alike.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.compat.driving import submit, warmed
from tests.compat.test_compat import free_port, serve
from tests.compat.test_examples_official import comparable
from tests.compat.test_unchanged import assert_same, peer

EXAMPLES = Path(__file__).resolve().parent / "examples"
V1 = EXAMPLES / "official_v1"
V2 = EXAMPLES / "official_v2"
MODERN = "2026-07-28"


@contextmanager
def served(theirs: list[str], ours: list[str]) -> Iterator[tuple[int, int]]:
    """Both servers listening (each command given its port last): their ports."""
    ports = free_port(), free_port()
    procs = [serve(theirs, ports[0])]
    try:
        procs.append(serve(ours, ports[1]))
        yield ports
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)


def console(path: Path, tmp: Path, *args: str) -> Path:
    """A launcher like the one pip writes for the example's ``main()`` (click options)."""
    launcher = tmp / f"launch_{path.stem}.py"
    launcher.write_text(
        f"import sys\nsys.path.insert(0, {str(path.parent)!r})\n"
        f"sys.argv[1:1] = {list(args)!r}\n"
        f"from {path.stem} import main\nsys.exit(main())\n"
    )
    return launcher


def conversations(
    script: list[dict[str, Any]], urls: tuple[str, str], mode: str = "legacy"
) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the official client saw running ``script`` at each URL (theirs, ours)."""
    jobs = [
        submit(peer("mcp2"), script, tag, url=url, mode=mode)
        for url, tag in zip(urls, ("theirs", "ours"), strict=True)
    ]
    reports = [job.report() for job in jobs]
    for report in reports:  # a client pinned to 2026-07-28 asks for no server/discover
        report["serverInfo"] = report["serverInfo"] or {}
    theirs, ours = (comparable(report) for report in reports)
    if os.environ.get("HTTPEX_DUMP"):
        Path(os.environ["HTTPEX_DUMP"]).write_text(json.dumps([theirs, ours]))
    return theirs, ours


# --- servers/everything-server --------------------------------------------------------

EVERYTHING = [{"op": "everything", "skip": []}]

#: The everything server's tools asking the client with ``ctx.elicit`` or
#: ``ctx.session.create_message``: on 2026-07-28 mcp 2.x refuses them (no back-channel)
#: and mcpkit carries them as input requests (docs/migration.md).
PUSHED = ("test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults")
PUSHED += ("test_elicitation_sep1330_enums",)


@pytest.mark.parametrize(
    ("sdk", "folder", "mode"),
    [("mcp1", V1, "legacy"), ("mcp2", V2, "legacy"), ("mcp2", V2, MODERN)],
    ids=["1.x", "2.x-legacy", "2.x-2026-07-28"],
)
def test_everything_server(sdk: str, folder: Path, mode: str, tmp_path: Path) -> None:
    """The conformance server: every tool (content of each kind, logs, progress, sampling,
    elicitation, an error, the SSE stream closed mid-call and resumed), resource, template
    and prompt, the same over Streamable HTTP."""
    launcher = console(folder / "server_mcp_everything_server.py", tmp_path, "--log-level", "ERROR")
    with served(
        [str(peer(sdk)), str(launcher), "--port"],
        [sys.executable, "-m", "mcpkit.compat", str(launcher), "--port"],
    ) as ports:
        urls = (f"http://127.0.0.1:{ports[0]}/mcp", f"http://127.0.0.1:{ports[1]}/mcp")
        theirs, ours = conversations(EVERYTHING, urls, mode)
    if mode == MODERN:
        refs = {op.get("name"): op for op in theirs["ops"]}
        for op in ours["ops"]:
            if op.get("name") in PUSHED:
                ref = refs[op["name"]]
                assert "no back-channel" in ref["result"]["content"][0]["text"], ref
                assert "no back-channel" not in op["result"]["content"][0]["text"], op
                ref["result"] = op["result"]
        ours["answered"] = theirs["answered"] = []
    assert_same(theirs, ours)
    called = {op["name"]: op for op in ours["ops"] if op["op"] == "call"}
    assert called["test_reconnection"]["result"]["content"][0]["text"] == (
        "Reconnection test completed"
    )
    assert [log["data"] for log in called["test_reconnection"]["logs"]] == [
        "Before disconnect",
        "After reconnect",
    ]


# --- servers/simple-streamablehttp(-stateless) -----------------------------------------

NOTIFICATION_STREAM = [
    {"op": "list"},
    {
        "op": "call",
        "name": "start-notification-stream",
        "args": {"interval": 0.01, "count": 3, "caller": "compat"},
    },
]


def package_main(folder: Path, module: str, tmp: Path, *args: str) -> Path:
    """A launcher like pip's for the packaged example's ``main()`` (``module``'s)."""
    launcher = tmp / f"launch_{module.replace('.', '_')}.py"
    launcher.write_text(
        f"import sys\nsys.path.insert(0, {str(folder)!r})\n"
        f"sys.argv[1:1] = {list(args)!r}\n"
        f"from {module} import main\nsys.exit(main())\n"
    )
    return launcher


@pytest.mark.parametrize(
    ("mode", "flags"),
    [("legacy", ()), ("legacy", ("--json-response",)), (MODERN, ())],
    ids=["sse", "json", "2026-07-28"],
)
def test_simple_streamablehttp_stateless_2x(
    mode: str, flags: tuple[str, ...], tmp_path: Path
) -> None:
    """2.x's stateless low-level server (``streamable_http_app(stateless_http=True)``
    behind CORS): its tool's log notifications on the call's stream (none with JSON
    responses), the same in both eras."""
    launcher = console(V2 / "server_mcp_simple_streamablehttp_stateless.py", tmp_path, *flags)
    with served(
        [str(peer("mcp2")), str(launcher), "--port"],
        [sys.executable, "-m", "mcpkit.compat", str(launcher), "--port"],
    ) as ports:
        urls = (f"http://127.0.0.1:{ports[0]}/mcp", f"http://127.0.0.1:{ports[1]}/mcp")
        theirs, ours = conversations(NOTIFICATION_STREAM, urls, mode)
    assert_same(theirs, ours)
    call = ours["ops"][1]
    assert call["result"]["content"][0]["text"].startswith("Sent 3 notifications")
    assert len(call["logs"]) == (0 if flags else 3), call


@pytest.mark.parametrize("flags", [(), ("--json-response",)], ids=["sse", "json"])
def test_simple_streamablehttp_1x(flags: tuple[str, ...], tmp_path: Path) -> None:
    """1.x's low-level server behind ``StreamableHTTPSessionManager`` with its own event
    store, mounted in Starlette: the tool's logs on the call's stream (dropped with JSON
    responses), the same."""
    launcher = package_main(V1, "mcp_simple_streamablehttp.server", tmp_path, *flags)
    with served(
        [str(peer("mcp1")), str(launcher), "--port"],
        [sys.executable, "-m", "mcpkit.compat", str(launcher), "--port"],
    ) as ports:
        urls = (f"http://127.0.0.1:{ports[0]}/mcp", f"http://127.0.0.1:{ports[1]}/mcp")
        theirs, ours = conversations(NOTIFICATION_STREAM, urls)
    assert_same(theirs, ours)
    call = ours["ops"][1]
    assert call["result"]["content"][0]["text"].startswith("Sent 3 notifications")
    assert len(call["logs"]) == (0 if flags else 3), call


def sse_events(response: httpx.Response, want: int) -> list[dict[str, Any]]:
    """The first ``want`` events of an SSE answer carrying a message: each one's id and
    message (what the client reads; the priming events left out)."""
    events: list[dict[str, Any]] = []
    event: dict[str, Any] = {}
    for line in response.iter_lines():
        if line.startswith("id:"):
            event["id"] = line[3:].strip()
        elif line.startswith("data:") and line[5:].strip():
            event["message"] = json.loads(line[5:])
        elif not line:
            if "message" in event:
                events.append(event)
                if len(events) == want:
                    break
            event = {}
    return events


def resumed(port: int) -> dict[str, Any]:
    """A call's SSE stream read whole, then resumed with ``Last-Event-ID`` naming its first
    event: what each answered (event ids as their order of appearance)."""
    headers = {**_ACCEPT, "mcp-protocol-version": "2025-11-25"}
    args = {"interval": 0.01, "count": 3, "caller": "resume"}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
    call["params"] = {"name": "start-notification-stream", "arguments": args}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
        init = http.post("/mcp/", json=_INITIALIZE, headers=_ACCEPT)
        headers["mcp-session-id"] = init.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert http.post("/mcp/", json=note, headers=headers).status_code == 202
        with http.stream("POST", "/mcp/", json=call, headers=headers) as response:
            first = sse_events(response, 4)
        again = {**headers, "accept": "text/event-stream", "last-event-id": first[0]["id"]}
        with http.stream("GET", "/mcp/", headers=again) as response:
            status = response.status_code
            replayed = sse_events(response, 3)
    ids = {event["id"]: f"e{n}" for n, event in enumerate(first)}
    return {
        # the example's InMemoryEventStore names the events (uuid4), on mcpkit too
        "store_ids": all(_is_uuid(event["id"]) for event in first + replayed),
        "first": [event["message"] for event in first],
        "resumed": status,
        "replayed": [[ids.get(event["id"]), event["message"]] for event in replayed],
    }


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def test_simple_streamablehttp_1x_resumes(tmp_path: Path) -> None:
    """The example's point, resumability: a call's stream read, then a GET with
    ``Last-Event-ID`` naming its first event gets the events after it again (the same
    messages, under the same ids as first sent, the ids its own ``InMemoryEventStore``
    gave), on both."""
    launcher = package_main(V1, "mcp_simple_streamablehttp.server", tmp_path)
    with served(
        [str(peer("mcp1")), str(launcher), "--port"],
        [sys.executable, "-m", "mcpkit.compat", str(launcher), "--port"],
    ) as ports:
        theirs, ours = (resumed(port) for port in ports)
    assert ours == theirs
    assert [e[0] for e in ours["replayed"]] == ["e1", "e2", "e3"]
    assert ours["store_ids"]


def test_sse_polling_demo_1x(tmp_path: Path) -> None:
    """1.x's SSE polling demo: a low-level tool closing its call's SSE stream at each
    checkpoint (``ctx.close_sse_stream()``), the official client resuming it with
    ``Last-Event-ID`` each time; every log line and the result arrive, the same."""
    launcher = package_main(V1, "mcp_sse_polling_demo.server", tmp_path, "--log-level", "ERROR")
    script = [
        {"op": "list"},
        {"op": "call", "name": "process_batch", "args": {"items": 4, "checkpoint_every": 2}},
    ]
    with served(
        [str(peer("mcp1")), str(launcher), "--port"],
        [sys.executable, "-m", "mcpkit.compat", str(launcher), "--port"],
    ) as ports:
        urls = (f"http://127.0.0.1:{ports[0]}/mcp", f"http://127.0.0.1:{ports[1]}/mcp")
        theirs, ours = conversations(script, urls)
    assert_same(theirs, ours)
    call = ours["ops"][1]
    assert call["result"]["content"][0]["text"].startswith("Successfully processed 4 items")
    assert [log["data"] for log in call["logs"]][-2:] == [
        "[3/4] Processing item 3",
        "[4/4] Processing item 4",
    ]


# --- the 2.x stories exporting an ASGI app ----------------------------------------------

#: story -> (its server modules, the path of its MCP endpoint, the eras the official client
#: is driven in: the stories' manifest.toml).
STORIES: dict[str, tuple[tuple[str, ...], str, tuple[str, ...]]] = {
    "json_response": (("server", "server_lowlevel"), "/mcp", ("legacy", MODERN)),
    "stateless_legacy": (("server", "server_lowlevel"), "/mcp", ("legacy", MODERN)),
    "starlette_mount": (("server",), "/api/", ("legacy", MODERN)),
    "sse_polling": (("server", "server_lowlevel"), "/mcp", ("legacy",)),
    "legacy_routing": (("server", "server_lowlevel"), "/mcp", ("legacy", MODERN)),
}

STORY_LEGS = [(story, server) for story, (servers, _, _) in STORIES.items() for server in servers]


@pytest.fixture
def stories_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stories import their scaffold as ``stories._hosting`` / ``stories._harness``."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(V2), *sys.path]))


@contextmanager
def story_served(story: str, server: str) -> Iterator[tuple[int, int]]:
    """The story's app served by ``run_app_from_args`` (uvicorn) on mcp 2.x and on mcpkit
    (``python -m mcpkit.compat MODULE``, as ``python -m MODULE`` there)."""
    with served(
        [str(peer("mcp2")), "-m", f"stories.{story}.{server}", "--port"],
        [sys.executable, "-m", "mcpkit.compat", f"stories.{story}.{server}", "--port"],
    ) as ports:
        yield ports


@pytest.mark.parametrize(("story", "server"), STORY_LEGS, ids=["-".join(leg) for leg in STORY_LEGS])
@pytest.mark.usefixtures("stories_path")
def test_story_over_http(story: str, server: str) -> None:
    """The story's own client (which asserts what it sees, the raw 2026-07-28 envelope of
    ``json_response`` included) passes against both sides, and the official client's
    conversations in each era (every tool called) are the same."""
    _, mcp_path, eras = STORIES[story]
    with story_served(story, server) as ports:
        urls = (
            f"http://127.0.0.1:{ports[0]}{mcp_path}",
            f"http://127.0.0.1:{ports[1]}{mcp_path}",
        )
        for side, url in zip(("theirs", "ours"), urls, strict=True):
            command = [str(peer("mcp2")), "-m", f"stories.{story}.client", "--http", url]
            done = subprocess.run(warmed(command), capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, f"{side}: {done.stderr[-3000:]}"
            assert f"OK: {story} (http/" in done.stderr, side
        for mode in eras:
            theirs, ours = conversations(EVERYTHING, urls, mode)
            assert_same(theirs, ours)
            assert ours["ops"][1]["op"] == "call" and "error" not in ours["ops"][1], mode


_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
_ENVELOPE = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/list",
    "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    },
}
_ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
_MODERN_HEADERS = {"mcp-protocol-version": MODERN, "mcp-method": "tools/list"}


def _answer(response: httpx.Response) -> dict[str, Any]:
    """What a raw request was answered with: the status, the media type, whether a session
    id came, the body's JSON-RPC message (of an SSE stream, its data event)."""
    media = response.headers.get("content-type", "").split(";", 1)[0]
    body: Any = response.text
    if media == "application/json":
        body = response.json()
    elif media == "text/event-stream":
        body = [json.loads(line[5:]) for line in body.splitlines() if line.startswith("data:")]
        body = [m for m in body if m]  # not a priming event's empty data
    if isinstance(body, dict | list):
        text = json.dumps(body).replace('"version": "0.1.0"', '"version": ""')
        body = json.loads(text)
        for message in body if isinstance(body, list) else [body]:
            info = message.get("result", {}).get("serverInfo")
            if isinstance(info, dict):
                info.pop("version", None)
    cors = {k: v for k, v in response.headers.items() if k.startswith("access-control-")}
    return {
        "status": response.status_code,
        "type": media,
        "session": "mcp-session-id" in response.headers,
        "cors": cors,
        "body": body,
    }


#: story -> the raw requests (method, path, headers, body) its point is about.
RAW: dict[str, list[tuple[str, str, dict[str, str], Any]]] = {
    "json_response": [
        ("POST", "/mcp", _ACCEPT, _INITIALIZE),
        (
            "POST",
            "/mcp",
            {**_ACCEPT, **_MODERN_HEADERS},
            _ENVELOPE,
        ),
        ("POST", "/mcp", {**_ACCEPT, "accept": "application/json"}, _INITIALIZE),
    ],
    "stateless_legacy": [
        ("POST", "/mcp", _ACCEPT, _INITIALIZE),
        (
            "POST",
            "/mcp",
            {**_ACCEPT, **_MODERN_HEADERS},
            _ENVELOPE,
        ),
        ("DELETE", "/mcp", {}, None),
    ],
    "legacy_routing": [
        (
            "OPTIONS",
            "/mcp",
            {
                "origin": "http://app.example",
                "access-control-request-method": "POST",
                "access-control-request-headers": "content-type, mcp-protocol-version",
            },
            None,
        ),
        ("POST", "/mcp", {**_ACCEPT, "origin": "http://app.example"}, _INITIALIZE),
        ("POST", "/mcp", {**_ACCEPT, **_MODERN_HEADERS, "origin": "http://app.example"}, _ENVELOPE),
    ],
    "starlette_mount": [
        ("GET", "/health", {}, None),
        ("POST", "/api/", _ACCEPT, _INITIALIZE),
        (
            "POST",
            "/api/",
            {**_ACCEPT, **_MODERN_HEADERS},
            _ENVELOPE,
        ),
    ],
}


@pytest.mark.parametrize("story", list(RAW))
@pytest.mark.usefixtures("stories_path")
def test_story_raw_http(story: str) -> None:
    """The raw requests each story is about (a JSON body and no SSE stream, no session id
    when stateless, the 2026-07-28 envelope, the route beside the mount, CORS added with
    ``app.add_middleware``) are answered alike: the status, the media type, a session id or
    none, the CORS headers, the message."""
    with story_served(story, "server") as ports:
        answers = []
        for port in ports:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
                answers.append(
                    [
                        _answer(http.request(method, path, headers=headers, json=body))
                        for method, path, headers, body in RAW[story]
                    ]
                )
    theirs, ours = answers
    for mine, ref, request in zip(ours, theirs, RAW[story], strict=True):
        assert mine == ref, request[:2]
    if story == "legacy_routing":
        assert ours[0]["status"] == 200 and "mcp-session-id" in str(ours[1]["cors"]).lower()


def polled(port: int, path: str, call: dict[str, Any]) -> dict[str, Any]:
    """SSE polling over raw HTTP: ``call``'s stream read until the server closes it (before
    the result; whether its priming event named a ``retry``), then a GET with
    ``Last-Event-ID`` of its last event read until the call's result: every message of
    the call, in order."""
    headers = {**_ACCEPT, "mcp-protocol-version": "2025-11-25"}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
        init = http.post(path, json=_INITIALIZE, headers=_ACCEPT)
        headers["mcp-session-id"] = init.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert http.post(path, json=note, headers=headers).status_code == 202
        request = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}
        last, retry, before = None, False, []
        with http.stream("POST", path, json=request, headers=headers) as response:
            for line in response.iter_lines():  # to the end: the server closes it
                if line.startswith("id:"):
                    last = line[3:].strip()
                elif line.startswith("retry:"):
                    retry = True
                elif line.startswith("data:") and line[5:].strip():
                    before.append(json.loads(line[5:]))
        assert last is not None and not any("result" in m for m in before), before
        again = {**headers, "accept": "text/event-stream", "last-event-id": last}
        after: list[Any] = []
        with http.stream("GET", path, headers=again) as response:
            status = response.status_code
            for line in response.iter_lines():
                if line.startswith("data:") and line[5:].strip():
                    after.append(json.loads(line[5:]))
                    if "result" in after[-1]:
                        break
    # Which messages leave before the stream closes is the SDK's scheduling (its writer
    # may not have run yet: the event store then replays them): all arrive, in order.
    return {"messages": before + after, "retry": retry, "resumed": status}


@pytest.mark.parametrize("server", ["server", "server_lowlevel"])
@pytest.mark.usefixtures("stories_path")
def test_sse_polling_over_raw_http(server: str) -> None:
    """The sse_polling story's point on the wire: the tool closes its call's stream
    mid-call, before its result (the priming event names the retry delay), and a GET with
    ``Last-Event-ID`` gets the rest and the result, the same on both."""
    with story_served("sse_polling", server) as ports:
        call = {"name": "long_operation", "arguments": {}, "_meta": {"progressToken": 7}}
        theirs, ours = (polled(port, "/mcp", call) for port in ports)
    assert ours == theirs
    progress = [m["params"]["message"] for m in ours["messages"] if "method" in m]
    assert progress == ["before-close", "after-close"]
    assert ours["messages"][-1]["result"]["content"][0]["text"] == "resumed"


@pytest.mark.parametrize(("sdk", "folder"), [("mcp1", V1), ("mcp2", V2)], ids=["1.x", "2.x"])
def test_everything_server_reconnection_over_raw_http(
    sdk: str, folder: Path, tmp_path: Path
) -> None:
    """The everything server's ``test_reconnection`` on the wire: ``ctx.close_sse_stream()``
    ends the call's stream before its result, and a GET with ``Last-Event-ID`` gets the
    rest (the log after the reconnect and the result), the same on both."""
    launcher = console(folder / "server_mcp_everything_server.py", tmp_path, "--log-level", "ERROR")
    with served(
        [str(peer(sdk)), str(launcher), "--port"],
        [sys.executable, "-m", "mcpkit.compat", str(launcher), "--port"],
    ) as ports:
        call = {"name": "test_reconnection", "arguments": {}}
        theirs, ours = (polled(port, "/mcp", call) for port in ports)
    assert ours == theirs
    logs = [m["params"]["data"] for m in ours["messages"] if "method" in m]
    assert logs == ["Before disconnect", "After reconnect"]
    assert ours["retry"] and ours["resumed"] == 200
