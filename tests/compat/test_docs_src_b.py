"""The official SDK 2.x's documentation snippets (``docs_src/``, copied unchanged under
``examples/official_v2/docs_src``; sources in ``examples/NOTICE``), second half: media ..
whats_new. Each server snippet runs on ``mcp`` 2.x and unchanged on mcpkit, driven by the
official client over stdio (every tool, resource, template and prompt it lists exercised,
plus the calls and reads that reach what the arguments made from a schema do not); each
client snippet's ``main()`` runs on both sides against its own server, and what it prints
must be equal. The snippets not run here are listed in docs/migration.md with the reason.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import sys
import wave
from pathlib import Path
from typing import Any

import pytest

from tests.compat.driving import Job, warmed
from tests.compat.test_examples_official import commands, comparable
from tests.compat.test_unchanged import assert_same, peer, report_of, selected, start_both

HERE = Path(__file__).resolve().parent / "examples" / "official_v2"
DOCS = HERE / "docs_src"

EVERYTHING: dict[str, Any] = {"op": "everything", "skip": []}
LIST: dict[str, Any] = {"op": "list"}


def call(name: str, /, answer: Any = None, **args: Any) -> dict[str, Any]:
    op: dict[str, Any] = {"op": "call", "name": name, "args": args}
    if answer is not None:
        op["answer"] = answer
    return op


def read(uri: str) -> dict[str, Any]:
    return {"op": "read", "uri": uri}


def get(name: str, /, **args: Any) -> dict[str, Any]:
    return {"op": "get", "name": name, "args": args}


#: Every server snippet (``dir/tutorialNNN.py``, or ``...py:object`` for a second server
#: object in one file) -> what the client does beyond ``everything``.
SERVERS: dict[str, list[dict[str, Any]]] = {
    "media/tutorial001.py": [],
    "media/tutorial002.py": [],
    "media/tutorial003.py": [],
    "media/tutorial004.py": [],
    "media/tutorial005.py": [],
    "middleware/tutorial001.py": [call("search_books"), call("nothing", query="x")],
    "opentelemetry/tutorial001.py": [],
    "progress/tutorial001.py": [call("import_catalog", urls=["a://1", "b://2", "c://3"])],
    "progress/tutorial002.py": [],
    "prompts/tutorial001.py": [get("review_code")],
    "prompts/tutorial002.py": [get("debug_error", error="KeyError: 'x'")],
    "prompts/tutorial003.py": [get("review_code", code="fn main() {}", language="rust")],
    "prompts/tutorial004.py": [],
    "prompts/tutorial005.py": [],
    "prompts/tutorial006.py": [
        LIST,
        get("x", code="print(1)"),
        call("save_template", name="x", instruction="Shorter."),
        call("save_template", name="review_code", instruction="Replaced."),
        LIST,
        get("x", code="print(1)"),
        get("review_code", code="print(1)"),
    ],
    "real_host/tutorial001.py": [
        call("search_books", query="gibson"),
        call("get_author", title="Dune"),
    ],
    "resources/tutorial001.py": [],
    "resources/tutorial002.py": [read("users://42/profile"), read("users://42/other")],
    "resources/tutorial003.py": [],
    "run/tutorial001.py": [],
    "run/tutorial002.py": [],
    "run/tutorial003.py": [],
    "sampling_and_roots/tutorial001.py": [],
    "sampling_and_roots/tutorial002.py": [],
    "session_groups/tutorial001.py": [],
    "session_groups/tutorial002.py": [],
    "structured_output/tutorial001.py": [call("get_temperature", city="Cairo")],
    "structured_output/tutorial002.py": [],
    "structured_output/tutorial003.py": [],
    "structured_output/tutorial004.py": [],
    "structured_output/tutorial005.py": [call("get_forecast", city="Oslo", days=0)],
    "structured_output/tutorial006.py": [call("get_temperatures", cities=["London", "Cairo"])],
    "structured_output/tutorial007.py": [call("get_weather", city="London")],
    "structured_output/tutorial008.py": [],
    "structured_output/tutorial009.py": [],
    "testing/tutorial001.py": [call("add", a=1, b="2"), call("add", a=1)],
    "tools/tutorial001.py": [call("search_books", query="x")],
    "tools/tutorial002.py": [call("search_books", query="x", limit=3)],
    "tools/tutorial003.py": [
        call("search_books", query="x", limit=0),
        call("search_books", query="x", limit=50, genre="poetry"),
        call("search_books", query="x", genre="comics"),
    ],
    "tools/tutorial004.py": [
        call("add_book", book={"title": "Dune", "author": "Frank Herbert", "year": 1965})
    ],
    "tools/tutorial005.py": [],
    "troubleshooting/tutorial001.py": [
        call("forecast", city="London"),
        read("weather://Cairo"),
    ],
    "troubleshooting/tutorial002.py": [call("forecast", city="x", hours=2)],
    "troubleshooting/tutorial003.py": [],
    "troubleshooting/tutorial004.py": [],
    "troubleshooting/tutorial005.py": [],
    "troubleshooting/tutorial006.py": [
        call("book_table", answer={"confirm": True}, date="Friday"),
        call("book_table", answer={"confirm": False}, date="Friday"),
    ],
    "troubleshooting/tutorial007.py": [
        call("book_table", answer={"confirm": True}, date="Friday"),
    ],
    "troubleshooting/tutorial008.py": [
        call("book_table", answer={"confirm": True}, date="Friday"),
    ],
    "uri_templates/tutorial001.py": [
        read("books://978-0441172719"),
        read("orders://41"),
        read("orders://forty"),
        read("manuals://printing/setup.md"),
        read("manuals://returns.md"),
        read("manuals://../returns.md"),
        read("reviews://978-0553293357"),
        read("reviews://978-0553293357?limit=3&sort=oldest"),
        read("shelves://browse/fiction/space"),
        read("shelves://browse"),
    ],
    "uri_templates/tutorial002.py": [
        read("manuals://printing/setup.md"),
        read("manuals://../secret.md"),
        read("manuals:///etc/passwd"),
    ],
    "uri_templates/tutorial003.py": [
        read("imports://preview/data/books.csv"),
        read("imports://preview//srv/books.csv"),
        read("imports://preview/../books.csv"),
    ],
    "uri_templates/tutorial003.py:relaxed": [
        read("imports://preview//srv/books.csv"),
        read("imports://preview/../books.csv"),
    ],
    "uri_templates/tutorial004.py": [read("config://other")],
    "uri_templates/tutorial005.py": [
        read("manuals://printing/setup.md"),
        read("manuals://../secret.md"),
        read("books://978-0441172719"),
        read("other://x"),
    ],
    "whats_new/tutorial001.py": [call("search_books", query="dune"), call("lend_book")],
}

#: Snippets whose resources or tools list a hundred entries: listed, not read one by one.
LISTED_ONLY = {"pagination/tutorial001.py": [LIST]}

#: A wave file of silence: the chime the media snippet serves.
_FRAMES = bytes(64)


def _assets(folder: Path) -> None:
    """The files the snippets read beside themselves (the docs ship none with them)."""
    shutil.copy(HERE / "mcp.png", folder / "logo.png")
    shutil.copy(HERE / "mcp.png", folder / "architecture.png")
    with wave.open(str(folder / "chime.wav"), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(_FRAMES)
    (folder / "style-guide.md").write_text("# Style\n\nFour spaces, no tabs.\n")
    manuals = folder / "manuals" / "printing"
    manuals.mkdir(parents=True)
    (manuals / "setup.md").write_text("# Printer setup\n")
    (folder / "secret.md").write_text("not served\n")


def _commands(name: str, tmp: Path) -> tuple[list[str], list[str]]:
    """How the SDK runs the snippet and how mcpkit does: the copy in ``tmp`` (beside the
    files it reads), through its server object when it serves HTTP or names a second one."""
    file, _, obj = name.partition(":")
    copy = tmp / file.replace("/", "_")
    shutil.copy(DOCS / file, copy)
    if not obj:
        return commands(copy, tmp, by_object=file == "run/tutorial002.py")
    launcher = tmp / "launch.py"
    launcher.write_text(f"import runpy\nrunpy.run_path({str(copy)!r})[{obj!r}].run()\n")
    return [str(launcher)], [f"{copy}:{obj}"]


#: What some snippets must have sent a 2025-era client (beyond being equal to the SDK's):
#: ``ctx.notify_prompts_changed()`` reaches ``subscriptions/listen`` streams only, so each
#: save is announced once (by ``ctx.session.send_prompt_list_changed()``).
NOTIFIED = {"prompts/tutorial006.py": ["notifications/prompts/list_changed"] * 3}

#: What some snippets must have answered on mcpkit (beyond being equal to the SDK's).
EXPECTED = {
    "uri_templates/tutorial001.py": ["catalog > fiction > space", "3 oldest reviews of Foundation"],
    "uri_templates/tutorial002.py": ["# Printer setup", "Unknown resource: manuals://../secret.md"],
    "uri_templates/tutorial003.py": [
        "Would import from /srv/books.csv",
        "Would import from ../books.csv",
    ],
    "uri_templates/tutorial003.py:relaxed": [
        "Would import from ../books.csv",
        "code=-32602 message='Unknown resource: imports://preview//srv/books.csv'",
    ],
    "troubleshooting/tutorial001.py": ["No forecast for 'x'.", "Cairo: Sun."],
    "troubleshooting/tutorial002.py": ["x: Rain."],
    "troubleshooting/tutorial007.py": ["does not match the requested schema", "Booked for Friday."],
    "prompts/tutorial005.py": ['"type": "image"'],
    "prompts/tutorial006.py": ["Shorter.", "Replaced."],
    "media/tutorial002.py": ["audio/wav"],
}

#: The module a snippet's function is named after: the loader's (``runpy.run_path``'s on
#: the SDK's side, mcpkit's for ``FILE:object``), ``__main__`` when run as a script.
_LOADED = re.compile(r"(?:<run_path>|_mcpkit_target_\d+):")


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(_LOADED.sub("<module>:", json.dumps(comparable(report))))
    return out


CASES = {name: [EVERYTHING, *extra] for name, extra in SERVERS.items()} | LISTED_ONLY


@pytest.fixture(scope="module")
def conversations(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, tuple[Job, Job]]:
    """Both conversations of every selected snippet, handed to the official client before
    the first test (it runs a few at a time, in the tests' order)."""
    started = {}
    for name in selected(request, "test_server_snippet_runs_unchanged"):
        tmp = tmp_path_factory.mktemp("snippet")
        _assets(tmp)
        theirs, ours = _commands(name, tmp)
        with contextlib.chdir(tmp):  # the servers' folder (a snippet reads ./manuals)
            started[name] = start_both(
                CASES[name],
                [str(peer("mcp2")), *theirs],
                [sys.executable, "-m", "mcpkit.compat", *ours],
                tmp,
            )
    return started


@pytest.mark.parametrize("name", sorted(CASES))
def test_server_snippet_runs_unchanged(
    name: str, conversations: dict[str, tuple[Job, Job]]
) -> None:
    jobs = conversations[name]
    theirs, ours = (_comparable(report_of(job, tag)) for job, tag in zip(jobs, ("theirs", "ours")))
    assert_same(theirs, ours)
    if name in NOTIFIED:
        assert ours["notifications"] == NOTIFIED[name]
    seen = json.dumps(ours)
    for text in EXPECTED.get(name, ()):
        assert text in seen, text


#: ASGI-app snippets (``app = ...``) -> what the client does over Streamable HTTP at
#: ``/mcp`` beyond ``everything``.
APPS: dict[str, list[dict[str, Any]]] = {
    "troubleshooting/tutorial003.py": [call("forecast", city="Oslo")],
    "troubleshooting/tutorial005.py": [call("forecast", city="Oslo")],
    "troubleshooting/tutorial008.py": [
        call("book_table", answer={"confirm": True}, date="Friday"),
    ],
}

_SERVE_APP = """import runpy, sys
import uvicorn
app = runpy.run_path({path!r})["app"]
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def _serve_both(name: str, tmp: Path) -> tuple[list[Any], list[str]]:
    """The snippet's ``app`` served by uvicorn on the SDK and on mcpkit: the processes and
    the two endpoints."""
    from tests.compat.test_compat import free_port, serve

    launcher = tmp / "serve_app.py"
    launcher.write_text(_SERVE_APP.format(path=str(DOCS / name)))
    ports = free_port(), free_port()
    procs = [serve([str(peer("mcp2")), str(launcher)], ports[0])]
    try:
        procs.append(serve([sys.executable, "-m", "mcpkit.compat", str(launcher)], ports[1]))
    except BaseException:
        procs[0].terminate()
        raise
    return procs, [f"http://127.0.0.1:{port}/mcp" for port in ports]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, Any]]:
    """What the official client saw of each app of :data:`APPS` on each side, all served
    at once (``{"failed": ...}`` when the client could not talk to it)."""
    from tests.compat.driving import submit

    procs: list[Any] = []
    jobs: dict[str, list[Any]] = {}
    try:
        for name, extra in APPS.items():
            started, urls = _serve_both(name, tmp_path_factory.mktemp("app"))
            procs += started
            script = [EVERYTHING, *extra]
            jobs[name] = [
                submit(peer("mcp2"), script, tag, url=url) for url, tag in zip(urls, "ab")
            ]
        out: dict[str, tuple[Any, Any]] = {}
        for name, pair in jobs.items():
            done = [job.future.result(timeout=120) for job in pair]
            theirs, ours = (
                _comparable(d["report"]) if "report" in d else {"failed": d} for d in done
            )
            out[name] = theirs, ours
        return out
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)


def test_app_snippet_over_http(served: dict[str, tuple[Any, Any]]) -> None:
    """``mcp.streamable_http_app()`` served by uvicorn: the same over Streamable HTTP."""
    theirs, ours = served["troubleshooting/tutorial003.py"]
    assert_same(theirs, ours)
    assert "Oslo: Rain." in json.dumps(ours)


def test_app_mounted_without_its_lifespan_serves_on_mcpkit(
    served: dict[str, tuple[Any, Any]],
) -> None:
    """The app mounted in Starlette without its lifespan (the snippet's point): the SDK's
    session manager never starts and every request fails; mcpkit's app needs no lifespan
    and answers as the SDK's app of ``tutorial003.py`` does (docs/migration.md)."""
    theirs, ours = served["troubleshooting/tutorial005.py"]
    assert "Server returned an error response" in str(theirs["failed"])
    assert_same(served["troubleshooting/tutorial003.py"][0], ours)


def test_stateless_app_cannot_elicit(served: dict[str, tuple[Any, Any]]) -> None:
    """Stateless HTTP has no channel back to the client (the snippet's point): the call
    that elicits is the same JSON-RPC error -32600 on both."""
    theirs, ours = served["troubleshooting/tutorial008.py"]
    assert_same(theirs, ours)
    assert "no back-channel for server-initiated requests" in json.dumps(ours)


#: Client snippets: ``main()`` run on both sides (the server it talks to is its own, in
#: memory) -> what it must print.
CLIENTS = {
    "pagination/tutorial002.py": "100 resources\n",
    "protocol_versions/tutorial001.py": "2026-07-28\n",
    "protocol_versions/tutorial002.py": "2025-11-25\n",
    "protocol_versions/tutorial003.py": "2026-07-28\n",
    "protocol_versions/tutorial004.py": "2026-07-28\nBookshop\n",
}

_MAIN = "import asyncio, runpy\nasyncio.run(runpy.run_path({path!r})['main']())\n"


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    """What each client snippet's ``main()`` printed on the SDK and on mcpkit (all run at
    once)."""
    runs: dict[str, list[subprocess.Popen[str]]] = {}
    for name in CLIENTS:
        launcher = tmp_path_factory.mktemp("client") / "main.py"
        launcher.write_text(_MAIN.format(path=str(DOCS / name)))
        runs[name] = [
            subprocess.Popen(
                warmed(command), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            for command in (
                [str(peer("mcp2")), str(launcher)],
                [sys.executable, "-m", "mcpkit.compat", str(launcher)],
            )
        ]
    out: dict[str, tuple[str, str]] = {}
    for name, (theirs, ours) in runs.items():
        (their_out, their_err), (our_out, our_err) = (
            r.communicate(timeout=120) for r in (theirs, ours)
        )
        assert theirs.returncode == 0, their_err[-2000:]
        assert ours.returncode == 0, our_err[-2000:]
        out[name] = their_out, our_out
    return out


@pytest.mark.parametrize("name", sorted(CLIENTS))
def test_client_snippet_prints_the_same(name: str, printed: dict[str, tuple[str, str]]) -> None:
    theirs, ours = printed[name]
    assert theirs == CLIENTS[name]
    assert ours == theirs


_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}


def test_app_with_transport_security_over_http(tmp_path: Path) -> None:
    """``streamable_http_app(transport_security=...)``: a request naming an allowed host
    and origin is served on both; another host or origin is refused on both (403 on
    mcpkit, 421 or 403 on the SDK, docs/migration.md)."""
    import httpx

    procs, urls = _serve_both("troubleshooting/tutorial004.py", tmp_path)
    base = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    cases = [
        {"Host": "mcp.example.com", "Origin": "https://app.example.com"},
        {"Host": "mcp.example.com:8443"},
        {"Host": "evil.example.com"},
        {"Host": "mcp.example.com", "Origin": "https://evil.example.com"},
    ]
    try:
        statuses = [
            [
                httpx.post(url, json=_INITIALIZE, headers={**base, **case}).status_code
                for url in urls
            ]
            for case in cases
        ]
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
    assert statuses[0] == statuses[1] == [200, 200]
    assert statuses[2][0] == 421 and statuses[2][1] == 403
    assert statuses[3] == [403, 403]
