"""The Client against a low-level feature server, in memory and over stdio."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from mcpkit.client import (
    Client,
    ClientHooks,
    OutputSchemaError,
    ProtocolOptions,
    ToolError,
    URLElicitationRequired,
)
from mcpkit.errors import ConnectionClosed, McpError, RequestTimeout
from mcpkit.types import (
    CallToolResult,
    CreateMessageResult,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    Implementation,
    LoggingMessageNotificationParams,
    PromptReference,
    Root,
    TextContent,
)


async def test_handshake_and_state(feature: Any) -> None:
    c = await feature(client_info={"name": "tester", "version": "9"})
    assert c.protocol_version == "2025-11-25"
    assert c.negotiated_version is not None and c.negotiated_version.url_elicitation
    assert isinstance(c.server_info, Implementation)
    assert c.server_info.name == "feature-test" and c.server_info.title == "Features"
    assert c.server_capabilities.resources is not None
    assert c.server_capabilities.resources.subscribe is True
    assert c.instructions == "Use the echo tool."
    assert c.supports("resources", "subscribe") and not c.supports("tasks")
    assert c.server_url is None
    await c.ping()
    init = c.session._tracer.sent("initialize")[0]  # type: ignore[attr-defined]
    assert init["params"]["clientInfo"] == {"name": "tester", "version": "9"}
    assert init["params"]["capabilities"] == {}  # no handlers, no capabilities


async def test_list_everything_follows_pages(feature: Any) -> None:
    c = await feature()
    tools = await c.list_tools()
    assert [t.name for t in tools][:2] == ["echo", "weather"]
    assert len(tools) == 14 and c.tools == tools
    assert tools[1].output_schema is not None
    page = await c.list_tools_page()
    assert len(page.tools) == 4 and page.next_cursor == "4"
    last = await c.list_tools_page("12")
    assert last.next_cursor is None and len(last.tools) == 2
    resources = await c.list_resources()
    assert [r.uri for r in resources] == [f"mem://r/{i}" for i in range(5)]
    templates = await c.list_resource_templates()
    assert templates[0].uri_template == "mem://r/{id}"
    prompts = await c.list_prompts()
    assert [p.name for p in prompts] == ["greet", "plain"]
    assert (await c.list_resources_page()).next_cursor == "4"
    assert (await c.list_prompts_page()).next_cursor is None
    assert (await c.list_resource_templates_page()).resource_templates[0].name == "by-id"


async def test_call_tool_typed(feature: Any) -> None:
    c = await feature()
    result = await c.call_tool("echo", {"text": "hello"})
    assert isinstance(result, CallToolResult)
    assert isinstance(result.content[0], TextContent)
    assert result.content[0].text == "hello"
    assert result.text == "hello"
    raw = await c.request("tools/call", {"name": "echo", "arguments": {"text": "raw"}})
    assert raw == {"content": [{"type": "text", "text": "raw"}]}
    assert result.is_error is False  # the server left isError out


async def test_tool_error_result_and_raise(feature: Any) -> None:
    c = await feature()
    result = await c.call_tool("fail")
    assert result.is_error is True
    with pytest.raises(ToolError, match="it broke") as info:
        await c.call_tool("fail", raise_on_error=True)
    assert info.value.result.is_error
    with pytest.raises(McpError, match="Unknown tool") as err:
        await c.call_tool("nope")
    assert err.value.code == -32602
    # the session is fine afterwards
    assert (await c.call_tool("echo", {"text": "ok"})).content[0].text == "ok"  # type: ignore[union-attr]


async def test_structured_output_checked_against_schema(feature: Any) -> None:
    c = await feature()
    # First call with no list yet: the client lists the tools once to learn the schemas.
    ok = await c.call_tool("weather")
    assert ok.structured_content == {"temp": 12, "city": "Oslo"}
    lists = c.session._tracer.sent("tools/list")  # type: ignore[attr-defined]
    assert len(lists) == 4  # all pages, once
    with pytest.raises(OutputSchemaError, match="does not match the outputSchema") as info:
        await c.call_tool("weather_bad")
    assert "temp" in str(info.value) and info.value.tool == "weather_bad"
    with pytest.raises(OutputSchemaError, match="no structuredContent"):
        await c.call_tool("weather_missing")
    assert (await c.call_tool("weather_draft7", {"temp": 5})).structured_content == {"temp": 5}
    with pytest.raises(OutputSchemaError, match="not of type"):
        await c.call_tool("weather_draft7", {"temp": "warm"})
    with pytest.raises(OutputSchemaError, match="not supported"):
        await c.call_tool("weird_dialect")
    await c.call_tool("weather")
    assert len(c.session._tracer.sent("tools/list")) == 4  # type: ignore[attr-defined]


async def test_output_validation_can_be_disabled(feature: Any) -> None:
    c = await feature(protocol=ProtocolOptions(validate_output=False))
    result = await c.call_tool("weather_bad")
    assert result.structured_content == {"temp": "hot", "city": "Oslo"}
    assert c.session._tracer.sent("tools/list") == []  # type: ignore[attr-defined]


async def test_progress_per_call_and_default(feature: Any) -> None:
    seen: list[tuple[float, float | None, str | None]] = []
    default: list[float] = []
    c = await feature(hooks=ClientHooks(on_progress=lambda p, t, m: default.append(p)))
    await c.call_tool("slow", {"steps": 3}, on_progress=lambda p, t, m: seen.append((p, t, m)))
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    assert default == []

    async def async_cb(p: float, t: float | None, m: str | None) -> None:
        default.append(p)

    c2 = await feature(hooks=ClientHooks(on_progress=async_cb))
    await c2.call_tool("slow", {"steps": 2})
    assert default == [1, 2]


async def test_timeout_sends_cancel_and_session_survives(feature: Any) -> None:
    c = await feature()
    with pytest.raises(RequestTimeout):
        await c.call_tool("slow", {"steps": 0, "forever": True}, timeout=0.2)
    await c.ping()  # the cancellation was queued before this round trip
    cancels = c.session._tracer.sent("notifications/cancelled")  # type: ignore[attr-defined]
    assert cancels and cancels[0]["params"]["reason"] == "Request timed out"
    assert (await c.call_tool("echo", {"text": "still here"})).content[0].text == "still here"  # type: ignore[union-attr]


async def test_progress_resets_timeout_up_to_max_total(feature: Any) -> None:
    c = await feature(timeout=1.0)
    # 6 steps x 0.25 s = 1.5 s in total, longer than the timeout, but progress keeps it
    # alive (each gap leaves 0.75 s of margin for a loaded machine).
    result = await c.call_tool("slow", {"steps": 6, "delay": 0.25})
    assert result.content[0].text == "done"  # type: ignore[union-attr]
    with pytest.raises(RequestTimeout):
        await c.call_tool("slow", {"steps": 100, "delay": 0.05}, max_total_timeout=1.2)


async def test_task_cancellation_sends_cancelled(feature: Any, wire: Any) -> None:
    checker = wire()
    sent_call = asyncio.Event()

    def tracer(direction: str, msg: Any) -> None:
        checker(direction, msg)
        if direction == "send" and isinstance(msg, dict) and msg.get("method") == "tools/call":
            sent_call.set()

    c = await feature(tracer=tracer)
    task = asyncio.ensure_future(c.call_tool("slow", {"steps": 0, "forever": True}))
    await sent_call.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await c.ping()  # the cancellation was queued before this round trip
    call = checker.sent("tools/call")[-1]
    cancels = checker.sent("notifications/cancelled")
    assert [m["params"]["requestId"] for m in cancels] == [call["id"]]


async def test_resources_prompts_completion_logging(feature: Any) -> None:
    c = await feature()
    read = await c.read_resource("mem://r/1")
    assert read.contents[0].text == "content of mem://r/1"  # type: ignore[union-attr]
    blob = await c.read_resource("mem://blob")
    assert blob.contents[0].blob == "AAE="  # type: ignore[union-attr]
    with pytest.raises(McpError) as err:
        await c.read_resource("other://x")
    assert err.value.code == -32002 and err.value.data == {"uri": "other://x"}
    prompt = await c.get_prompt("greet", {"who": "Ada", "n": 3})
    assert prompt.messages[0].content.text == "Hello Ada x3"  # type: ignore[union-attr]
    done = await c.complete(PromptReference(name="greet"), "who", "al")
    assert done.completion.values == ["alice", "alan"]
    done = await c.complete("greet", "who", "b", context={"team": "x"})
    assert done.completion.values == ["bob@x"]
    done = await c.complete("mem://r/{id}", "id", "1")
    assert done.completion.values == ["1", "10"]
    await c.set_logging_level("warning")
    with pytest.raises(ValueError):
        await c.set_logging_level("loud")
    await c.subscribe_resource("mem://r/0")
    await c.unsubscribe_resource("mem://r/0")
    if c.feature is not None:  # type: ignore[attr-defined]
        assert c.feature.level == "warning"  # type: ignore[attr-defined]


async def test_log_hook_and_default_logger(feature: Any, caplog: pytest.LogCaptureFixture) -> None:
    logs: list[LoggingMessageNotificationParams] = []
    c = await feature(on_log=logs.append)
    await c.call_tool("log", {"level": "error", "data": {"x": 1}})  # the log came first
    assert logs[0].level == "error" and logs[0].data == {"x": 1} and logs[0].logger == "feat"
    c2 = await feature()
    with caplog.at_level("INFO", logger="mcpkit.client.server"):
        await c2.call_tool("log", {"level": "warning", "data": "disk low"})
    rec = next(r for r in caplog.records if "disk low" in r.message)
    assert rec.levelname == "WARNING" and rec.name == "mcpkit.client.server.feat"


async def test_notification_hooks_and_auto_refresh(feature: Any) -> None:
    changed: list[str] = []
    updated: list[str] = []
    everything: list[str] = []
    got = asyncio.Event()

    def on_changed(kind: str) -> None:
        changed.append(kind)
        got.set()

    c = await feature(
        hooks=ClientHooks(on_list_changed=on_changed, on_resource_updated=updated.append),
        on_notification=lambda m, p: everything.append(m),
    )
    await c.call_tool("change", {"what": "resources"})  # notifications came first
    assert got.is_set()
    assert changed == ["resources"] and updated == ["mem://r/0"]
    assert "notifications/resources/list_changed" in everything
    assert "notifications/resources/updated" in everything

    refreshed = asyncio.Event()
    c2 = await feature(
        hooks=ClientHooks(auto_refresh=True, on_list_changed=lambda kind: refreshed.set())
    )
    assert c2.tools is None
    await c2.call_tool("change", {"what": "tools"})
    await asyncio.wait_for(refreshed.wait(), 5)
    assert c2.tools is not None and len(c2.tools) == 14  # refreshed before the hook ran


async def test_sampling_handler(feature: Any) -> None:
    seen: list[Any] = []

    async def sample(params: Any, ctx: Any) -> CreateMessageResult:
        seen.append(params)
        text = params.messages[0].content.text
        return CreateMessageResult(
            role="assistant",
            content=TextContent(text=f"echo: {text}"),
            model="test-model",
            stop_reason="endTurn",
        )

    c = await feature(sampling_handler=sample)
    init = c.session._tracer.sent("initialize")[0]  # type: ignore[attr-defined]
    assert init["params"]["capabilities"] == {"sampling": {}}
    result = await c.call_tool("sample", {"q": "hi there", "systemPrompt": "be nice"})
    assert result.content[0].text == "echo: hi there"  # type: ignore[union-attr]
    assert seen[0].system_prompt == "be nice" and seen[0].max_tokens == 50

    # tools are refused when the client did not declare sampling.tools
    tool = {"name": "t", "inputSchema": {"type": "object"}}
    with pytest.raises(McpError, match=r"sampling\.tools") as err:
        await c.call_tool("sample", {"q": "x", "tools": [tool]})
    assert err.value.code == -32602


async def test_sampling_with_tools(feature: Any) -> None:
    def sample(params: Any, ctx: Any) -> dict[str, Any]:  # sync handlers work too
        assert params.tools[0].name == "get_weather"
        assert params.tool_choice.mode == "auto"
        return {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "u1", "name": "get_weather", "input": {"city": "Oslo"}}
            ],
            "model": "m",
            "stopReason": "toolUse",
        }

    sample.supports_tools = True  # type: ignore[attr-defined]
    c = await feature(sampling_handler=sample)
    init = c.session._tracer.sent("initialize")[0]  # type: ignore[attr-defined]
    assert init["params"]["capabilities"] == {"sampling": {"tools": {}}}
    tool = {"name": "get_weather", "inputSchema": {"type": "object"}}
    result = await c.call_tool("sample", {"tools": [tool], "toolChoice": {"mode": "auto"}})
    assert result.structured_content["stopReason"] == "toolUse"  # type: ignore[index]

    # message rules: tool results must not be mixed, and every tool use needs its result
    mixed = [
        {"role": "user", "content": {"type": "text", "text": "q"}},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "toolUseId": "a", "content": []},
                {"type": "text", "text": "extra"},
            ],
        },
    ]
    missing = [
        {"role": "user", "content": {"type": "text", "text": "q"}},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}],
        },
        {"role": "user", "content": {"type": "text", "text": "no result"}},
    ]
    for messages, why in ((mixed, "mixed"), (missing, "missing")):
        with pytest.raises(McpError) as err:
            await c.call_tool("sample", {"messages": messages, "tools": [tool]})
        assert err.value.code == -32602 and why in err.value.message


async def test_sampling_user_rejects(feature: Any) -> None:
    def sample(params: Any, ctx: Any) -> Any:
        raise McpError(-1, "User rejected sampling request")

    c = await feature(sampling_handler=sample)
    with pytest.raises(McpError) as err:
        await c.call_tool("sample", {"q": "x"})
    # the feature server passes the client's error on unchanged
    assert err.value.code == -1 and "rejected" in err.value.message


async def test_elicitation_form_defaults_and_validation(feature: Any) -> None:
    seen: list[Any] = []

    async def elicit(params: Any, ctx: Any) -> ElicitResult:
        seen.append(params)
        return ElicitResult(action="accept", content={"name": "Ada"})

    c = await feature(elicitation_handler=elicit)
    init = c.session._tracer.sent("initialize")[0]  # type: ignore[attr-defined]
    assert init["params"]["capabilities"] == {"elicitation": {"form": {}}}
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95},
            "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
            "verified": {"type": "boolean", "default": True},
            "nickname": {"type": "string"},
        },
        "required": ["name"],
    }
    request = {"mode": "form", "message": "Who are you?", "requestedSchema": schema}
    result = await c.call_tool("elicit", {"request": request})
    assert result.structured_content == {
        "action": "accept",
        "content": {
            "name": "Ada",
            "age": 30,
            "score": 95,
            "status": "active",
            "verified": True,
        },
    }
    assert isinstance(seen[0], ElicitRequestFormParams)
    assert seen[0].requested_schema.properties["age"].default == 30  # type: ignore[union-attr]

    # mode omitted means form mode
    request.pop("mode")
    assert (await c.call_tool("elicit", {"request": request})).content[0].text == "accept"  # type: ignore[union-attr]


async def test_elicitation_reply_checked_decline_and_url_refused(feature: Any) -> None:
    replies: list[Any] = [
        {"action": "accept", "content": {"n": "not a number"}},
        "decline",
        {"action": "cancel", "content": {"n": 1}},
    ]

    def elicit(params: Any, ctx: Any) -> Any:
        return replies.pop(0)

    c = await feature(elicitation_handler=elicit)
    schema = {"type": "object", "properties": {"n": {"type": "number"}}}
    request = {"message": "n?", "requestedSchema": schema}
    with pytest.raises(McpError, match="does not match the requested schema") as err:
        await c.call_tool("elicit", {"request": request})
    assert err.value.code == -32603  # the client refused to send its own invalid reply
    declined = await c.call_tool("elicit", {"request": request})
    assert declined.structured_content == {"action": "decline"}
    cancelled = await c.call_tool("elicit", {"request": request})
    assert cancelled.structured_content == {"action": "cancel"}  # content dropped
    # URL mode was not declared: the client answers -32602 (the server's call fails)
    url_req = {"mode": "url", "message": "go", "url": "https://e.com", "elicitationId": "e"}
    with pytest.raises(McpError, match="'url' mode") as err:
        await c.call_tool("elicit", {"request": url_req})
    assert err.value.code == -32602


async def test_url_elicitation_and_completion(feature: Any) -> None:
    seen: list[Any] = []
    completed: list[str] = []

    async def elicit(params: Any, ctx: Any) -> str:
        seen.append(params)
        return "accept"

    elicit.supports_url = True  # type: ignore[attr-defined]
    c = await feature(
        elicitation_handler=elicit, hooks=ClientHooks(on_elicitation_complete=completed.append)
    )
    init = c.session._tracer.sent("initialize")[0]  # type: ignore[attr-defined]
    assert init["params"]["capabilities"] == {"elicitation": {"form": {}, "url": {}}}
    url_req = {"mode": "url", "message": "go", "url": "https://e.com/x", "elicitationId": "e-7"}
    result = await c.call_tool("elicit", {"request": url_req})
    assert result.structured_content == {"action": "accept"}
    assert isinstance(seen[0], ElicitRequestURLParams) and seen[0].elicitation_id == "e-7"
    waiter = asyncio.ensure_future(c.wait_elicitation_complete("e-7", timeout=5))
    # unknown ids are ignored; the known one is surfaced once
    await c.call_tool("change", {"what": "tools", "complete": "unknown-id"})
    await c.call_tool("change", {"what": "tools", "complete": "e-7"})
    await waiter
    await c.call_tool("change", {"what": "tools", "complete": "e-7"})  # a repeat: ignored
    assert completed == ["e-7"]


async def test_url_elicitation_required_error(feature: Any) -> None:
    c = await feature()
    with pytest.raises(URLElicitationRequired) as info:
        await c.call_tool("needs_auth")
    err = info.value
    assert isinstance(err, McpError) and err.code == -32042
    assert err.elicitations[0].elicitation_id == "el-1"
    assert err.elicitations[0].url == "https://example.com/connect?x=1"
    waiter = asyncio.ensure_future(c.wait_elicitation_complete("el-1", timeout=5))
    await c.call_tool("change", {"what": "tools", "complete": "el-1"})
    await waiter


def _file_uri(path: Path) -> str:
    return path.resolve().as_uri()


async def test_roots(feature: Any, tmp_path: Path) -> None:
    c = await feature(roots=[tmp_path, Root(uri="file:///srv/data", name="data")])
    init = c.session._tracer.sent("initialize")[0]  # type: ignore[attr-defined]
    assert init["params"]["capabilities"] == {"roots": {"listChanged": True}}
    result = await c.call_tool("roots")
    roots = result.structured_content["roots"]  # type: ignore[index]
    assert roots[0] == {"uri": _file_uri(tmp_path), "name": tmp_path.name}
    assert roots[1] == {"uri": "file:///srv/data", "name": "data"}
    await c.set_roots(["file:///only"])
    result = await c.call_tool("roots")
    assert result.structured_content == {"roots": [{"uri": "file:///only"}]}
    assert c.session._tracer.sent("notifications/roots/list_changed")  # type: ignore[attr-defined]
    if c.feature is not None:  # type: ignore[attr-defined]
        assert c.feature.roots_changes == 1  # type: ignore[attr-defined]


async def test_roots_callable_and_undeclared(feature: Any) -> None:
    calls = 0

    async def current() -> list[str]:
        nonlocal calls
        calls += 1
        return [f"file:///r{calls}"]

    c = await feature(roots=current)
    assert (await c.call_tool("roots")).structured_content == {"roots": [{"uri": "file:///r1"}]}
    assert (await c.call_tool("roots")).structured_content == {"roots": [{"uri": "file:///r2"}]}
    plain = await feature()
    with pytest.raises(McpError, match="roots"):
        await plain.set_roots(["file:///x"])
    # no roots capability: the server's roots/list is answered -32601
    with pytest.raises(McpError) as err:
        await plain.call_tool("roots")
    assert err.value.code == -32601


async def test_roots_must_be_file_uris_without_traversal(feature: Any) -> None:
    for bad in (["https://example.com/repo"], [{"uri": "s3://bucket"}], ["file:///a/../etc"]):
        with pytest.raises(ValueError):
            Client("unused", roots=bad)
    c = await feature(roots=["file:///ok"])
    with pytest.raises(ValueError, match="file://"):
        await c.set_roots([Root(uri="http://x/y")])
    assert c.session._tracer.sent("notifications/roots/list_changed") == []  # type: ignore[attr-defined]
    assert (await c.call_tool("roots")).structured_content == {"roots": [{"uri": "file:///ok"}]}

    def changing() -> list[str]:
        return ["ftp://elsewhere"]

    c2 = await feature(roots=changing)  # a callable is checked on each roots/list
    with pytest.raises(McpError) as err:
        await c2.call_tool("roots")
    assert err.value.code == -32603 and "file://" in err.value.message


async def test_capability_not_declared_by_server_is_refused(wire: Any) -> None:
    from mcpkit.transports import MemoryTransport
    from tests.servers import core_server

    a, b = MemoryTransport.pair()
    server = core_server.make_session(b, tracer=wire(check_received=False))
    await server.start()
    async with Client(a, tracer=wire()) as c:
        with pytest.raises(McpError, match="resources") as err:
            await c.list_resources()
        assert err.value.code == -32601
        assert (await c.call_tool("echo", {"text": "x"})).content[0].text == "x"  # type: ignore[union-attr]
    await server.close()


@pytest.mark.parametrize("version", ["2025-06-18", "2025-03-26", "2024-11-05"])
async def test_older_protocol_versions(feature: Any, wire: Any, version: str) -> None:
    def elicit(params: Any, ctx: Any) -> str:
        return "decline"

    c = await feature(
        protocol=ProtocolOptions(version=version),
        tracer=wire(version),
        elicitation_handler=elicit,
        roots=[],
    )
    assert c.protocol_version == version
    assert len(await c.list_tools()) == 14
    assert (await c.call_tool("echo", {"text": "old"})).content[0].text == "old"  # type: ignore[union-attr]
    assert (await c.call_tool("roots")).structured_content == {"roots": []}
    await c.set_logging_level("debug")


async def test_reconnect_after_close(feature: Any, wire: Any) -> None:
    from tests.client import app_server

    c = Client(app_server.app, tracer=wire())
    async with c:
        await c.list_tools()
        assert c.tools is not None
    assert not c.connected
    with pytest.raises(ConnectionClosed):
        await c.ping()
    async with c:
        assert c.tools is None  # caches belong to one connection
        await c.ping()
