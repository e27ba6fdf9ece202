"""The official SDK 2.x's documentation code (``docs_src/``, chapters apps to lowlevel, copied
unchanged under ``examples/official_v2/docs_src``; see ``examples/NOTICE``), run on mcp 2.x
and unchanged on mcpkit:

- every server snippet served over stdio (its server object, or what its factory builds)
  and driven by the official client (``drive.py``'s ``everything``, plus the completions a
  snippet answers), the two conversations compared as ``test_examples_official.py`` does;
- every client snippet (an ``async def main()`` using ``mcp.Client`` on the server it
  defines) run on both sides, in one process a side, what it prints compared.

The snippets not run here, and why, are listed in docs/migration.md.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.compat.test_examples_official import commands, comparable
from tests.compat.test_unchanged import assert_same, drive_both, peer

HERE = Path(__file__).resolve().parent / "examples" / "official_v2"
DOCS = HERE / "docs_src"

#: Server snippets: ``chapter/tutorialNNN.py`` (its first server object), or ``...py:NAME``
#: (another object of the file).
SERVERS: list[str] = [
    "apps/tutorial002.py",
    "apps/tutorial003.py",
    "asgi/tutorial001.py",
    "asgi/tutorial002.py",
    "asgi/tutorial003.py",
    "asgi/tutorial003.py:tasks",
    "asgi/tutorial004.py",
    "asgi/tutorial005.py",
    "asgi/tutorial006.py",
    "caching/tutorial001.py",
    "caching/tutorial002.py",
    "client_callbacks/tutorial001.py",
    "client_callbacks/tutorial003.py",
    "completions/tutorial001.py",
    "completions/tutorial002.py",
    "completions/tutorial003.py",
    "context/tutorial001.py",
    "context/tutorial002.py",
    "context/tutorial003.py",
    "dependencies/tutorial001.py",
    "dependencies/tutorial002.py",
    "dependencies/tutorial003.py",
    "dependencies/tutorial004.py",
    "deploy/tutorial001.py",
    "elicitation/tutorial001.py",
    "elicitation/tutorial002.py",
    "elicitation/tutorial004.py",
    "first_steps/tutorial001.py",
    "handling_errors/tutorial001.py",
    "handling_errors/tutorial002.py",
    "handling_errors/tutorial003.py",
    "index/tutorial001.py",
    "legacy_clients/tutorial002.py",
    "legacy_clients/tutorial003.py",
    "lifespan/tutorial001.py",
    "lifespan/tutorial002.py",
    "logging/tutorial001.py",
    "lowlevel/tutorial001.py",
    "lowlevel/tutorial002.py",
    "lowlevel/tutorial003.py",
    "lowlevel/tutorial004.py",
    "lowlevel/tutorial005.py",
    "lowlevel/tutorial006.py",
    "lowlevel/tutorial007.py",
]

_REVIEW = {"type": "ref/prompt", "name": "review_code"}
_REPO = {"type": "ref/resource", "uri": "github://repos/{owner}/{repo}"}

#: What a snippet answers beyond ``everything``: its completions, its tools called with the
#: arguments that take the other branch.
EXTRA: dict[str, list[dict[str, Any]]] = {
    "completions/tutorial001.py": [
        {"op": "complete", "ref": _REVIEW, "argument": {"name": "language", "value": "py"}},
    ],
    "completions/tutorial002.py": [
        {"op": "complete", "ref": _REVIEW, "argument": {"name": "language", "value": "t"}},
        {"op": "complete", "ref": _REVIEW, "argument": {"name": "code", "value": "t"}},
        {"op": "complete", "ref": _REPO, "argument": {"name": "repo", "value": "p"}},
    ],
    "completions/tutorial003.py": [
        {"op": "complete", "ref": _REVIEW, "argument": {"name": "language", "value": "r"}},
        {"op": "complete", "ref": _REPO, "argument": {"name": "repo", "value": "p"}},
        {
            "op": "complete",
            "ref": _REPO,
            "argument": {"name": "repo", "value": "py"},
            "context": {"arguments": {"owner": "pydantic"}},
        },
        {
            "op": "complete",
            "ref": _REPO,
            "argument": {"name": "repo", "value": ""},
            "context": {"arguments": {"owner": "modelcontextprotocol"}},
        },
    ],
    "dependencies/tutorial001.py": [
        {"op": "call", "name": "reserve_book", "args": {"title": "Dune"}},
        {"op": "call", "name": "reserve_book", "args": {"title": "Neuromancer"}},
    ],
    "dependencies/tutorial003.py": [
        {"op": "call", "name": "order_book", "args": {"title": "Dune"}},
        {"op": "call", "name": "order_book", "args": {"title": "Neuromancer"}},
    ],
    "elicitation/tutorial001.py": [
        {"op": "call", "name": "book_table", "args": {"date": "2025-12-25", "party_size": 4}},
    ],
    "elicitation/tutorial004.py": [
        {"op": "call", "name": "delete_folder", "args": {"path": "/tmp/project"}},
        {"op": "call", "name": "delete_folder", "args": {"path": "/tmp/empty"}},
    ],
    "handling_errors/tutorial001.py": [
        {"op": "call", "name": "get_author", "args": {"title": "Dune"}},
    ],
    "handling_errors/tutorial002.py": [
        {"op": "call", "name": "get_author", "args": {"title": "Dune"}},
    ],
    "handling_errors/tutorial003.py": [{"op": "read", "uri": "books://Dune"}],
    "legacy_clients/tutorial003.py": [
        {"op": "call", "name": "restock", "args": {"title": "Dune", "copies": 2}},
        {"op": "read", "uri": "stock://Dune"},
    ],
    "lowlevel/tutorial002.py": [
        {"op": "call", "name": "add_book", "args": {"title": "Dune", "author": "F", "year": 1965}},
        {"op": "call", "name": "nope", "args": {}},
    ],
    "lowlevel/tutorial006.py": [
        {"op": "request", "method": "bookshop/reindex", "params": {"full": True}},
        {"op": "request", "method": "bookshop/reindex", "params": {}},
        {"op": "request", "method": "bookshop/reindex", "params": {"full": []}},
        {"op": "request", "method": "bookshop/unknown", "params": {}},
    ],
    "lowlevel/tutorial007.py": [
        {"op": "call", "name": "find_book", "args": {"isbn": "9780441013593"}},
        {"op": "call", "name": "find_book", "args": {"title": "Dune", "author": "F"}},
        {"op": "call", "name": "find_book", "args": {"isbn": "12"}},
    ],
}


def server_commands(spec: str, tmp: Path) -> tuple[list[str], list[str]]:
    """How mcp 2.x serves the snippet over stdio, and how mcpkit does (``FILE:object``)."""
    name, _, obj = spec.partition(":")
    path = DOCS / name
    if not obj:
        return commands(path, tmp, by_object=True)
    launcher = tmp / "launch.py"
    launcher.write_text(f"import runpy\nrunpy.run_path({str(path)!r})[{obj!r}].run()\n")
    return [str(launcher)], [f"{path}:{obj}"]


#: The name of the module a snippet was loaded as, in a resolver's name (``module:qualname``):
#: ``runpy.run_path``'s on the SDK's side, the loader's of ``FILE:object`` on mcpkit's.
_LOADED_AS = re.compile(r"'(?:<run_path>|_mcpkit_target_\d+):")


def _loaded_as(report: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(_LOADED_AS.sub("'<module>:", json.dumps(report)))
    return out


@pytest.mark.parametrize("spec", SERVERS)
def test_docs_src_server_runs_unchanged(spec: str, tmp_path: Path) -> None:
    theirs_cmd, ours_cmd = server_commands(spec, tmp_path)
    script = [{"op": "everything", "skip": []}, *EXTRA.get(spec, [])]
    reports = drive_both(
        script,
        [str(peer("mcp2")), *theirs_cmd],
        [sys.executable, "-m", "mcpkit.compat", *ours_cmd],
        tmp_path,
    )
    theirs, ours = (comparable(_loaded_as(r)) for r in reports)
    assert_same(theirs, ours)


#: Client snippets: their ``main()`` runs the SDK's client on the server the file defines.
CLIENTS: list[str] = [
    "apps/tutorial001.py",
    "caching/tutorial003.py",
    "client/tutorial003.py",
    "client/tutorial004.py",
    "client/tutorial006.py",
    "client/tutorial007.py",
    "client_transports/tutorial001.py",
    "legacy_clients/tutorial001.py",
]

#: Runs each snippet's ``main()`` in turn (its output captured) and prints them as JSON.
_MAINS = """import contextlib, io, json, runpy, sys, traceback
import anyio
out = {}
for path in sys.argv[1:]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            anyio.run(runpy.run_path(path, run_name="snippet")["main"])
        except BaseException as exc:
            print("raised", type(exc).__name__, exc)
            traceback.print_exc(file=sys.stderr)
    out[path] = buffer.getvalue()
