"""``ClientSessionGroup`` (``from mcp import ClientSessionGroup``) on mcpkit and on the
official SDK: the same printed, the same names, the same errors.

- ``docs_src/session_groups/tutorial003.py`` and ``tutorial004.py`` (copied unchanged; see
  ``examples/NOTICE``) run on mcp 2.x and on mcpkit. They start their servers with
  ``uv run mcp run library_server.py`` (``web_server.py``): the servers are the chapter's
  ``tutorial001.py`` and ``tutorial002.py``, copied under those names into a folder the
  snippets run in, and ``uv`` and ``mcp`` are two small scripts first on ``PATH``: ``uv run
  CMD...`` runs ``CMD...``; ``mcp run FILE`` serves the file's ``mcp`` object over stdio
  with that side's interpreter (``FILE``'s ``mcp.run()`` on the SDK, whose ``mcp`` command
  needs typer, not installed there; ``python -m mcpkit.compat FILE:mcp`` on mcpkit).
  ``tutorial003.py`` connects two servers that both have a tool ``search``: the group
  refuses the second with ``MCPError`` on both.
- A group of two servers of this test whose tool, resource and prompt names collide, on
  mcp 2.x, mcp 1.x and mcpkit: refused without a ``component_name_hook``, renamed with
  one, ``call_tool`` reaching the right server, ``disconnect_from_server`` (twice), a
  session used on its own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.compat.test_unchanged import peer

DOCS = Path(__file__).resolve().parent / "examples" / "official_v2" / "docs_src" / "session_groups"

#: Runs each snippet's ``main()`` in turn (its output captured) and prints them as JSON.
_MAINS = """import contextlib, io, json, runpy, sys
import anyio
out = {}
for path in sys.argv[1:]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            anyio.run(runpy.run_path(path, run_name="snippet")["main"])
        except BaseException as exc:
            print("raised", type(exc).__name__, exc)
    out[path.rsplit("/", 1)[-1]] = buffer.getvalue()
print(json.dumps(out))
"""

_UV = '#!/bin/sh\n[ "$1" = run ] && shift\nexec "$@"\n'
_MCP_SDK = (
    '#!/bin/sh\n[ "$1" = run ] && shift\n'
    'exec {python} -c "import runpy, sys; runpy.run_path(sys.argv[1])[\\"mcp\\"].run()" "$1"\n'
)
_MCP_OURS = '#!/bin/sh\n[ "$1" = run ] && shift\nexec {python} -m mcpkit.compat "$1:mcp"\n'


def _scripts(folder: Path, mcp_script: str) -> Path:
    folder.mkdir()
    for name, text in (("uv", _UV), ("mcp", mcp_script)):
        (folder / name).write_text(text)
        (folder / name).chmod(0o755)
    return folder


def _run(command: list[str], cwd: Path, path_first: Path | None = None) -> str:
    env = dict(os.environ)
    if path_first is not None:
        env["PATH"] = f"{path_first}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=180, check=False
    )
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done.stdout.splitlines()[-1]


def test_docs_src_session_groups_print_the_same(tmp_path: Path) -> None:
    """tutorial003 (two servers, one tool name: refused) and tutorial004 (renamed by
    server: both listed, ``Web.search`` called) print the same on mcp 2.x and mcpkit."""
    servers = tmp_path / "servers"
    servers.mkdir()
    shutil.copy(DOCS / "tutorial001.py", servers / "library_server.py")
    shutil.copy(DOCS / "tutorial002.py", servers / "web_server.py")
    runner = tmp_path / "mains.py"
    runner.write_text(_MAINS)
    snippets = [str(DOCS / "tutorial003.py"), str(DOCS / "tutorial004.py")]
    sdk = peer("mcp2")
    theirs_bin = _scripts(tmp_path / "bin_sdk", _MCP_SDK.format(python=sdk))
    ours_bin = _scripts(tmp_path / "bin_ours", _MCP_OURS.format(python=sys.executable))
    theirs = json.loads(_run([str(sdk), str(runner), *snippets], servers, theirs_bin))
    ours = json.loads(
        _run([sys.executable, "-m", "mcpkit.compat", str(runner), *snippets], servers, ours_bin)
    )
    assert ours == theirs
    assert ours["tutorial003.py"] == "raised MCPError {'search'} already exist in group tools.\n"
    assert ours["tutorial004.py"] == (
        "['Library.search', 'Web.search']\n"
        "{'result': \"12 pages match 'model context protocol'.\"}\n"
    )


#: Two servers, written for either SDK, with the same tool, resource and prompt names.
_SERVER = """try:
    from mcp.server import MCPServer as Server
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server

