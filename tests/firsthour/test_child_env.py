"""A stdio server given an ``env`` of its own gets it over a small default set of the
client's environment, not the whole of it: secrets in the client's environment stay there."""

from __future__ import annotations

import json
import os
import sys

import pytest

from mcpkit import Client
from mcpkit.client import StdioOptions
from tests.firsthour.conftest import HERE, ROOT

SERVER = [sys.executable, str(HERE / "env_server.py")]
PYTHONPATH = os.pathsep.join([str(ROOT / "src"), str(ROOT)])


async def names_seen(client: Client) -> list[str]:
    result = await client.call_tool("names")
    return (
        list(json.loads(result.text))
        if result.structured_content is None
        else list(result.structured_content["result"])
    )


async def test_an_env_of_its_own_replaces_the_inherited_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MCPKIT_TEST_SECRET", "s3cret")
    monkeypatch.setenv("LC_TIME", "C")
    async with Client(
        SERVER, connection=StdioOptions(env={"PYTHONPATH": PYTHONPATH, "WEATHER_KEY": "k"})
    ) as client:
        seen = await names_seen(client)
    assert "WEATHER_KEY" in seen and "PYTHONPATH" in seen  # what the entry gives
    assert "PATH" in seen and "LC_TIME" in seen  # what programs need to run
    assert "MCPKIT_TEST_SECRET" not in seen


async def test_without_an_env_the_server_inherits_everything(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MCPKIT_TEST_SECRET", "s3cret")
    monkeypatch.setenv("PYTHONPATH", PYTHONPATH)
    async with Client(SERVER) as client:
        seen = await names_seen(client)
    assert "MCPKIT_TEST_SECRET" in seen
