"""The proxy in front of the TypeScript reference server (``@modelcontextprotocol/server-
everything``, over stdio), published over Streamable HTTP by ``mcpkit proxy``: mcpkit's
client (both eras) and the official Python SDK's client get an answer for every tool,
resource, template and prompt the reference server lists, and what it asks back (sampling,
elicitation in form and URL mode, roots) reaches them."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from typing import Any

import pytest

from mcpkit import Client
from mcpkit.client import ClientHooks
from tests.interop.conftest import NODE22, PEER_SCRIPTS, NodePeer, PythonPeer
from tests.proxy.conftest import start_proxy

#: Arguments for the reference server's tools (the others take none or have defaults);
#: nothing reaches outside the machine (gzip-file-as-resource gets a data: URI).
ARGUMENTS: dict[str, dict[str, Any]] = {
    "echo": {"message": "hi"},
    "get-annotated-message": {"messageType": "success"},
    "get-resource-links": {"count": 2},
    "get-structured-content": {"location": "Chicago"},
    "get-sum": {"a": 2, "b": 3},
    "gzip-file-as-resource": {"data": "data:text/plain;base64,aGVsbG8=", "name": "x.gz"},
    "trigger-long-running-operation": {"duration": 0.4, "steps": 2},
    "trigger-url-elicitation": {"url": "https://example.com/consent"},
    "trigger-sampling-request": {"prompt": "hi", "maxTokens": 5},
    "simulate-research-query": {"topic": "proxies"},
}
#: What some answers must say (the upstream's own text, unchanged by the proxy).
EXPECTED: dict[str, str] = {
    "echo": "Echo: hi",
    "get-sum": "The sum of 2 and 3 is 5.",
    "get-roots-list": "file:///proxy/root",
    "trigger-sampling-request": "sampled through the proxy",
    "trigger-elicitation-request": "declined",
    "trigger-url-elicitation": "completed",
}
#: Tools asking the client back: listed only to a client declaring what they need.
ASKING = {"get-roots-list", "trigger-elicitation-request", "trigger-sampling-request"}


@pytest.fixture(scope="module")
def everything(ts_peer: NodePeer) -> list[str]:
    """The reference server's stdio command (Node 22)."""
    entry = ts_peer.package("@modelcontextprotocol/server-everything") / "dist" / "index.js"
    if not entry.exists():
        pytest.fail(f"{entry} is missing: run scripts/peers.sh", pytrace=False)
    return [str(NODE22), str(entry), "stdio"]


@pytest.fixture(scope="module")
def proxy_url(everything: list[str]) -> Iterator[str]:
    """``mcpkit proxy "<reference server>" --transport http`` running; its URL."""
    with start_proxy([shlex.join(everything), "--transport", "http"]) as url:
        yield url


async def _elicit(params: Any, ctx: Any) -> Any:
    if getattr(params, "mode", "form") == "url":
        return {"action": "accept"}
    return {"action": "decline"}


_elicit.supports_url = True  # type: ignore[attr-defined]


async def _sample(params: Any, ctx: Any) -> Any:
    text = "sampled through the proxy"
    return {"role": "assistant", "content": {"type": "text", "text": text}, "model": "m"}