mcp = Server("{title}")


@mcp.tool()
def search(query: str) -> str:
    return "{title} found " + query


@mcp.tool()
def only_{name}(query: str) -> str:
    return "only {title}: " + query


@mcp.resource("{name}://notes")
def notes() -> str:
    return "{title} notes"


@mcp.prompt()
def greet(who: str) -> str:
    return "Hello from {title}, " + who


if __name__ == "__main__":
    mcp.run()
"""

#: A group of both servers, driven through everything it offers; prints what it saw.
_GROUP = """import json, sys
import anyio
from mcp import ClientSessionGroup, StdioServerParameters

prefix, folder = json.loads(sys.argv[1]), sys.argv[2]


def params(name):
    return StdioServerParameters(command=prefix[0], args=[*prefix[1:], f"{folder}/{name}.py"])


def by_server(name, server_info):
    return f"{server_info.name}.{name}"


def names(group):
    return [sorted(group.tools), sorted(group.resources), sorted(group.prompts)]


async def main():
    out = []
    try:
        async with ClientSessionGroup() as group:
            await group.connect_to_server(params("alpha"))
            out.append(["alpha alone", names(group), len(group.sessions)])
            await group.connect_to_server(params("beta"))
    except Exception as exc:
        out.append(["collision", str(exc), exc.error.code])
    async with ClientSessionGroup(component_name_hook=by_server) as group:
        alpha = await group.connect_to_server(params("alpha"))
        beta = await group.connect_to_server(params("beta"))
        out.append(["both", names(group), len(group.sessions)])
        out.append([group.tools["Beta.search"].name, group.resources["Alpha.notes"].name])
        for name in ("Alpha.search", "Beta.search", "Beta.only_beta", "Alpha.only_alpha"):
            result = await group.call_tool(name, {"query": "mcp"})
            out.append([name, result.content[0].text])
        # The last server connected (the SDK's stdio connections close in that order).
        await group.disconnect_from_server(beta)
        out.append(["beta gone", names(group), [s is alpha for s in group.sessions]])
        try:
            await group.disconnect_from_server(beta)
        except Exception as exc:
            out.append(["again", str(exc), exc.error.code])
        try:
            await group.call_tool("Beta.search", {"query": "mcp"})
        except KeyError as exc:
            out.append(["unknown", str(exc)])
        result = await alpha.call_tool("search", {"query": "directly"})
        out.append(["session", result.content[0].text])
        prompt = await alpha.get_prompt("greet", {"who": "Ada"})
        out.append(["prompt", prompt.messages[0].content.text])
    print(json.dumps(out))


