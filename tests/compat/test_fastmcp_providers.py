"""fastmcp's providers on mcpkit: ``tests/compat/servers/fastmcp_providers.py`` run on
fastmcp and unchanged on mcpkit (the examples are in ``test_examples_fastmcp.py``), and
what a ``FileSystemProvider`` finds and finds again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.compat.test_unchanged import SERVERS, assert_same, both


def test_fastmcp_providers_served_like_fastmcp(tmp_path: Path) -> None:
    script: list[dict[str, Any]] = [
        {"op": "list"},
        {"op": "call", "name": "counter", "args": {}},
        {"op": "call", "name": "counter", "args": {"by": 5}},
        {"op": "call", "name": "counter", "args": {"fail": True}},
        {"op": "call", "name": "plain", "args": {"x": 1}},
        {"op": "call", "name": "shout", "args": {"text": "hey"}},
        {"op": "call", "name": "shout", "args": {}},
        {"op": "call", "name": "greet", "args": {"name": "Ada"}},
        {"op": "call", "name": "double", "args": {"x": 4}},
        {"op": "call", "name": "object_tool", "args": {}},
        {"op": "call", "name": "whoami", "args": {}},
        {"op": "call", "name": "nope", "args": {}},
        {"op": "call", "name": "secret", "args": {}},
        {"op": "read", "uri": "note://hidden"},
        {"op": "read", "uri": "note://one"},
        {"op": "read", "uri": "note://two"},
        {"op": "read", "uri": "page://3"},
        {"op": "read", "uri": "page://0"},
        {"op": "read", "uri": "raw://1"},
        {"op": "read", "uri": "data://local"},
        {"op": "read", "uri": "none://x"},
        {"op": "get", "name": "ask", "args": {"topic": "tea"}},
        {"op": "get", "name": "hello", "args": {"name": "Ada"}},
        {"op": "get", "name": "nope", "args": {}},
        {"op": "read", "uri": "text://hello"},
        {"op": "read", "uri": "bin://data"},
        {"op": "read", "uri": "file:///self"},
        {"op": "read", "uri": "file:///gone"},
        {"op": "read", "uri": "dir://servers"},
        {"op": "list"},
    ]
    theirs, ours = both("fastmcp", SERVERS / "fastmcp_providers.py", script, tmp_path)
    assert_same(theirs, ours)
    listed = ours["ops"][0]
    # the server's own first, then the Tool object, then the providers' in their order;
    # a name already served is not served again (greet, the LocalProvider's shout); what
    # the server's tag rule disables is neither listed nor served (secret, note://hidden)
    assert [t["name"] for t in listed["tools"]] == [
        "greet",
        "object_tool",
        "counter",
        "plain",
        "shout",
        "state_open",  # the provider's lifespan was entered with the server's
        "double",
        "whoami",
    ]
    counts = [op["result"]["structuredContent"]["count"] for op in ours["ops"][1:3]]
    assert counts == [1, 6]  # the provider's tool object ran, with its field's default
    assert ours["ops"][7]["result"]["structuredContent"] == {"result": "Hi Ada"}
    whoami = ours["ops"][10]
    assert whoami["result"]["structuredContent"] == {
        "server": "providers",
        "lifespan": {"db": "open"},
    }
    assert [log["data"]["msg"] for log in whoami["logs"]] == ["asked"]
    assert ours["ops"][12]["result"]["content"][0]["text"] == "Unknown tool: 'secret'"
    assert "Resource not found: 'note://hidden'" in ours["ops"][13]["error"]
    reads = {op["uri"]: op for op in ours["ops"] if op["op"] == "read"}
    assert reads["text://hello"]["result"]["contents"][0]["text"] == "Hello"
    assert reads["bin://data"]["result"]["contents"][0]["blob"] == "AAE="
    assert "Error reading file " in reads["file:///gone"]["error"]
    listing = json.loads(reads["dir://servers"]["result"]["contents"][0]["text"])
    assert listing == {"files": ["fastmcp_providers.py"]}


def _tool_file(name: str) -> str:
    head = "from mcpkit.compat.fastmcp.tools import tool\n\n"
    return f"{head}@tool\ndef {name}() -> int:\n    return 0\n"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


async def test_filesystem_provider_finds_as_fastmcp(tmp_path: Path) -> None:
    """Sorted files, ``__init__.py`` and private names skipped, a file that fails left
    out, a package's relative imports, and (``reload=True``) what changed found again."""
    from mcpkit.compat.fastmcp.server.providers import FileSystemProvider

    root = tmp_path / "parts"
    _write(
        root / "b_tools.py",
        "from mcpkit.compat.fastmcp.tools import tool\n\n"
        "@tool\ndef zeta() -> int:\n    return 1\n\n"
        "@tool(name='alpha-named')\ndef alpha() -> int:\n    return 2\n\n"
        "@tool\ndef _hidden() -> int:\n    return 3\n",
    )
    _write(root / "a_broken.py", "raise RuntimeError('cannot load')\n")
    _write(root / "pkg" / "__init__.py", "")
    _write(root / "pkg" / "helpers.py", "PREFIX = 'p'\n")
    _write(
        root / "pkg" / "prompts.py",
        "from mcpkit.compat.fastmcp.prompts import prompt\nfrom .helpers import PREFIX\n\n"
        "@prompt\ndef ask() -> str:\n    return PREFIX\n",
    )
    provider = FileSystemProvider(root, reload=True)
    assert [t.name for t in await provider.list_tools()] == ["alpha-named", "zeta"]
    assert [p.name for p in await provider.list_prompts()] == ["ask"]
    assert set(provider.failed_files) == {(root / "a_broken.py").resolve()}
    _write(
        root / "a_broken.py",
        _tool_file("fixed"),
    )
    assert [t.name for t in await provider.list_tools()] == ["fixed", "alpha-named", "zeta"]
    assert provider.failed_files == {}
    found = await provider.get_tool("fixed")
    assert found is not None and found.to_mcp()["name"] == "fixed"


