"""The pytest plugin (mcpkit.pytest_plugin): a user's test project, run by pytest in a
subprocess, gets working fixtures for their Server in memory and over HTTP, in pytest-asyncio's
auto and strict modes, a fake clock for task expiry, and a clear error without mcp_server."""

from __future__ import annotations

import importlib.metadata
import textwrap

import pytest

pytest_plugins = ["pytester"]

SERVER = '''
import pytest
from mcpkit import Server

app = Server("calc")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@pytest.fixture
def mcp_server():
    return app
'''

TESTS = """
import pytest


@pytest.mark.asyncio
async def test_in_memory(mcp_client):
    result = await mcp_client.call_tool("add", {"a": 2, "b": 3})
    assert result.structured_content == {"result": 5}


@pytest.mark.asyncio
async def test_over_http(mcp_http_url, mcp_http_client):
    assert mcp_http_url.startswith("http://127.0.0.1:") and mcp_http_url.endswith("/mcp")
    assert [t.name for t in await mcp_http_client.list_tools()] == ["add"]
    result = await mcp_http_client.call_tool("add", {"a": 40, "b": 2})
    assert result.structured_content == {"result": 42}
"""


def _project(pytester: pytest.Pytester, mode: str) -> None:
    pytester.makeini(
        f"""
        [pytest]
        asyncio_mode = {mode}
        asyncio_default_fixture_loop_scope = function
        """
    )
    pytester.makeconftest(SERVER)
    pytester.makepyfile(test_user=TESTS)


@pytest.mark.parametrize("mode", ["auto", "strict"])
def test_the_fixtures_serve_the_users_server(pytester: pytest.Pytester, mode: str) -> None:
    _project(pytester, mode)
    result = pytester.runpytest_subprocess("-q")
    result.assert_outcomes(passed=2)


def test_without_mcp_server_the_error_says_what_to_define(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nasyncio_mode = auto\n")
    pytester.makepyfile(
        test_user="""
        async def test_it(mcp_client):
            pass
        """
    )
    result = pytester.runpytest_subprocess("-q")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*fixture named 'mcp_server' returns: define it in your conftest.py*"]
    )
    assert "Traceback" not in result.stdout.str()


def test_task_clock_expires_tasks_without_waiting(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nasyncio_mode = auto\n")
    pytester.makepyfile(
        test_user=textwrap.dedent(
            """
            from mcpkit.tasks import MemoryTaskStore


            async def test_ttl(task_clock):
                store = MemoryTaskStore(clock=task_clock)
                task = await store.create(ttl=1_000, poll_interval=None, owner=None)
                assert await store.get(task.task_id) is not None
                task_clock.advance(0.5)
                assert await store.get(task.task_id) is not None
                task_clock.advance(1)
                assert await store.get(task.task_id) is None
            """
        )
    )
    result = pytester.runpytest_subprocess("-q")
    result.assert_outcomes(passed=1)


def test_the_plugin_is_registered_for_pytest() -> None:
    points = importlib.metadata.entry_points(group="pytest11")
    assert {(p.name, p.value) for p in points if p.name == "mcpkit"} == {
        ("mcpkit", "mcpkit.pytest_plugin")
    }
