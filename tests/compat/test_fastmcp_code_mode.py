"""fastmcp's ``CodeMode`` on mcpkit, in process: what the comparisons with fastmcp
(test_examples_fastmcp.py, test_unchanged.py) cannot show: the sandbox missing, a custom
sandbox provider, and the refusals at ``add_transform``."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from mcpkit.compat.fastmcp import FastMCP
from mcpkit.compat.fastmcp.experimental.transforms.code_mode import (
    CodeMode,
    GetSchemas,
    MontySandboxProvider,
    Search,
)
from mcpkit.compat.fastmcp.server.transforms.search import BM25SearchTransform
from mcpkit.testing import connected


async def test_missing_sandbox_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pydantic_monty", None)
    with pytest.raises(ImportError, match="CodeMode requires pydantic-monty") as info:
        await MontySandboxProvider().run("return 1")
    assert "pip install pydantic-monty" in str(info.value)


async def test_sandbox_runs_code_with_host_functions() -> None:
    async def double(x: int) -> int:
        return 2 * x

    result = await MontySandboxProvider().run(
        "return await double(a) + 1", inputs={"a": 20}, external_functions={"double": double}
    )
    assert result == 41


async def test_unknown_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="Unsupported Monty resource limits: 'bogus'"):
        await MontySandboxProvider(limits={"bogus": 1}).run("return 1")


def test_default_limits_are_owned_by_each_provider() -> None:
    first, second = MontySandboxProvider(), MontySandboxProvider()
    assert first.limits == {"max_feed_duration_secs": 30.0, "max_memory": 100_000_000}
    assert first.limits is not second.limits
    assert MontySandboxProvider(limits=None).limits is None


def test_refusals_at_add_transform() -> None:
    mcp = FastMCP("x")
    with pytest.raises(ValueError, match="Discovery tool name 'search' collides"):
        mcp.add_transform(CodeMode(execute_tool_name="search"))
    with pytest.raises(ValueError, match="Discovery tools must have unique names"):
        mcp.add_transform(CodeMode(discovery_tools=[Search(), Search()]))
    other = FastMCP("y")
    other.add_transform(BM25SearchTransform())
    with pytest.raises(ValueError, match="already added"):
        other.add_transform(CodeMode())


async def test_custom_sandbox_provider_gets_call_tool() -> None:
    """A sandbox provider of one's own is handed the code and ``call_tool``."""
    seen: dict[str, Any] = {}

    class Recorder:
        async def run(
            self,
            code: str,
            *,
            inputs: dict[str, Any] | None = None,
            external_functions: dict[str, Any] | None = None,
        ) -> Any:
            seen["code"] = code
            seen["functions"] = sorted(external_functions or {})
            return "ran"

    mcp = FastMCP("x")
    mcp.add_transform(CodeMode(sandbox_provider=Recorder(), discovery_tools=[GetSchemas()]))

    @mcp.tool
    def add(a: int, b: int) -> int:
        return a + b

    async with connected(mcp.native) as client:
        listed = [t.name for t in await client.list_tools()]
        result = await client.call_tool("execute", {"code": "return 1"})
    assert listed == ["get_schema", "execute"]
    assert seen == {"code": "return 1", "functions": ["call_tool"]}
    assert result.content[0].text == "ran"
