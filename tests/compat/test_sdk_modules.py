"""Modules of the official SDK that servers import, compared with the SDK's own:
``mcp.types.version`` (the revisions by era), ``mcp.server.mcpserver.resources`` and
``mcp.client.Client``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.compat.test_unchanged import EXAMPLES, SERVERS, assert_same, both, peer

PAIRS = [
    (a, b)
    for a in ("2024-11-05", "2025-06-18", "2026-07-28", "1999-01-01")
    for b in (
        "2024-11-05",
        "2025-11-25",
        "2026-07-28",
    )
]

_DUMP = """import json, mcp.types.version as v
out = {n: getattr(v, n) for n in v.__all__ if n != "is_version_at_least"}
out["at_least"] = [v.is_version_at_least(a, b) for a, b in %r]
print(json.dumps(out))
"""


def _values(module: Any) -> dict[str, Any]:
    out: dict[str, Any] = {n: getattr(module, n) for n in module.__all__}
    out.pop("is_version_at_least")
    out["at_least"] = [module.is_version_at_least(a, b) for a, b in PAIRS]
    return json.loads(json.dumps(out))


def test_types_version_matches_the_sdk() -> None:
    """Every name of 2.x's ``mcp.types.version``, with the same values and answers."""
    from mcpkit.compat.mcp.types import version

    theirs = json.loads(
        subprocess.run(
            [str(peer("mcp2")), "-c", _DUMP % (PAIRS,)],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
    )
    assert _values(version) == theirs
    with pytest.raises(ValueError, match="known protocol version"):
        version.is_version_at_least("2025-06-18", "2020-01-01")


def test_types_version_is_served_under_both_import_names() -> None:
    """``mcp.types.version`` and ``mcp_types.version`` are the same module (in a process of
    its own, the import names served there alone)."""
    code = (
        "from mcpkit.import_aliases import install; install()\n"
        "import mcp.types.version as a, mcp_types.version as b\n"
        "print(a is b, a.MODERN_PROTOCOL_VERSIONS)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.split() == ["True", "('2026-07-28',)"]


def test_resource_objects_match_the_sdk(tmp_path: Path) -> None:
    """``MCPServer.add_resource`` with every kind of resource object: the same listing and
    the same contents (or error) for each read, as 2.x."""
    script: list[dict[str, Any]] = [{"op": "everything", "skip": []}]
    theirs, ours = both("mcp2", SERVERS / "resource_objects.py", script, tmp_path)
    assert_same(theirs, ours)
    listed = {r["uri"]: r for r in ours["ops"][0]["resources"]}
    assert listed["memo://text"]["name"] == "memo://text"  # named after its URI
    reads = {op["uri"]: op for op in ours["ops"][1:]}
    assert reads["file:///notes"]["result"]["contents"][0]["text"] == "line one\nline two\n"
    assert reads["memo://upper"]["result"]["contents"][0]["text"] == "SHOUT"
    assert "error" in reads["memo://broken"]


_TIMESTAMP = re.compile(r'"timestamp": "[^"]*"')


def test_client_in_memory_matches_the_sdk() -> None:
    """``mcp.client.Client(server)``: the official weather example's own self-test (each
    tool called in memory, its ``structured_content`` and text printed) prints the same on
    mcpkit as on 2.x, but for the time it reads."""
    example = EXAMPLES / "official_v2" / "mcpserver_weather_structured.py"

    def printed(command: list[str]) -> str:
        done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)
        return _TIMESTAMP.sub('"timestamp": "<now>"', done.stdout)

    theirs = printed([str(peer("mcp2")), str(example)])
    ours = printed([sys.executable, "-m", "mcpkit.compat", str(example)])
    assert ours == theirs
    assert '"location": "Seattle"' in ours


def test_apps_extension_matches_the_sdk(tmp_path: Path) -> None:
    """``mcp.server.apps``: the bound tools' ``_meta.ui``, the ``ui://`` resources (their
    MIME type, ``_meta.ui``) and their reads, and the answer of ``client_supports_apps``
    to a client without the extension, as 2.x."""
    script: list[dict[str, Any]] = [{"op": "everything", "skip": []}]
    theirs, ours = both("mcp2", SERVERS / "apps_extension.py", script, tmp_path)
    assert_same(theirs, ours)
    tools = {t["name"]: t for t in ours["ops"][0]["tools"]}
    assert tools["board"]["_meta"] == {
        "k": 1,
        "ui": {"resourceUri": "ui://board/app.html", "visibility": ["app"]},
    }
    resources = {r["uri"]: r for r in ours["ops"][0]["resources"]}
    assert resources["ui://plain/page.html"]["mimeType"] == "text/html;profile=mcp-app"
    assert resources["ui://board/app.html"]["_meta"]["ui"]["csp"] == {
        "connectDomains": ["https://api.example.com"]
    }
    results = {op["name"]: op["result"] for op in ours["ops"] if op["op"] == "call"}
    assert results["board"]["content"][0]["text"] == "apps supported: False"


@pytest.mark.parametrize("sdk", ["mcp1", "mcp2"])
def test_resource_meta_in_contents_matches_the_sdk(sdk: str, tmp_path: Path) -> None:
    """A resource's or template's ``meta=`` is sent in its listing and in what a read
    returns, as the SDK sends it."""
    script: list[dict[str, Any]] = [{"op": "everything", "skip": []}]
    theirs, ours = both(sdk, SERVERS / "resource_meta.py", script, tmp_path, sdk)
    assert_same(theirs, ours)
