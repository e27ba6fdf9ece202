"""2.x's server extensions (``mcp.server.extension``, SEP-2133) and the client half that
declares and claims them (``mcp.client.extension``): the official ``extensions`` story's
server and every snippet of the SDK's ``docs_src/extensions`` (see ``examples/NOTICE``),
run unchanged on ``mcp`` 2.x and on mcpkit.

A server is driven by the official client on the handshake era and on 2026-07-28, with and
without the extension declared: its listing, its tool calls, its own request methods
(their results, a params model refusing a value, a method a protocol version does not
admit, a client that did not declare the extension) and what an interceptor answers must
be equal. A snippet's own ``main()`` (the SDK's ``Client`` on the server object, in memory)
must print the same on both."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.compat.driving import submit
from tests.compat.test_unchanged import assert_same, peer

EXAMPLES = Path(__file__).resolve().parent / "examples"
SNIPPETS = EXAMPLES / "official_v2_extensions"
STORY = EXAMPLES / "official_v2" / "stories" / "extensions" / "server.py"

MODES = ["legacy", "2026-07-28"]

LIST: dict[str, Any] = {"op": "list"}


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"op": "call", "name": name, "args": args}


def request(method: str, **params: Any) -> dict[str, Any]:
    return {"op": "request", "method": method, "params": params}


#: The story's client, step by step (its search, with its default limit, a limit its
#: params model refuses).
STORY_SCRIPT = [
    LIST,
    call("suggest", prefix="mcp"),
    request("com.example/search", query="mcp", limit=3),
    request("com.example/search", query="mcp"),
    request("com.example/search", query="mcp", limit=0),
    request("com.example/nothing"),
]

#: snippet -> what its server is asked (besides its listing).
SERVER_SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "tutorial001.py": [LIST],
    "tutorial002.py": [LIST],
    "tutorial003.py": [LIST, call("stamp", text="hello")],
    "tutorial004.py": [
        LIST,
        request("com.example/search", query="mcp", limit=3),
        request("com.example/search", query="mcp", limit=500),
    ],
    "tutorial005.py": [LIST, call("add", a=2, b=3), call("add", a="two", b=3)],
    "tutorial006.py": [
        LIST,
        request("tools/call", name="buy", arguments={"item": "lamp"}),
        call("redeem", token="r-1"),
        call("missing"),
    ],
    "tutorial007.py": [LIST, request("com.example/jobs.status", jobId="job-7")],
}

#: snippet -> the extension its client declares.
DECLARED = {
    "tutorial003.py": "com.example/stamps",
    "tutorial004.py": "com.example/search",
    "tutorial006.py": "com.example/receipts",
    "tutorial007.py": "com.example/jobs",
}

#: How 2.x serves a snippet's server object; tutorial002 defines only its extension class,
#: served here by a server of its own.
_LAUNCH = "import runpy\nrunpy.run_path({path!r})['mcp'].run()\n"
_LAUNCH_CLASS = """import runpy
from mcp.server.mcpserver import MCPServer
MCPServer("stamps", extensions=[runpy.run_path({path!r})["Stamps"]()]).run()
"""


def _env() -> dict[str, str]:
    """This process's environment with the stories' scaffold importable (``stories._hosting``)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(EXAMPLES / "official_v2"), *sys.path])
    return env


def _compare(
    script: list[dict[str, Any]],
    theirs: list[str],
    ours: list[str],
    mode: str,
    extensions: list[str],
) -> dict[str, Any]:
    jobs = [
        submit(peer("mcp2"), script, tag, command=command, mode=mode, extensions=extensions)
        for tag, command in (("theirs", theirs), ("ours", ours))
    ]
    reports = [job.report() for job in jobs]
    for report in reports:  # each SDK names its own version (no serverInfo on 2026)
        (report["serverInfo"] or {}).pop("version", None)
    assert_same(*reports)
    return reports[1]


