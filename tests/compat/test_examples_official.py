"""The official SDK's example servers and documentation snippets, every one that serves
offline over stdio: 2.x (``examples/official_v2``, the repository's main branch) on ``mcp``
2.x and 1.x (``examples/official_v1``, those ``test_examples.py`` does not script) on
``mcp`` 1.x, each compared with the same file run unchanged on mcpkit through the official
client (see ``examples/NOTICE`` for the sources).

What the client does is derived from what each side lists (``drive.py``'s ``everything``):
every tool called with arguments made from its input schema, every resource and every
template (its variables filled in) read, every prompt got with its required arguments; the
listings being equal, both sides get the same requests.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.compat.test_unchanged import assert_same, drive_both, normalised, peer

HERE = Path(__file__).resolve().parent / "examples"

#: example -> tools not called (they need what a test has not: the screen, the network).
NOT_CALLED: dict[str, set[str]] = {
    "official_v2/mcpserver_desktop.py": set(),
    "official_v1/fastmcp_desktop.py": set(),
}

#: example -> calls made beyond ``everything``'s: the simple-tool servers' fetch of a URL
#: nothing listens at (``everything`` fetches a URL without a scheme), failing alike.
EXTRA: dict[str, list[dict[str, Any]]] = {
    name: [{"op": "call", "name": "fetch", "args": {"url": "http://127.0.0.1:9/"}}]
    for name in ("official_v1/server_mcp_simple_tool.py", "official_v2/server_mcp_simple_tool.py")
}


#: The stories that serve Streamable HTTP behind authorization only, compared over HTTP
#: elsewhere: ``bearer_auth`` in test_mcp_auth.py, ``oauth`` in test_oauth_story.py,
#: ``oauth_client_credentials`` and ``identity_assertion`` in test_m2m_auth.py.
AUTH_STORIES = {"bearer_auth", "identity_assertion", "oauth", "oauth_client_credentials"}

#: Examples that serve Streamable HTTP only (compared over HTTP in test_http_examples.py).
HTTP_ONLY: set[str] = {
    "official_v2/server_mcp_everything_server.py",
    "official_v2/server_mcp_simple_streamablehttp_stateless.py",
    *(
        f"official_v2/stories/{story}/{server}.py"
        for story in (
            "json_response",
            "legacy_routing",
            "sse_polling",
            "starlette_mount",
            "stateless_legacy",
        )
        for server in ("server", "server_lowlevel")
    ),
}

#: (peer, example) for every example run here.
EXAMPLES: list[tuple[str, str]] = [
    *(
        ("mcp2", str(p.relative_to(HERE)))
        for pattern in ("*.py", "lowlevel/*.py", "stories/*/server*.py")
        for p in sorted((HERE / "official_v2").glob(pattern))
        if p.parent.name not in AUTH_STORIES and str(p.relative_to(HERE)) not in HTTP_ONLY
    ),
    *(
        ("mcp1", f"official_v1/{name}")
        for name in (
            "audio_example.py",
            "binary_resources.py",
            "embedded_resource_results.py",
            "embedded_resource_results_binary.py",
            "direct_execution.py",
            "elicitation_complete.py",
            "elicitation_enum.py",
            "fastmcp_quickstart.py",
            "pagination_example.py",
            "prompt_change_notifications.py",
            "prompt_embedded_resources.py",
            "prompt_image_content.py",
            "resource_subscriptions.py",
            "set_logging_level.py",
            "tool_change_notifications.py",
            "tool_errors.py",
            "tool_progress.py",
            "streamable_config.py",
            "streamable_http_basic_mounting.py",
            "streamable_http_host_mounting.py",
            "streamable_http_multiple_servers.py",
            "streamable_http_path_config.py",
            "streamable_starlette_mount.py",
            "fastmcp_direct_call_tool_result_return.py",
            "fastmcp_icons_demo.py",
            "fastmcp_readme-quickstart.py",
            "fastmcp_simple_echo.py",
            "fastmcp_desktop.py",
            "server_mcp_simple_tool.py",
        )
    ),
]

_OBJECT = re.compile(r"^(\w+) = (MCPServer|FastMCP|Server)\(", re.M)

#: How the SDK serves a low-level ``Server`` object (``run()`` takes stdio's streams).
_LOWLEVEL = """import anyio, runpy
from mcp.server.stdio import stdio_server
server = runpy.run_path({path!r})[{name!r}]
async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
anyio.run(main)
"""


#: Examples whose ``__main__`` serves HTTP on a fixed port (or tests itself with the SDK's
#: client): served through their server object.
BY_OBJECT = {
    "official_v1/fastmcp_quickstart.py",
    "official_v1/streamable_config.py",
    "official_v2/mcpserver_quickstart.py",
    "official_v2/mcpserver_weather_structured.py",
    "official_v2/streamable_config.py",
}

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: The time an example reads (``datetime.now().isoformat()``).
_NOW = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?")
#: An object's default repr: its address, and its module's name, which is the loader's.
_REPR = re.compile(r"<[\w.<>]+ object at 0x[0-9a-f]+>")


def comparable(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` normalised, plus the random UUIDs an example mints (elicitation ids), the
    time it reads and an object's default repr (its address, its module's name) made equal,
    and an error's data read as data (its keys' order is not compared)."""
    text = json.dumps(normalised(report))
    text = _NOW.sub("<now>", _REPR.sub("<object>", _UUID.sub("<uuid>", text)))
    out: dict[str, Any] = json.loads(text)
    for op in out["ops"]:
        head, sep, data = str(op.get("error", "")).partition(" data=")
        if sep:
            with contextlib.suppress(ValueError, SyntaxError):
                op["error"] = [head, ast.literal_eval(data)]
    return out