anyio.run(main)
"""


def test_group_of_two_servers_whose_names_collide(tmp_path: Path) -> None:
    """Two real servers sharing a tool, a resource and a prompt name: the group refuses the
    second server without a hook (the prompts checked first, as the SDK does), gathers both
    renamed with one, routes each call to its server, forgets a disconnected server's
    components and refuses to disconnect it twice (the server connected last: the SDK's
    stdio connections cannot be closed out of order), a session used on its own: the same
    on mcp 2.x, mcp 1.x and mcpkit."""
    for name in ("alpha", "beta"):
        (tmp_path / f"{name}.py").write_text(_SERVER.format(name=name, title=name.title()))
    runner = tmp_path / "group.py"
    runner.write_text(_GROUP)
    sides = {
        "mcp2": [str(peer("mcp2")), str(runner), json.dumps([str(peer("mcp2"))])],
        "mcp1": [str(peer("mcp1")), str(runner), json.dumps([str(peer("mcp1"))])],
        "mcpkit": [
            sys.executable,
            "-m",
            "mcpkit.compat",
            str(runner),
            json.dumps([sys.executable, "-m", "mcpkit.compat"]),
        ],
    }
    seen = {side: json.loads(_run([*cmd, str(tmp_path)], tmp_path)) for side, cmd in sides.items()}
    assert seen["mcpkit"] == seen["mcp2"] == seen["mcp1"]
    ours = {entry[0]: entry[1:] for entry in seen["mcpkit"]}
    assert ours["collision"] == ["{'greet'} already exist in group prompts.", -32602]
    assert ours["Beta.only_beta"] == ["only Beta: mcp"]
    assert ours["again"] == ["Provided session is not managed or already disconnected.", -32602]


#: A server over HTTP: ``FILE TRANSPORT NAME PORT`` (``streamable-http`` or ``sse``).
_HTTP_SERVER = """import sys

from mcp.server import MCPServer

transport, name, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
mcp = MCPServer(name)


@mcp.tool()
def where() -> str:
    return f"{name} over {transport}"


mcp.run(transport, host="127.0.0.1", port=port)
"""

#: A group of a Streamable HTTP server and an HTTP+SSE server (their URLs given).
_HTTP_GROUP = """import sys
import anyio
from mcp import ClientSessionGroup
from mcp.client.session_group import SseServerParameters, StreamableHttpParameters


async def main():
    http = StreamableHttpParameters(url=sys.argv[1], headers={"X-Test": "1"})
    sse = SseServerParameters(url=sys.argv[2])
    async with ClientSessionGroup(component_name_hook=lambda n, i: f"{i.name}.{n}") as group:
        await group.connect_to_server(http)
        await group.connect_to_server(sse)
        print(sorted(group.tools), len(group.sessions))
        for name in sorted(group.tools):
            print(name, (await group.call_tool(name)).content[0].text)


anyio.run(main)
"""


def test_group_over_streamable_http_and_sse(tmp_path: Path) -> None:
    """``StreamableHttpParameters`` and ``SseServerParameters``: a group of one server over
    each, the same on mcp 2.x (against its servers) and mcpkit (against its own)."""
    from tests.compat.test_compat import free_port, serve

    server = tmp_path / "http_server.py"
    server.write_text(_HTTP_SERVER)
    runner = tmp_path / "http_group.py"
    runner.write_text(_HTTP_GROUP)
    sdk = str(peer("mcp2"))
    sides = {"mcp2": [sdk], "mcpkit": [sys.executable, "-m", "mcpkit.compat"]}
    printed = {}
    for side, python in sides.items():
        ports = free_port(), free_port()
        servers = [
            serve([*python, str(server), "streamable-http", "Near"], ports[0]),
            serve([*python, str(server), "sse", "Far"], ports[1]),
        ]
        try:
            urls = [f"http://127.0.0.1:{ports[0]}/mcp", f"http://127.0.0.1:{ports[1]}/sse"]
            printed[side] = subprocess.run(
                [*python, str(runner), *urls],
                capture_output=True,
                text=True,
                timeout=120,
                check=True,
            ).stdout
        finally:
            for proc in servers:
                proc.kill()
                proc.wait()
    assert printed["mcpkit"] == printed["mcp2"]
    assert printed["mcpkit"] == (
        "['Far.where', 'Near.where'] 2\nFar.where Far over sse\n"
        "Near.where Near over streamable-http\n"
    )