print(json.dumps(out))
"""

#: What differs by nature: the SDK's version string.
_VERSION = re.compile(r"version='[^']*'")


def _printed(command: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _outputs(proc: subprocess.Popen[str]) -> dict[str, str]:
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    printed: dict[str, str] = json.loads(stdout.splitlines()[-1])
    return {
        Path(k).relative_to(DOCS).as_posix(): _VERSION.sub("version=<v>", v)
        for k, v in printed.items()
    }


@pytest.fixture(scope="module")
def client_outputs(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[dict[str, str], dict[str, str]]:
    """What every client snippet printed on mcp 2.x and on mcpkit (both run at once)."""
    runner = tmp_path_factory.mktemp("mains") / "mains.py"
    runner.write_text(_MAINS)
    paths = [str(DOCS / name) for name in CLIENTS]
    theirs = _printed([str(peer("mcp2")), str(runner), *paths])
    ours = _printed([sys.executable, "-m", "mcpkit.compat", str(runner), *paths])
    return _outputs(theirs), _outputs(ours)


@pytest.mark.parametrize("name", CLIENTS)
def test_docs_src_client_prints_the_same(
    name: str, client_outputs: tuple[dict[str, str], dict[str, str]]
) -> None:
    theirs, ours = client_outputs
    assert ours[name] == theirs[name]
    assert not theirs[name].startswith("raised")


#: ASGI-app snippets served by uvicorn on both sides: the endpoints the official client talks
#: to (``asgi/tutorial005.py`` and ``deploy/tutorial001.py`` let only ``mcp.example.com``
#: through, ``legacy_clients/tutorial002.py`` is stateless: docs/migration.md).
APPS: dict[str, list[str]] = {
    "asgi/tutorial001.py": ["/mcp"],
    "asgi/tutorial002.py": ["/mcp"],
    "asgi/tutorial003.py": ["/notes/mcp", "/tasks/mcp"],
    "asgi/tutorial004.py": ["/notes/"],
    "asgi/tutorial006.py": ["/mcp"],
    # The servers of the HTTP client snippets (their streamable_http_app()).
    "client_callbacks/tutorial001.py": ["/mcp"],
    "elicitation/tutorial001.py": ["/mcp"],
}

_SERVE_APP = """import runpy, sys
import uvicorn
namespace = runpy.run_path({path!r})
app = namespace["app"] if "app" in namespace else namespace["mcp"].streamable_http_app()
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


