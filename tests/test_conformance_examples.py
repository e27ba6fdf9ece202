"""The conformance fixture server (examples/conformance/everything_server.py) also serves
stdio: a smoke test of a few of its behaviours through the Client, and of its 2026-07-28
tools through raw stateless requests (the full check of the fixture is the official suite,
run by scripts/conformance.sh)."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from mcpkit import Client
from mcpkit.client import StdioOptions
from tests.conftest import ROOT, server_env

SERVER = [sys.executable, str(ROOT / "examples/conformance/everything_server.py")]


async def test_fixture_server_over_stdio(wire: Any) -> None:
    def decline(params: Any, ctx: Any) -> str:
        return "decline"

    async with Client(
        [*SERVER, "--transport", "stdio"],
        connection=StdioOptions(env=server_env(), cwd=str(ROOT)),
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


class ModernStdio:
    """The fixture server over stdio, spoken to with raw 2026-07-28 requests (each carries
    the ``_meta`` envelope; no handshake), every message checked against the schema."""

    def __init__(self, proc: asyncio.subprocess.Process, checker: Any) -> None:
        self.proc = proc
        self.checker = checker
        self.next_id = 0

    async def request(
        self, method: str, params: dict[str, Any], capabilities: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        self.next_id += 1
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "fixture-test", "version": "1.0"},
            "io.modelcontextprotocol/clientCapabilities": ALL_CAPS
            if capabilities is None
            else capabilities,
        }
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        msg["params"] = {**params, "_meta": meta}
        self.checker("send", msg)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        while True:
            line = await asyncio.wait_for(self.proc.stdout.readline(), 10)
            assert line, "the fixture server closed its stdout"
            reply = json.loads(line)
            self.checker("recv", reply)
            if reply.get("id") == self.next_id and "method" not in reply:
                return reply


ALL_CAPS: dict[str, Any] = {"sampling": {}, "elicitation": {}, "roots": {"listChanged": True}}


async def test_fixture_server_2026_multi_round_trip_over_stdio(wire: Any) -> None:
    proc = await asyncio.create_subprocess_exec(
        *SERVER,
        "--transport",
        "stdio",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=server_env(),
        cwd=str(ROOT),
    )
    peer = ModernStdio(proc, wire("2026-07-28"))
    try:
        call = {"name": "test_input_required_result_elicitation", "arguments": {}}
        first = (await peer.request("tools/call", call))["result"]
        assert first["resultType"] == "input_required"
        assert first["inputRequests"]["user_name"]["method"] == "elicitation/create"
        answer = {"user_name": {"action": "accept", "content": {"name": "Alice"}}}
        retry = {**call, "inputResponses": answer, "requestState": first["requestState"]}
        done = (await peer.request("tools/call", retry))["result"]
        assert done["resultType"] == "complete"
        assert done["content"][0]["text"] == "Hello, Alice!"

        # two rounds, each with its own sealed state; a changed state is refused
        call = {"name": "test_input_required_result_multi_round", "arguments": {}}
        r1 = (await peer.request("tools/call", call))["result"]
        assert list(r1["inputRequests"]) == ["step1"]
        step1 = {"step1": {"action": "accept", "content": {"name": "Bob"}}}
        r2 = (
            await peer.request(
                "tools/call", {**call, "inputResponses": step1, "requestState": r1["requestState"]}
            )
        )["result"]
        assert list(r2["inputRequests"]) == ["step2"]
        assert r2["requestState"] != r1["requestState"]
        tampered = {**call, "inputResponses": step1, "requestState": r1["requestState"] + "-x"}
        assert "error" in await peer.request("tools/call", tampered)

        # only the kinds the request's capabilities allow are asked
        call = {"name": "test_input_required_result_capabilities", "arguments": {}}
        only = (await peer.request("tools/call", call, {"sampling": {}}))["result"]
        assert [r["method"] for r in only["inputRequests"].values()] == ["sampling/createMessage"]

        refused = await peer.request("tools/call", {"name": "test_missing_capability"}, {})
        assert refused["error"]["code"] == -32021
        assert refused["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}

        # caching hints: lists public, reads private
        listed = (await peer.request("tools/list", {}))["result"]
        assert (listed["ttlMs"], listed["cacheScope"]) == (300_000, "public")
        read = (await peer.request("resources/read", {"uri": "test://static-text"}))["result"]
        assert (read["ttlMs"], read["cacheScope"]) == (300_000, "private")
        custom = next(t for t in listed["tools"] if t["name"] == "test_custom_header")
        assert custom["inputSchema"]["properties"]["message"]["x-mcp-header"] == "Message"
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            proc.kill()
            await proc.wait()
