"""What a 2.x user sees when printing the client's models: the same on mcpkit as on mcp 2.x.

- ``docs_src/client/tutorial001.py``, ``tutorial002.py`` and ``tutorial005.py`` (copied
  unchanged; see ``examples/NOTICE``) print ``client.server_info``,
  ``client.server_capabilities``, a tool's ``input_schema`` and the listed prompts: their
  ``main()`` run on mcp 2.x and on mcpkit print the same.
- ``servers/printed_models.py`` connected in memory on both eras: every listed tool (a
  schema with ``$defs``, an output schema), resource, template and prompt, a resource
  link in a tool's content and a prompt's messages print the same.
- The official client over stdio prints the same tools from that server on mcp 2.x and on
  mcpkit on both eras: the schemas' keys come in the order 2.x sends them for each
  revision.
- 1.x's ``create_connected_server_and_client_session`` (``mcp.shared.memory``): its models
  print as 1.x's.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import mcpkit
from tests.compat.test_unchanged import peer

HERE = Path(__file__).resolve().parent
DOCS = HERE / "examples" / "official_v2" / "docs_src" / "client"
SERVER = HERE / "servers" / "printed_models.py"

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

#: Prints what ``mcp.Client(server)`` answers, in memory, on the handshake and on 2026-07-28.
_IN_MEMORY = """import runpy, sys
import anyio
from mcp import Client

async def main():
    server = runpy.run_path(sys.argv[1])["mcp"]
    for mode in ("legacy", "auto"):
        async with Client(server, mode=mode) as client:
            print(client.protocol_version)
            print(client.server_info)
            for tool in (await client.list_tools()).tools:
                print(tool)
            print((await client.list_resources()).resources)
            print((await client.list_resource_templates()).resource_templates)
            print((await client.list_prompts()).prompts)
            print((await client.call_tool("link", {"name": "a"})).content)
            shelved = await client.call_tool("shelve", {"book": {"title": "Emma"}})
            print(shelved.structured_content)
            print((await client.get_prompt("ask", {"topic": "owls"})).messages)

anyio.run(main)
"""

#: The official client over stdio: the tools a server lists, printed, on both eras.
_OVER_STDIO = """import json, sys
import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    env = json.loads(sys.argv[1])
    params = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:], env=env)
    for mode in ("legacy", "2026-07-28"):
        async with Client(stdio_client(params), mode=mode) as client:
            print(client.protocol_version)
            for tool in (await client.list_tools()).tools:
                print(tool)

anyio.run(main)
"""


def _run(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_docs_src_client_models_print_the_same(tmp_path: Path) -> None:
    runner = tmp_path / "mains.py"
    runner.write_text(_MAINS)
    snippets = [str(DOCS / f"tutorial00{n}.py") for n in (1, 2, 5)]
    theirs = json.loads(_run([str(peer("mcp2")), str(runner), *snippets]).splitlines()[-1])
    ours = json.loads(
        _run([sys.executable, "-m", "mcpkit.compat", str(runner), *snippets]).splitlines()[-1]
    )
    assert ours == theirs
    assert ours["tutorial001.py"].startswith("name='Bookshop' title=None version=")
    assert ours["tutorial002.py"].splitlines()[-1].startswith("{'type': 'object', 'properties'")
    assert ours["tutorial005.py"].startswith("[Prompt(name='recommend', title='Recommend a book'")


def test_listings_and_results_print_the_same_in_memory(tmp_path: Path) -> None:
    runner = tmp_path / "in_memory.py"
    runner.write_text(_IN_MEMORY)
    theirs = _run([str(peer("mcp2")), str(runner), str(SERVER)])
    ours = _run([sys.executable, "-m", "mcpkit.compat", str(runner), str(SERVER)])
    assert ours == theirs
    assert ours.count("\nname='shelve' title='Shelve' description='Shelve a book.'") == 2
    assert "[ResourceLink(name='a', title=None, uri='notes://a'," in ours


def test_official_client_prints_the_same_tools_over_stdio(tmp_path: Path) -> None:
    """The key order of a tool's schemas on the wire, per revision: handshake era
    ``properties, required, type`` first, 2026-07-28 ``type`` first for the input schema
    and pydantic's sorted keys for the output schema."""
    runner = tmp_path / "over_stdio.py"
    runner.write_text(_OVER_STDIO)
    sdk = str(peer("mcp2"))
    serve_sdk = [sdk, "-c", "import runpy, sys; runpy.run_path(sys.argv[1])['mcp'].run()"]
    serve_ours = [sys.executable, "-m", "mcpkit.compat", f"{SERVER}:mcp"]
    env = json.dumps({"PYTHONPATH": str(Path(mcpkit.__file__).parents[1])})
    theirs = _run([sdk, str(runner), env, *serve_sdk, str(SERVER)])
    ours = _run([sdk, str(runner), env, *serve_ours])
    assert ours == theirs
    legacy, modern = ours.split("2026-07-28\n")
    assert "input_schema={'properties': {'name'" in legacy
    assert "input_schema={'type': 'object', 'properties': {'name'" in modern
    assert "output_schema={'description': 'A book.', 'properties'" in modern


def test_memory_session_models_print_as_1x() -> None:
    """``mcp.shared.memory``'s session (1.x's test connection, ``clients/
    official_memory_printed.py``): every model it answers with prints as 1.x's, camelCase
    names, 1.x's field order and fields, a URI as ``AnyUrl``, the same on mcp 1.x and
    mcpkit but for the server's version (1.x's ``FastMCP`` names the SDK's)."""
    script = HERE / "clients" / "official_memory_printed.py"
    theirs = _run([str(peer("mcp1")), str(script)])
    ours = _run([sys.executable, "-m", "mcpkit.compat", str(script)])
    version = re.compile(r"version='[^']*'")
    assert version.sub("version=<v>", ours) == version.sub("version=<v>", theirs)
    assert "mimeType='text/plain', size=None, icons=None, annotations=None, meta=None" in ours
    assert "uri=AnyUrl('notes://a')" in ours
    assert "PromptArgument(name='code', description=None, required=True)" in ours