def _text(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") or "" for c in result.content)


async def _every_feature(client: Client) -> dict[str, str]:
    """Call every tool, read every resource and template, get every prompt; each
    answer's text by name (a task-required tool through the task API when the era has it)."""
    answers: dict[str, str] = {}
    tools = await client.list_tools()
    assert ASKING <= {t.name for t in tools}
    if client.modern:  # the proxy runs a 2025-11-25 task for it: a plain tool here
        assert all(t.execution is None or t.execution.task_support is None for t in tools)
    for tool in tools:
        arguments = ARGUMENTS.get(tool.name, {})
        required = tool.execution is not None and tool.execution.task_support == "required"
        if required:
            task = await client.call_tool_as_task(tool.name, arguments)
            result = await client.get_task_result(task.task_id)
        else:
            result = await client.call_tool(tool.name, arguments)
        assert not result.is_error, (tool.name, result)
        answers[tool.name] = _text(result)
    assert "Research Report: proxies" in answers["simulate-research-query"]
    for name, expected in EXPECTED.items():
        # get-roots-list: the roots the reference server fetched on its own and kept; a
        # 2026-07-28 client's too (the proxy tells the upstream they changed before each
        # of its calls and answers the upstream's roots/list with an MRTR round)
        assert expected in answers[name], (name, answers[name])
    resources = await client.list_resources()
    assert resources
    for resource in resources:
        read = await client.read_resource(str(resource.uri))
        assert read.contents and str(read.contents[0].uri) == str(resource.uri)
    templates = await client.list_resource_templates()
    assert templates
    for template in templates:
        uri = template.uri_template.replace("{resourceId}", "2")
        assert (await client.read_resource(uri)).contents
    for prompt in await client.list_prompts():
        arguments = {
            a.name: {"resourceType": "Text", "resourceId": "1"}.get(a.name, "x")
            for a in prompt.arguments or []
        }
        assert (await client.get_prompt(prompt.name, arguments)).messages
    done = await client.complete(
        {"type": "ref/prompt", "name": "completable-prompt"}, "department", "Eng"
    )
    assert done.completion.values == ["Engineering"]
    return answers


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_mcpkit_client_gets_every_answer(proxy_url: str, era: str) -> None:
    progress: list[float] = []
    async with Client(
        proxy_url,
        era=era,  # type: ignore[arg-type]
        elicitation_handler=_elicit,
        sampling_handler=_sample,
        roots=[{"uri": "file:///proxy/root", "name": "root"}],
        hooks=ClientHooks(on_progress=lambda p, t, m: progress.append(p)),
        on_log=lambda p: None,
    ) as client:
        assert client.server_info.name == "mcp-servers/everything"  # presented as itself
        assert client.modern is (era != "legacy")
        await _every_feature(client)
        if not client.modern:
            await client.set_logging_level("debug")
            await client.subscribe_resource("demo://resource/dynamic/text/1")
    assert len(progress) >= 2  # trigger-long-running-operation reported its steps


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_official_python_client_gets_every_answer(
    proxy_url: str, py_peer: PythonPeer, everything: list[str], mode: str
) -> None:
    names = await _direct_tools(everything)
    calls: list[str] = []
    for name in names:
        calls += ["--call", name, json.dumps(ARGUMENTS.get(name, {}))]
    reads = ["--read", "demo://resource/static/document/features.md"]
    reads += ["--read", "demo://resource/dynamic/text/3"]
    done = py_peer.run(
        PEER_SCRIPTS / "py_client.py",
        "--mode",
        mode,
        "--url",
        proxy_url,
        "--root",
        "file:///proxy/root",
        "--sampling-text",
        "sampled through the proxy",
        *calls,
        *reads,
        "--get",
        "args-prompt",
        '{"city": "Oslo"}',
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["protocolVersion"] == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    assert report["serverInfo"]["name"] == "mcp-servers/everything"
    assert set(names) <= set(report["tools"])
    by_name = {call["name"]: call for call in report["calls"]}
    for name in names:
        call = by_name[name]
        if name == "simulate-research-query" and mode == "legacy":
            # task-required: the SDK calls it plainly, the reference server refuses
            assert "error" in call or call["result"].get("isError"), call
            continue
        assert "error" not in call, call
        assert not call["result"].get("isError"), call
    texts = {
        name: " ".join(c.get("text", "") for c in call["result"]["content"])
        for name, call in by_name.items()
        if "result" in call
    }
    assert "The sum of 2 and 3 is 5." in texts["get-sum"]
    assert "file:///proxy/root" in texts["get-roots-list"]  # the roots it fetched and kept
    assert "sampled through the proxy" in texts["trigger-sampling-request"]
    if mode != "legacy":  # the proxy ran the 2025-11-25 task for the 2026-07-28 client
        assert "Research Report: proxies" in texts["simulate-research-query"]
    kinds = {answer["kind"] for answer in report["answered"]}
    assert {"sampling", "elicitation", "roots"} <= kinds
    assert [r["result"]["contents"][0]["uri"] for r in report["reads"]] == [
        "demo://resource/static/document/features.md",
        "demo://resource/dynamic/text/3",
    ]
    assert "Oslo" in json.dumps(report["gets"])


_DIRECT: list[str] = []


async def _direct_tools(everything: list[str]) -> list[str]:
    """What the reference server lists to a client declaring form elicitation, sampling
    and roots (as the SDK's does), asked directly once."""
    if not _DIRECT:
        async with Client(
            everything,
            era="legacy",
            sampling_handler=_sample,
            elicitation_handler=_elicit,
            roots=[],
        ) as direct:
            _DIRECT.extend(tool.name for tool in await direct.list_tools())
    return list(_DIRECT)