@pytest.fixture(scope="module")
def apps_served(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[str, tuple[list[int], list[dict[str, Any]], list[dict[str, Any]]]]]:
    """Each app of :data:`APPS` served by uvicorn on mcp 2.x and on mcpkit (all at once,
    for the module's tests): its ports and what the official client saw at each endpoint
    on each side."""
    from tests.compat.driving import submit
    from tests.compat.test_compat import free_port, serve

    procs: list[Any] = []
    jobs: dict[str, tuple[list[int], list[Any]]] = {}
    try:
        for name, paths in APPS.items():
            launcher = tmp_path_factory.mktemp("app") / "serve_app.py"
            launcher.write_text(_SERVE_APP.format(path=str(DOCS / name)))
            ports = [free_port(), free_port()]
            procs.append(serve([str(peer("mcp2")), str(launcher)], ports[0]))
            procs.append(serve([sys.executable, "-m", "mcpkit.compat", str(launcher)], ports[1]))
            script = [{"op": "everything", "skip": []}]
            jobs[name] = (
                ports,
                [
                    submit(peer("mcp2"), script, tag, url=f"http://127.0.0.1:{port}{path}")
                    for path in paths
                    for port, tag in zip(ports, ("theirs", "ours"), strict=True)
                ],
            )
        out = {}
        for name, (ports, pending) in jobs.items():
            reports = [comparable(job.report()) for job in pending]
            out[name] = ports, reports[0::2], reports[1::2]
        yield out
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)


