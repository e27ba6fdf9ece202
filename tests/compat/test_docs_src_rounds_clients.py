"""The official SDK 2.x's documentation snippets on deployment, multi round-trip results and
``subscriptions/listen`` that are factories or clients (``examples/official_v2/docs_src``,
copied unchanged; sources in ``examples/NOTICE``), run on mcp 2.x and unchanged on mcpkit:

- ``deploy/tutorial002.py`` .. ``tutorial004.py`` (a ``make_server(...)`` factory: an
  ``MCPServer`` tool returning ``str | InputRequiredResult``, with ``RequestStateSecurity``
  keys, or fed by a ``SubscriptionBus``): the server each builds, served over stdio on
  2026-07-28 (and the handshake era), driven by the official client on both sides; two
  workers built with the same key accept each other's ``requestState``, over HTTP;
- the client snippets (``mrtr/tutorial002.py``, ``tutorial003.py``,
  ``subscriptions/tutorial003.py``, ``tutorial004_anyio.py``, ``tutorial005.py``): each
  run by mcp 2.x against its chapter's server on mcp 2.x, and by mcpkit against the same
  server on mcpkit, over Streamable HTTP; what they print must be the same. The snippets
  that listen forever are stopped once they printed what the changes made should make them
  print. (``tutorial004_trio.py`` needs trio, which no peer environment has.)
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.compat.driving import submit
from tests.compat.recorded import run_both
from tests.compat.test_mrtr_subscriptions_official import MODERN, _unversioned
from tests.compat.test_unchanged import assert_same, peer

DOCS = Path(__file__).resolve().parent / "examples" / "official_v2" / "docs_src"

#: The key both workers of ``deploy/tutorial003.py`` are built with.
KEY = "a-deployment-secret-of-32-bytes!"

#: What each factory is called with (Python source of its arguments).
FACTORIES = {
    "deploy/tutorial002.py": "",
    "deploy/tutorial003.py": repr(KEY),
    "deploy/tutorial004.py": "InMemorySubscriptionBus()",
}

_FACTORY = """\
import runpy, sys
from mcp.server.subscriptions import InMemorySubscriptionBus
ns = runpy.run_path({path!r})
server = ns["make_server"]({args})
if len(sys.argv) > 1:  # over HTTP, on the port last (after a log path it keeps none of)
    import uvicorn
    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[-1]),
                log_level="warning")
else:
    server.run()
"""


def _factory_source(name: str) -> str:
    return _FACTORY.format(path=str(DOCS / name), args=FACTORIES[name])


def _factory_launcher(name: str, folder: Path) -> Path:
    launcher = folder / (name.replace("/", "_"))
    launcher.write_text(_factory_source(name))
    return launcher


def refund(amount: int, ok: bool) -> dict[str, Any]:
    return {"op": "call", "name": "refund", "args": {"amount": amount}, "answer": {"ok": ok}}


#: What the server each factory builds is asked, by era.
SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "deploy/tutorial002.py": [
        {"op": "everything", "skip": ["refund"]},
        refund(30, True),
        refund(40, False),
    ],
    "deploy/tutorial003.py": [refund(30, True), refund(40, False)],
    "deploy/tutorial004.py": [
        {"op": "everything", "skip": ["edit_note"]},
        {"op": "call", "name": "edit_note", "args": {"name": "todo", "text": "water plants"}},
        {"op": "read", "uri": "note://todo"},
    ],
}

CASES = [(name, mode) for name in SCRIPTS for mode in (MODERN, "legacy")]


@pytest.mark.parametrize(("name", "mode"), CASES, ids=[f"{n}-{m}" for n, m in CASES])
def test_factory_server_runs_unchanged(name: str, mode: str, tmp_path: Path) -> None:
    launcher = _factory_launcher(name, tmp_path)
    python = peer("mcp2")
    script = SCRIPTS[name]
    jobs = (
        submit(python, script, "theirs", command=[str(python), str(launcher)], mode=mode),
        submit(
            python,
            script,
            "ours",
            command=[sys.executable, "-m", "mcpkit.compat", str(launcher)],
            mode=mode,
        ),
    )
    theirs, ours = (_unversioned(job.report()) for job in jobs)
    assert_same(theirs, ours)
    calls = [op for op in ours["ops"] if op["op"] == "call" and op["name"] == "refund"]
    if mode == MODERN and calls:  # the confirmation asked, then the answer used
        assert [c["result"]["content"][0]["text"] for c in calls] == [
            "refunded $30",
            "refund cancelled",
        ]
        assert [a["elicitation"]["message"] for a in ours["answered"]] == ["Issue this refund?"] * 2
    elif calls:  # an InputRequiredResult has no meaning before 2026-07-28: refused alike
        assert all("Handler returned an invalid result" in c["error"] for c in calls)
    if name == "deploy/tutorial004.py":
        assert ours["ops"][-1]["result"]["contents"][0]["text"] == "water plants"


#: Two workers of ``deploy/tutorial003.py`` (the same key, the same name): the first round
#: answered by one, the retry by the other, with the official client run by hand.
_TWO_WORKERS = """\
import anyio, sys
from mcp import Client
from mcp.types import ElicitResult, InputRequiredResult

