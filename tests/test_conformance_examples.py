"""The conformance fixture server (examples/conformance/everything_server.py) also serves
stdio: a smoke test of a few of its behaviours through the Client (the full check of the
fixture is the official suite, run by scripts/conformance.sh)."""

from __future__ import annotations

import sys
from typing import Any

from mcpkit import Client
from tests.conftest import ROOT, server_env

SERVER = [sys.executable, str(ROOT / "examples/conformance/everything_server.py")]


async def test_fixture_server_over_stdio(wire: Any) -> None:
    def decline(params: Any, ctx: Any) -> str:
        return "decline"

    async with Client(
        [*SERVER, "--transport", "stdio"],
        env=server_env(),
        cwd=str(ROOT),
        tracer=wire(),
        elicitation_handler=decline,
    ) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        assert "test_simple_text" in tools and "json_schema_2020_12_tool" in tools
        schema = tools["json_schema_2020_12_tool"].input_schema.to_wire()
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["additionalProperties"] is False

        text = await client.call_tool("test_simple_text")
        assert text.content[0].text == "This is a simple text response for testing."  # type: ignore[union-attr]
        error = await client.call_tool("test_error_handling", {})
        assert error.is_error

        elicited = await client.call_tool("test_elicitation_sep1034_defaults", {})
        assert elicited.content[0].text == "Elicitation completed: action=decline, content={}"  # type: ignore[union-attr]

        read = await client.read_resource("test://template/123/data")
        assert read.contents[0].text == '{"id":"123","templateTest":true,"data":"Data for ID: 123"}'  # type: ignore[union-attr]
        prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
        assert prompt.messages[0].content.text == "Prompt with arguments: arg1='a', arg2='b'"  # type: ignore[union-attr]
        done = await client.complete("test_prompt_with_arguments", "arg1", "te")
        assert done.completion.values == ["te", "te-completion"]