@pytest.mark.parametrize("name", list(APPS))
def test_docs_src_app_over_http(
    name: str,
    apps_served: dict[str, tuple[list[int], list[dict[str, Any]], list[dict[str, Any]]]],
) -> None:
    """The snippet's ``app`` (``streamable_http_app()`` alone, mounted in Starlette with
    ``session_manager.run()`` as its lifespan, two servers under two paths, a custom
    route beside it): the same over Streamable HTTP at each endpoint."""
    _, theirs, ours = apps_served[name]
    for ref, mine in zip(theirs, ours, strict=True):
        assert_same(ref, mine)
        assert "isError" in mine["ops"][1]["result"]


def test_docs_src_custom_route(
    apps_served: dict[str, tuple[list[int], list[dict[str, Any]], list[dict[str, Any]]]],
) -> None:
    """``@mcp.custom_route("/health")`` answers beside the endpoint, the same on both."""
    import httpx

    ports, _, _ = apps_served["asgi/tutorial006.py"]
    answers = [httpx.get(f"http://127.0.0.1:{port}/health", timeout=10) for port in ports]
    assert [(a.status_code, a.json()) for a in answers] == [(200, {"status": "ok"})] * 2


#: What ``client/tutorial001.py`` prints, as data (its printed models are compared as
#: printed in test_client_printed.py): each snippet's server object connected in memory.
_CONNECTED = """import json, runpy, sys
import anyio
from mcp import Client

def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)

async def main():
    for path in sys.argv[1:]:
        server = runpy.run_path(path, run_name="snippet")["mcp"]
        async with Client(server) as client:
            facts = [dump(client.server_capabilities), dump(client.server_info)]
            facts += [client.protocol_version, client.instructions]
            print(json.dumps(facts, sort_keys=True))

anyio.run(main)
"""


def test_docs_src_client_connection_facts(tmp_path: Path) -> None:
    """``Client(mcp)`` in memory (2026-07-28): the server's capabilities (``completions``
    with a completion handler; no ``logging``, as an ``MCPServer`` declares none), its
    identity, the revision and the instructions are those of mcp 2.x."""
    runner = tmp_path / "connected.py"
    runner.write_text(_CONNECTED)
    paths = [str(DOCS / name) for name in ("client/tutorial001.py", "completions/tutorial002.py")]
    theirs = _printed([str(peer("mcp2")), str(runner), *paths])
    ours = _printed([sys.executable, "-m", "mcpkit.compat", str(runner), *paths])
    printed = [proc.communicate(timeout=120) for proc in (theirs, ours)]
    assert [proc.returncode for proc in (theirs, ours)] == [0, 0], printed
    ref, mine = ([json.loads(line) for line in out.splitlines()] for out, _ in printed)
    assert mine == ref
    assert all("logging" not in facts[0] for facts in mine)
    assert "completions" in mine[1][0] and mine[0][2] == "2026-07-28"


#: The HTTP client snippets (``Client("http://127.0.0.1:8000/mcp", mode="legacy",
#: elicitation_callback=...)``) and the snippet whose server each talks to.
HTTP_CLIENTS = {
    "client_callbacks/tutorial002.py": "client_callbacks/tutorial001.py",
    "elicitation/tutorial003.py": "elicitation/tutorial001.py",
}

#: Runs each snippet's ``main()`` with the fixed address it names taken to the port its
#: server listens on here (``mcp.Client`` given the URL of this side's server).
_HTTP_MAINS = """import contextlib, io, json, runpy, sys
import anyio, mcp
original = mcp.Client
out = {}
for arg in sys.argv[1:]:
    path, url = arg.split("=", 1)

    def Client(server, *args, _url=url, **kwargs):
        if server == "http://127.0.0.1:8000/mcp":
            server = _url
        return original(server, *args, **kwargs)

    mcp.Client = Client
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            anyio.run(runpy.run_path(path, run_name="snippet")["main"])
        except BaseException as exc:
            print("raised", type(exc).__name__, exc)
    out[path] = buffer.getvalue()
print(json.dumps(out))
"""