async def main() -> None:
    first, second, mode = sys.argv[1:4]
    async with Client(first, mode=mode) as a, Client(second, mode=mode) as b:
        round1 = await a.session.call_tool("refund", {{"amount": 7}}, allow_input_required=True)
        assert isinstance(round1, InputRequiredResult), round1
        print(sorted(round1.input_requests or {{}}))
        answer = {{"ok": ElicitResult(action="accept", content={{"ok": True}})}}
        done = await b.session.call_tool(
            "refund", {{"amount": 7}}, input_responses=answer,
            request_state=round1.request_state, allow_input_required=True,
        )
        print(done.content[0].text)
        try:
            await b.session.call_tool(
                "refund", {{"amount": 7}}, input_responses=answer,
                request_state=round1.request_state[:-4] + "AAAA", allow_input_required=True,
            )
        except Exception as exc:  # the client raises the error answer
            error = getattr(exc, "error", exc)
            print(getattr(error, "code", None), getattr(error, "message", None))

anyio.run(main)
"""


def test_workers_sharing_a_key_accept_each_others_state(tmp_path: Path) -> None:
    """The snippet's point: a retry may reach another worker; built with the same key and
    name, it opens the ``requestState`` the first sealed (on mcp 2.x and on mcpkit)."""
    printed = run_both(
        tmp_path,
        _factory_source("deploy/tutorial003.py"),
        _TWO_WORKERS.format(),
        "auto",
        servers=[[], []],
        on_mcpkit="server",
    )
    assert printed["theirs"][0] == "['ok']\nrefunded $7\n-32602 Invalid or expired requestState\n"
    assert printed["ours"][0] == printed["theirs"][0]


# -- the client snippets -------------------------------------------------------------------

#: Each chapter's server (file, object), served over Streamable HTTP.
CHAPTER = {
    "mrtr": ("mrtr/tutorial001.py", "server"),
    "subscriptions": ("subscriptions/tutorial001.py", "mcp"),
}

_SERVE = """\
import runpy, sys
import uvicorn
app = runpy.run_path({path!r})[{obj!r}].streamable_http_app()
# sys.argv[1] is the path of a log this server keeps none of
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""

#: What precedes each client run: ``mcp.Client`` pointed at the test's server where a
#: snippet names ``localhost:8000``, ``print`` counted, ``listening`` set once a
#: ``client.listen(...)`` block is entered (acknowledged), and the helpers of the drivers.
_PRELUDE = """\
import builtins, contextlib, runpy, sys
import anyio
import mcp

URL = sys.argv[1]  # then the mode, which the snippets choose themselves
_print = builtins.print
printed = 0
_changed = None
listening = None


def print(*args, **kwargs):
    global printed
    _print(*args, **kwargs, flush=True)
    printed += 1
    if _changed is not None:
        _changed.set()


builtins.print = print


async def until_printed(n):
    global _changed
    with anyio.fail_after(30):
        while printed < n:
            _changed = anyio.Event()
            await _changed.wait()


class Client(mcp.Client):
    def __init__(self, target, *args, **kwargs):
        if isinstance(target, str):
            for here in ("http://localhost:8000/mcp", "http://127.0.0.1:8000/mcp"):
                target = target.replace(here, URL)
        super().__init__(target, *args, **kwargs)

    def listen(self, *args, **kwargs):
        opened = super().listen(*args, **kwargs)

        @contextlib.asynccontextmanager
        async def entered():
            async with opened as sub:
                if listening is not None:
                    listening.set()
                yield sub

        return entered()


mcp.Client = Client
sys.path.insert(0, {docs!r})
"""