def _by_method(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [op for op in report["ops"] if op["op"] == "request"]


@pytest.mark.parametrize("declared", [True, False], ids=["declared", "undeclared"])
@pytest.mark.parametrize("mode", MODES)
def test_story_server(mode: str, declared: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The story's ``Catalog``: its settings, its tool, its vendor method gated on the
    client declaring the extension (-32021 with ``requiredCapabilities`` otherwise)."""
    for key, value in _env().items():
        monkeypatch.setenv(key, value)
    ours = _compare(
        STORY_SCRIPT,
        [str(peer("mcp2")), str(STORY)],
        [sys.executable, "-m", "mcpkit.compat", str(STORY)],
        mode,
        ["com.example/catalog"] if declared else [],
    )
    assert ours["ops"][1]["result"]["content"][0]["text"] == "mcp-suggestion"
    search, default, refused, unknown = _by_method(ours)
    if declared:
        assert search["result"]["items"] == ["mcp-0", "mcp-1", "mcp-2"]
        assert default["result"]["items"] == ["mcp-0", "mcp-1", "mcp-2"]
    else:
        assert "-32021" in search["error"] or "declare" in search["error"]
    assert "Invalid request parameters" in refused["error"]
    assert "message='Method not found' data='com.example/nothing'" in unknown["error"]


@pytest.mark.parametrize("declared", [True, False], ids=["declared", "undeclared"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(SERVER_SCRIPTS))
def test_snippet_server(name: str, mode: str, declared: bool, tmp_path: Path) -> None:
    """Each snippet's server, its requests answered as 2.x answers them."""
    path = SNIPPETS / name
    launcher = tmp_path / "launch.py"
    text = path.read_text()
    by_class = "\nmcp = " not in text
    launcher.write_text((_LAUNCH_CLASS if by_class else _LAUNCH).format(path=str(path)))
    ours_cmd = [sys.executable, "-m", "mcpkit.compat"]
    ours_cmd += [str(launcher)] if by_class else [f"{path}:mcp"]
    identifier = DECLARED.get(name)
    ours = _compare(
        SERVER_SCRIPTS[name],
        [str(peer("mcp2")), str(launcher)],
        ours_cmd,
        mode,
        [identifier] if declared and identifier else [],
    )
    first = ours["ops"][1] if len(ours["ops"]) > 1 else {}
    modern = mode != "legacy"
    if name == "tutorial004.py":  # served on 2026-07-28 only, to a client declaring it
        if modern and declared:
            assert first["result"]["items"] == ["mcp-0", "mcp-1", "mcp-2"]
        else:
            assert "-32601" in first["error"] if not modern else "-32021" in first["error"]
        assert "-32602" in ours["ops"][2]["error"]
    elif name == "tutorial006.py":  # the interceptor answers in the tool's place
        if modern and declared:
            assert first["result"]["receiptToken"] == "r-117"
        elif declared:  # a claimed shape is no result before 2026-07-28
            assert "Handler returned an invalid result" in first["error"]
        else:
            assert "-32021" in first["error"]
    elif name == "tutorial007.py":
        assert first["result"]["status"] == "job-7 is running"
    elif name == "tutorial005.py":
        assert first["result"]["content"][0]["text"] == "5"


SERVERS = Path(__file__).resolve().parent / "servers"
CUSTOM_METHODS = EXAMPLES / "official_v2" / "stories" / "custom_methods" / "server.py"

#: (peer, server, the eras it is driven on): a 2.x low-level server with a method of its
#: own (the official custom_methods story), 1.x's high-level and low-level servers, fastmcp.
UNKNOWN = [
    ("mcp2", CUSTOM_METHODS, MODES),
    ("mcp1", SERVERS / "fastmcp_v1.py", ["legacy"]),
    ("mcp1", SERVERS / "lowlevel_v1.py", ["legacy"]),
    ("fastmcp", SERVERS / "fastmcp_app.py", MODES),
]


@pytest.mark.parametrize(
    ("sdk", "server", "mode"),
    [(sdk, server, mode) for sdk, server, modes in UNKNOWN for mode in modes],
    ids=[f"{sdk}-{server.stem}-{mode}" for sdk, server, modes in UNKNOWN for mode in modes],
)
def test_unknown_method_and_refused_params(
    sdk: str, server: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A method nobody serves, and a request method's params its model refuses, answered
    as each SDK answers them (2.x: -32601 naming the method; 1.x: -32602)."""
    for key, value in _env().items():
        monkeypatch.setenv(key, value)
    script = [
        request("acme/search", query="mcp", limit=2),
        request("acme/search", limit=2),
        request("acme/nothing"),
    ]
    jobs = [
        submit(peer("mcp2"), script, tag, command=command, mode=mode)
        for tag, command in (
            ("theirs", [str(peer(sdk)), str(server)]),
            ("ours", [sys.executable, "-m", "mcpkit.compat", str(server)]),
        )
    ]
    theirs, ours = (job.report()["ops"] for job in jobs)
    assert ours == theirs
    if sdk == "mcp1":
        assert "code=-32602 message='Invalid request parameters'" in ours[2]["error"]
    else:
        assert "message='Method not found' data='acme/nothing'" in ours[2]["error"]
    if server == CUSTOM_METHODS:
        assert ours[0]["result"]["items"] == ["mcp-0", "mcp-1"]
        assert "code=-32602 message='Invalid request parameters'" in ours[1]["error"]


INTERCEPTORS = Path(__file__).resolve().parent / "servers" / "extension_interceptors.py"


INTERCEPTOR_SCRIPT = [
    LIST,
    call("add", a=1, b=2),
    call("short"),
    call("refused"),
    call("broken"),
    call("add", a="x", b=1),
    call("nope"),
    request("com.example/echo", word="hi"),
    request("com.example/dict", word="hi"),
    request("com.example/fails"),
    request("com.example/refuses", word="w"),
    request("com.example/modern"),
    request("com.example/echo", word=3),
]


@pytest.mark.parametrize("mode", MODES)
def test_interceptors_and_methods(mode: str) -> None:
    """Two interceptors (the first outermost) around every ``tools/call``, unknown tools
    and failing ones too: one answers in a tool's place, one appends to the tool's
    ``CallToolResult`` and refuses a tool; request methods answering a model, a dict, a
    failure (code 0 with its text in the handshake era, an internal error on 2026-07-28), an
    MCPError, a method gated to 2026-07-28, params their model refuses: as 2.x."""
    ours = _compare(
        INTERCEPTOR_SCRIPT,
        [str(peer("mcp2")), str(INTERCEPTORS)],
        [sys.executable, "-m", "mcpkit.compat", str(INTERCEPTORS)],
        mode,
        [],
    )
    ops = ours["ops"]
    assert [c["text"] for c in ops[1]["result"]["content"]] == ["3", "inner saw tools/call"]
    assert ops[2]["result"]["content"][0]["text"] == "answered by outer"
    assert ops[7]["result"]["seen"][:2] == ["outer add", "inner add [('a', 1), ('b', 2)]"]
    assert ops[8]["result"]["word"] == "HI"
    assert "not today" in ops[10]["error"]


@pytest.mark.parametrize("mode", MODES)
def test_interceptor_runs_inside_every_middleware(mode: str) -> None:
    """Middleware given to the constructor and appended after it both run outside the
    extension's interceptor, which runs at the handler, as on 2.x."""
    server = SERVERS / "extension_middleware_order.py"
    ours = _compare(
        [call("report"), call("report")],
        [str(peer("mcp2")), str(server)],
        [sys.executable, "-m", "mcpkit.compat", str(server)],
        mode,
        [],
    )
    text = ours["ops"][1]["result"]["content"][0]["text"]
    assert text == "given, appended, interceptor"


def test_claimed_result_at_the_session_matches_the_sdk() -> None:
    """``client.session.call_tool`` on a claimed shape: ``UnexpectedClaimedResult`` with
    the claim's model, the model itself with ``allow_claimed=True``; ``client.call_tool``
    finishes it: printed the same as on 2.x."""
    script = SERVERS / "extension_claims_session.py"

    def printed(command: list[str]) -> str:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
        return done.stdout

    theirs = printed([str(peer("mcp2")), str(script)])
    ours = printed([sys.executable, "-m", "mcpkit.compat", str(script)])
    assert ours == theirs
    assert "unexpected ReceiptResult r-117" in ours


def test_extension_checks_match_the_sdk() -> None:
    """What the extension surface refuses (identifiers, spec methods, empty version sets,
    an extension or a method registered twice, claims of core or mistagged shapes), with
    the SDK's exception types and messages."""
    checks = Path(__file__).resolve().parent / "servers" / "extension_checks.py"

    def printed(command: list[str]) -> str:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
        return done.stdout

    theirs = printed([str(peer("mcp2")), str(checks)])
    ours = printed([sys.executable, "-m", "mcpkit.compat", str(checks)])
    assert ours == theirs
    assert ours.count("accepted") == 3


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def _serving(command: list[str], port: int) -> Iterator[str]:
    """The story's server started by ``command`` (its own ``--http --port``), until it
    accepts connections; its URL."""
    proc = subprocess.Popen(
        [*command, "--http", "--port", str(port)],
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "the server did not start serving"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def test_story_client_unchanged() -> None:
    """The story's own ``client.py`` (the SDK's client, run by the story's harness with
    ``--http <url>``: ``server/discover``, the capability map, the tool, the vendor method
    through ``client.session.send_request``) passes against the story's server served by
    2.x and by mcpkit, printing the same."""

    def client_run(url: str) -> tuple[int, str]:
        done = subprocess.run(
            [str(peer("mcp2")), "-m", "stories.extensions.client", "--http", url],
            capture_output=True,
            text=True,
            timeout=120,
            env=_env(),
        )
        return done.returncode, done.stdout + done.stderr

    runs = []
    for command in (
        [str(peer("mcp2")), str(STORY)],
        [sys.executable, "-m", "mcpkit.compat", str(STORY)],
    ):
        with _serving(command, _free_port()) as url:
            runs.append(client_run(url))
    theirs, ours = runs
    assert ours == theirs
    assert ours == (0, "OK: extensions (http/in-body)\n")


_MAIN = """import asyncio, runpy
asyncio.run(runpy.run_path({path!r})["main"]())
"""


CLIENTS = ["tutorial003.py", "tutorial004.py", "tutorial006.py", "tutorial007.py"]


@pytest.mark.parametrize("name", CLIENTS)
def test_snippet_client(name: str, tmp_path: Path) -> None:
    """A snippet's ``main()``: the SDK's ``Client`` on its server object, declaring (or
    claiming) the extension, prints the same on mcpkit as on 2.x."""
    launcher = tmp_path / "main.py"
    launcher.write_text(_MAIN.format(path=str(SNIPPETS / name)))

    def printed(command: list[str]) -> str:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    theirs = printed([str(peer("mcp2")), str(launcher)])
    ours = printed([sys.executable, "-m", "mcpkit.compat", str(launcher)])
    assert ours == theirs
    assert ours.strip()