async def test_filesystem_provider_without_reload_keeps_its_scan(tmp_path: Path) -> None:
    from mcpkit.compat.fastmcp.server.providers import FileSystemProvider

    root = tmp_path / "once"
    _write(
        root / "t.py",
        _tool_file("one"),
    )
    provider = FileSystemProvider(root)
    _write(
        root / "u.py",
        _tool_file("two"),
    )
    assert [t.name for t in await provider.list_tools()] == ["one"]


def test_add_provider_with_a_namespace_is_refused() -> None:
    from mcpkit.compat.fastmcp import FastMCP
    from mcpkit.compat.fastmcp.server.providers import LocalProvider

    with pytest.raises(NotImplementedError, match="namespace"):
        FastMCP("x").add_provider(LocalProvider(), namespace="ns")


async def test_server_add_tool_takes_standalone_decorated_functions() -> None:
    """``mcp.add_tool(fn)`` / ``add_prompt(fn)`` of a function marked by the standalone
    ``@tool(...)`` / ``@prompt(...)`` registers it with the decorator's options, as
    fastmcp does."""
    from mcpkit import Client
    from mcpkit.compat.fastmcp import FastMCP
    from mcpkit.compat.fastmcp.prompts import prompt
    from mcpkit.compat.fastmcp.tools import tool

    @tool(name="add-numbers", description="Add two numbers.", tags={"math"})
    def add(a: int, b: int) -> int:
        return a + b

    @prompt(name="ask-about")
    def ask(topic: str) -> str:
        return f"about {topic}"

    mcp = FastMCP("marked")
    mcp.add_tool(add)
    mcp.add_prompt(ask)
    async with Client(mcp.native) as client:
        (listed,) = await client.list_tools()
        assert (listed.name, listed.description) == ("add-numbers", "Add two numbers.")
        assert listed.meta == {"fastmcp": {"tags": ["math"]}}
        result = await client.call_tool("add-numbers", {"a": 1, "b": 2})
        assert result.structured_content == {"result": 3}
        got = await client.get_prompt("ask-about", {"topic": "x"})
        assert got.messages[0].content.text == "about x"