#: Each client snippet -> what its run does (after the prelude), and the chapter.
CLIENTS: dict[str, tuple[str, str]] = {
    "mrtr/tutorial002.py": (
        "mrtr",
        """
ns = runpy.run_path({file!r})

async def main():
    async with Client(URL) as client:
        result = await ns["provision"](client, "orders")
        print(type(result).__name__, [block.text for block in result.content])

anyio.run(main)
""",
    ),
    "mrtr/tutorial003.py": (
        "mrtr",
        """
ns = runpy.run_path({file!r})

async def main():
    await ns["main"]()

anyio.run(main)
""",
    ),
    "subscriptions/tutorial003.py": (
        "subscriptions",
        """
from subscriptions import tutorial003 as snippet

async def main():
    global listening
    listening = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(snippet.main)
        await listening.wait()
        async with Client(URL) as other:
            await other.call_tool("complete_task", {{"board": "sprint", "task": "design"}})
            await until_printed(1)
            await other.call_tool("enable_reports", {{}})
            await until_printed(2)
        tg.cancel_scope.cancel()

anyio.run(main)
""",
    ),
    "subscriptions/tutorial004_anyio.py": (
        "subscriptions",
        """
runpy.run_module("subscriptions.tutorial004_anyio", run_name="__main__")
""",
    ),
    "subscriptions/tutorial005.py": (
        "subscriptions",
        """
from subscriptions import tutorial005 as snippet

async def main():
    global listening
    listening = anyio.Event()
    async with Client(URL) as client, anyio.create_task_group() as tg:
        tg.start_soon(snippet.keep_following, client)
        await until_printed(1)  # the board fetched once the stream was acknowledged
        async with Client(URL) as other:
            await other.call_tool("complete_task", {{"board": "sprint", "task": "build"}})
        await until_printed(2)
        tg.cancel_scope.cancel()

anyio.run(main)
""",
    ),
}


def _run_client(name: str, folder: Path) -> dict[str, str]:
    """Serve the snippet's chapter server and run the snippet against it, both on mcp 2.x
    and both on mcpkit: what it printed on each side."""
    chapter, body = CLIENTS[name]
    path, obj = CHAPTER[chapter]
    runs = run_both(
        folder,
        _SERVE.format(path=str(DOCS / path), obj=obj),
        _PRELUDE.format(docs=str(DOCS)) + textwrap.dedent(body).format(file=str(DOCS / name)),
        "auto",
        on_mcpkit="both",
    )
    return {side: out for side, (out, _) in runs.items()}


def _boards(out: str) -> list[list[str]]:
    """The boards printed (three lines each: design, build, ship)."""
    lines = out.splitlines()
    return [lines[i : i + 3] for i in range(0, len(lines), 3)]


@pytest.mark.parametrize("name", sorted(CLIENTS))
def test_client_snippet_prints_the_same(name: str, tmp_path: Path) -> None:
    printed = _run_client(name, tmp_path)
    theirs, ours = printed["theirs"], printed["ours"]
    if name == "subscriptions/tutorial004_anyio.py":
        # The watcher reads the board after each event while the tasks are being completed:
        # how many boards it prints depends on timing, on either side. The first is the
        # snapshot, the last the finished sprint, the ones between in order.
        for out in (theirs, ours):
            boards = _boards(out)
            assert boards[0] == ["[ ] design", "[ ] build", "[ ] ship"], out
            assert boards[-1] == ["[x] design", "[x] build", "[x] ship"], out
            done = [sum(line.startswith("[x]") for line in board) for board in boards]
            assert done == sorted(done) and len(boards) >= 2, out
        return
    assert ours == theirs
    expected = {
        "mrtr/tutorial002.py": "CallToolResult [\"Provisioned 'orders' in eu-west-1.\"]\n",
        "subscriptions/tutorial003.py": (
            "[x] design\n[ ] build\n[ ] ship\n"
            "tools: ['complete_task', 'enable_reports', 'sprint_report']\n"
        ),
        "subscriptions/tutorial005.py": (
            "[ ] design\n[ ] build\n[ ] ship\n[ ] design\n[x] build\n[ ] ship\n"
        ),
    }
    if name in expected:
        assert theirs == expected[name]
    else:  # mrtr/tutorial003.py prints the content blocks' repr
        assert "Provisioned 'orders' in eu-west-1." in theirs