def test_docs_src_http_clients_print_the_same(
    tmp_path: Path,
    apps_served: dict[str, tuple[list[int], list[dict[str, Any]], list[dict[str, Any]]]],
) -> None:
    """The clients of a Streamable HTTP server (the legacy handshake, an elicitation
    callback answering the server's form): the same printed on mcp 2.x against its server
    and on mcpkit against its own, but for the port."""
    runner = tmp_path / "http_mains.py"
    runner.write_text(_HTTP_MAINS)
    sides = [[str(peer("mcp2")), str(runner)], [sys.executable, "-m", "mcpkit.compat", str(runner)]]
    procs = []
    for side, command in enumerate(sides):
        args = [
            f"{DOCS / client}=http://127.0.0.1:{apps_served[server][0][side]}/mcp"
            for client, server in HTTP_CLIENTS.items()
        ]
        procs.append(_printed([*command, *args]))
    theirs, ours = (_outputs(proc) for proc in procs)
    assert ours == theirs
    assert "Card issued to Ada Lovelace." in ours["client_callbacks/tutorial002.py"]
    assert "Booked a table for 2 on 2025-12-27." in ours["elicitation/tutorial003.py"]


#: ``client_transports/tutorial003.py`` (its own ``httpx2.AsyncClient`` handed to
#: ``streamable_http_client("http://localhost:8000/mcp", http_client=...)``) talks to this
#: side's ``asgi/tutorial001.py`` app; ``tutorial004.py`` (``StdioServerParameters`` of ``uv
#: run server.py`` with ``BOOKSHOP_API_KEY``) starts ``servers/bookshop_stdio.py`` on this
#: side's stack instead (``uv`` resolves online and the snippet includes no ``server.py``):
#: the command and arguments are substituted, the snippet's ``env`` kept.
_TRANSPORT_MAINS = """import contextlib, io, json, os, runpy, sys
import anyio, mcp, mcp.client.streamable_http as transports
url, server_command = sys.argv[1], json.loads(sys.argv[2])
os.environ["COMPAT_PARENT_ONLY"] = "1"  # not on the SDK's allow-list: the child lacks it
original_transport = transports.streamable_http_client
original_client = mcp.Client


def streamable_http_client(address, *args, **kwargs):
    if address == "http://localhost:8000/mcp":
        address = url
    return original_transport(address, *args, **kwargs)


def Client(server, *args, **kwargs):
    if isinstance(server, mcp.StdioServerParameters) and server.command == "uv":
        assert server.args == ["run", "server.py"], server.args
        server = mcp.StdioServerParameters(
            command=server_command[0], args=server_command[1:], env=server.env
        )
    return original_client(server, *args, **kwargs)


transports.streamable_http_client = streamable_http_client
mcp.Client = Client
out = {}
for path in sys.argv[3:]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            anyio.run(runpy.run_path(path, run_name="snippet")["main"])
        except BaseException as exc:
            print("raised", type(exc).__name__, exc)
    out[path] = buffer.getvalue()
print(json.dumps(out))
"""


def test_docs_src_transport_clients_print_the_same(
    tmp_path: Path,
    apps_served: dict[str, tuple[list[int], list[dict[str, Any]], list[dict[str, Any]]]],
) -> None:
    """The transport chapter's clients of a Streamable HTTP server through the caller's own
    ``httpx2`` client and of a stdio server given an environment: the same printed on mcp
    2.x and on mcpkit."""
    runner = tmp_path / "transport_mains.py"
    runner.write_text(_TRANSPORT_MAINS)
    bookshop = str(Path(__file__).resolve().parent / "servers" / "bookshop_stdio.py")
    # The child gets only the allow-list and the snippet's env: mcpkit's side names its
    # sources on the command line (``env``), as a PYTHONPATH would not reach it.
    our_path = f"PYTHONPATH={os.pathsep.join(sys.path)}"
    sides = [
        ([str(peer("mcp2")), str(runner)], [str(peer("mcp2")), bookshop]),
        (
            [sys.executable, "-m", "mcpkit.compat", str(runner)],
            ["env", our_path, sys.executable, "-m", "mcpkit.compat", bookshop],
        ),
    ]
    snippets = [str(DOCS / "client_transports" / f"tutorial00{n}.py") for n in (3, 4)]
    procs = []
    for side, (command, server) in enumerate(sides):
        url = f"http://127.0.0.1:{apps_served['asgi/tutorial001.py'][0][side]}/mcp"
        procs.append(_printed([*command, url, json.dumps(server), *snippets]))
    theirs, ours = (_outputs(proc) for proc in procs)
    assert ours == theirs
    assert ours["client_transports/tutorial003.py"] == "['add_note']\n"
    assert ours["client_transports/tutorial004.py"] == (
        "['search_books', 'order_book', 'home_passed']\n"
    )