def commands(path: Path, tmp: Path, by_object: bool = False) -> tuple[list[str], list[str]]:
    """How the SDK runs the example and how mcpkit does: a file with a ``__main__`` block
    as a script; a packaged server's ``main()`` as a console script (the same launcher on
    both); a snippet that only defines its server object through that object (on the SDK
    by a launcher calling ``run()``, on mcpkit as ``FILE:object``)."""
    text = path.read_text()
    if 'if __name__ == "__main__"' in text and not by_object:
        return [str(path)], [str(path)]
    launcher = tmp / "launch.py"
    if re.search(r"^def main\(", text, re.M):
        launcher.write_text(
            f"import sys\nsys.path.insert(0, {str(path.parent)!r})\n"
            f"sys.argv = ['server']\nfrom {path.stem} import main\nsys.exit(main())\n"
        )
        return [str(launcher)], [str(launcher)]
    found = _OBJECT.search(text)
    assert found, f"{path.name}: no server object found"
    name = found.group(1)
    if found.group(2) == "Server":
        launcher.write_text(_LOWLEVEL.format(path=str(path), name=name))
    else:
        launcher.write_text(f"import runpy\nrunpy.run_path({str(path)!r})[{name!r}].run()\n")
    return [str(launcher)], [f"{path}:{name}"]


@pytest.mark.parametrize(("sdk", "name"), EXAMPLES, ids=[n for _, n in EXAMPLES])
def test_official_example_runs_unchanged(
    sdk: str, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = HERE / name
    # The stories import their hosting scaffold as ``stories._hosting``.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE / "official_v2"), *sys.path]))
    theirs_cmd, ours_cmd = commands(path, tmp_path, name in BY_OBJECT)
    script = [{"op": "everything", "skip": sorted(NOT_CALLED.get(name, ()))}, *EXTRA.get(name, ())]
    reports = drive_both(
        script,
        [str(peer(sdk)), *theirs_cmd],
        [sys.executable, "-m", "mcpkit.compat", *ours_cmd],
        tmp_path,
    )
    theirs, ours = (comparable(r) for r in reports)
    if "/stories/streaming/" in name:
        # The official client runs each notification's callback in a task of its own, so
        # under load a log may be counted after its call; the wire's order is compared by
        # test_mrtr_subscriptions_official.py's test_streaming_notifications_precede_the_result.
        for op in (*theirs["ops"], *ours["ops"]):
            op.pop("logs"), op.pop("progress")
    assert_same(theirs, ours)


#: The image snippets (Pillow): their tool thumbnails a real PNG (the SDK's ``mcp.png``, copied
#: with the examples) on top of what ``everything`` calls it with (a path that is no file).
IMAGES = [("mcp2", "official_v2/images.py"), ("mcp1", "official_v1/images.py")]


@pytest.mark.parametrize(("sdk", "name"), IMAGES, ids=[n for _, n in IMAGES])
def test_image_snippet_thumbnails_as_on_the_sdk(sdk: str, name: str, tmp_path: Path) -> None:
    picture = str(HERE / name.split("/")[0] / "mcp.png")
    theirs_cmd, ours_cmd = commands(HERE / name, tmp_path)
    script = [
        {"op": "everything", "skip": []},
        {"op": "call", "name": "create_thumbnail", "args": {"image_path": picture}},
    ]
    reports = drive_both(
        script,
        [str(peer(sdk)), *theirs_cmd],
        [sys.executable, "-m", "mcpkit.compat", *ours_cmd],
        tmp_path,
    )
    theirs, ours = (comparable(r) for r in reports)
    assert_same(theirs, ours)
    [image] = ours["ops"][-1]["result"]["content"]
    assert image["type"] == "image" and image["mimeType"] == "image/png"
