"""A Server on the 2026-07-28 wire (in memory): the envelope on every request, the modern
method table, server/discover, resultType/serverInfo/caching on results, per-request
logging, and the era fixed by the first request. Every message is schema-checked."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit import Context, Server
from mcpkit.server.resources import ResourceNotFound
from tests.modern.peer import ALL_CAPABILITIES, CLIENT_INFO, ModernPeer
from tests.server.helpers import connected, unchecked

SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPS_KEY = "io.modelcontextprotocol/clientCapabilities"


def make_app(**options: Any) -> Server:
    app = Server("modern", "2.0", instructions="Use the tools.", **options)

    @app.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @app.tool()
    async def whoami(ctx: Context) -> dict[str, Any]:
        """What the context knows."""
        version = ctx.protocol_version
        return {
            "era": ctx.era,
            "version": version.name if version else None,
            "caps": ctx.client_capabilities,
            "client": ctx.client_info,
        }

    @app.tool()
    async def chatty(ctx: Context) -> str:
        """Logs at every level it can."""
        await ctx.debug("d")
        await ctx.info("i")
        await ctx.error("e")
        return "done"

    @app.resource("test://static", mime_type="text/plain")
    def static() -> str:
        """A static text."""
        return "static text"

    @app.resource("test://item/{id}")
    def item(id: str) -> str:
        if id == "missing":
            raise ResourceNotFound()
        return f"item {id}"

    @app.prompt()
    def hello(name: str) -> str:
        """Say hello."""
        return f"Hello {name}"

    @app.completion(prompt="hello", argument="name")
    def names(value: str) -> list[str]:
        return [n for n in ("alice", "bob") if n.startswith(value)]

    return app


@pytest.fixture
async def peer(wire: Any) -> Any:
    app = make_app()
    async with app.running(), ModernPeer(app, wire("2026-07-28")) as p:
        yield p


def assert_modern(result: dict[str, Any], *, cacheable: bool) -> None:
    assert result["resultType"] == "complete"
    assert result["_meta"][SERVER_INFO_KEY] == {"name": "modern", "version": "2.0"}
    if cacheable:
        assert isinstance(result["ttlMs"], int) and result["ttlMs"] >= 0
        assert result["cacheScope"] in ("public", "private")
    else:
        assert "ttlMs" not in result and "cacheScope" not in result


# -- the envelope --------------------------------------------------------------------------------


async def test_missing_meta_is_invalid_params(peer: ModernPeer) -> None:
    # The first request with the envelope made the connection modern ...
    await peer.result("server/discover")
    # ... after which one without it is invalid.
    message = {"jsonrpc": "2.0", "id": 99, "method": "tools/list", "params": {}}
    response = await peer.send(message, check=False)
    assert response["error"]["code"] == -32602
    assert response["id"] == 99


@pytest.mark.parametrize("missing", [VERSION_KEY, CAPS_KEY])
async def test_missing_envelope_members_are_invalid_params(peer: ModernPeer, missing: str) -> None:
    await peer.result("server/discover")
    meta = peer.meta()
    del meta[missing]
    if missing == VERSION_KEY:
        await peer.result("server/discover")  # connection already modern
    error = await peer.error("tools/list", meta=meta, check=False)
    assert error["code"] == -32602
    assert missing in error["message"]


async def test_client_info_is_optional(peer: ModernPeer) -> None:
    meta = peer.meta()
    del meta["io.modelcontextprotocol/clientInfo"]
    result = await peer.result("server/discover", meta=meta)
    assert result["supportedVersions"] == ["2026-07-28"]


async def test_unsupported_version_names_what_is_supported(peer: ModernPeer) -> None:
    await peer.result("server/discover")
    error = await peer.error("server/discover", meta=peer.meta(version="v999.0.0"))
    assert error["code"] == -32022
    assert error["data"] == {"supported": ["2026-07-28"], "requested": "v999.0.0"}


async def test_malformed_capabilities_are_invalid_params(peer: ModernPeer) -> None:
    await peer.result("server/discover")
    meta = peer.meta()
    meta[CAPS_KEY] = {"sampling": True}
    error = await peer.error("tools/list", meta=meta, check=False)
    assert error["code"] == -32602


# -- the method table ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("ping", {}),
        ("logging/setLevel", {"level": "debug"}),
        ("resources/subscribe", {"uri": "test://static"}),
        ("resources/unsubscribe", {"uri": "test://static"}),
        ("unknown/method", {}),
    ],
)
async def test_removed_methods_are_method_not_found(
    peer: ModernPeer, method: str, params: dict[str, Any]
) -> None:
    await peer.result("server/discover")
    response = await peer.request(method, params, check=False)
    assert response["error"]["code"] == -32601
    assert response["id"] == peer._next


async def test_initialize_after_discover_names_the_version_spoken(peer: ModernPeer) -> None:
    await peer.result("server/discover")
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": CLIENT_INFO}
    response = await peer.request("initialize", params, check=False)
    assert response["error"]["code"] == -32022
    assert response["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2025-11-25"}
    assert "2026-07-28" in response["error"]["message"]


async def test_initialize_first_with_the_envelope_is_still_a_handshake(wire: Any) -> None:
    app = make_app()
    async with app.running(), ModernPeer(app) as p:
        params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": CLIENT_INFO}
        result = await p.result("initialize", params)
        assert result["protocolVersion"] == "2025-11-25"
        assert p.session.era == "legacy"


async def test_every_result_is_decorated(peer: ModernPeer) -> None:
    discover = await peer.result("server/discover")
    assert_modern(discover, cacheable=True)
    for method in ("tools/list", "resources/list", "resources/templates/list", "prompts/list"):
        assert_modern(await peer.result(method), cacheable=True)
    read = await peer.result("resources/read", {"uri": "test://static"})
    assert_modern(read, cacheable=True)
    assert read["contents"][0]["text"] == "static text"
    call = await peer.result("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
    assert_modern(call, cacheable=False)
    assert call["structuredContent"] == {"result": 3}
    prompt = await peer.result("prompts/get", {"name": "hello", "arguments": {"name": "Ann"}})
    assert_modern(prompt, cacheable=False)
    assert prompt["messages"][0]["content"]["text"] == "Hello Ann"
    complete = await peer.result(
        "completion/complete",
        {
            "ref": {"type": "ref/prompt", "name": "hello"},
            "argument": {"name": "name", "value": "a"},
        },
    )
    assert_modern(complete, cacheable=False)
    assert complete["completion"]["values"] == ["alice"]


async def test_tools_list_order_is_the_registration_order(peer: ModernPeer) -> None:
    first = await peer.result("tools/list")
    second = await peer.result("tools/list")
    names = [t["name"] for t in first["tools"]]
    assert names == ["add", "whoami", "chatty"]
    assert [t["name"] for t in second["tools"]] == names


async def test_resource_not_found_is_invalid_params_with_the_uri(peer: ModernPeer) -> None:
    uri = "test://nonexistent-resource-for-conformance-testing"
    error = await peer.error("resources/read", {"uri": uri})
    assert error["code"] == -32602
    assert error["data"] == {"uri": uri}
    raised = await peer.error("resources/read", {"uri": "test://item/missing"})
    assert (raised["code"], raised["data"]) == (-32602, {"uri": "test://item/missing"})


async def test_resource_not_found_stays_32002_on_the_legacy_wire(wire: Any) -> None:
    async with connected(make_app(), wire) as (client, _):
        from mcpkit.errors import McpError

        with pytest.raises(McpError) as caught:
            await client.request("resources/read", {"uri": "test://item/missing"}, timeout=5)
        assert caught.value.code == -32002
        assert caught.value.data == {"uri": "test://item/missing"}


# -- discover ------------------------------------------------------------------------------------


async def test_discover_matches_what_is_registered(wire: Any) -> None:
    app = Server("bare", instructions="Nothing yet.")
    async with app.running(), ModernPeer(app, wire("2026-07-28")) as p:
        result = await p.result("server/discover")
        assert result["capabilities"] == {"logging": {}}
        assert result["instructions"] == "Nothing yet."
        for method in ("tools/list", "prompts/list", "resources/list"):
            assert (await p.error(method))["code"] == -32601

        @app.tool()
        def t() -> str:
            return "t"

        caps = (await p.result("server/discover"))["capabilities"]
        assert caps["tools"] == {"listChanged": True}
        assert "prompts" not in caps and "resources" not in caps
        assert [x["name"] for x in (await p.result("tools/list"))["tools"]] == ["t"]


async def test_discover_lists_every_feature_and_extension(wire: Any) -> None:
    app = make_app(extensions={"com.example/thing": {"level": 2}})
    async with app.running(), ModernPeer(app, wire("2026-07-28")) as p:
        result = await p.result("server/discover")
    caps = result["capabilities"]
    assert caps["tools"] == {"listChanged": True}
    assert caps["prompts"] == {"listChanged": True}
    assert caps["resources"]["listChanged"] is True
    assert caps["completions"] == {}
    assert caps["extensions"] == {"com.example/thing": {"level": 2}}
    assert "tasks" not in caps
    assert result["instructions"] == "Use the tools."


# -- caching hints -------------------------------------------------------------------------------


async def test_caching_hints_default_to_immediately_stale_and_private(peer: ModernPeer) -> None:
    result = await peer.result("tools/list")
    assert (result["ttlMs"], result["cacheScope"]) == (0, "private")


async def test_server_and_item_hints(wire: Any) -> None:
    app = Server("cached", ttl_ms=300_000, cache_scope="public")

    @app.tool(ttl_ms=60_000)
    def short() -> str:
        return "s"

    @app.tool()
    def plain() -> str:
        return "p"

    @app.resource("test://mine", ttl_ms=5_000, cache_scope="private")
    def mine() -> str:
        return "m"

    @app.resource("test://shared")
    def shared() -> str:
        return "s"

    @app.prompt()
    def p() -> str:
        return "p"

    async with app.running(), ModernPeer(app, wire("2026-07-28")) as peer:
        tools = await peer.result("tools/list")
        # combined: the shortest TTL; private only when an item is (short is public here)
        assert (tools["ttlMs"], tools["cacheScope"]) == (60_000, "private")
        prompts = await peer.result("prompts/list")
        assert (prompts["ttlMs"], prompts["cacheScope"]) == (300_000, "public")
        resources = await peer.result("resources/list")
        assert (resources["ttlMs"], resources["cacheScope"]) == (5_000, "private")
        read_mine = await peer.result("resources/read", {"uri": "test://mine"})
        assert (read_mine["ttlMs"], read_mine["cacheScope"]) == (5_000, "private")
        read_shared = await peer.result("resources/read", {"uri": "test://shared"})
        assert (read_shared["ttlMs"], read_shared["cacheScope"]) == (300_000, "public")
        discover = await peer.result("server/discover")
        assert (discover["ttlMs"], discover["cacheScope"]) == (300_000, "public")

        app.remove_tool("short")
        tools = await peer.result("tools/list")
        assert (tools["ttlMs"], tools["cacheScope"]) == (300_000, "public")


async def test_a_handlers_own_fields_win(wire: Any) -> None:
    app = Server("own", ttl_ms=1000, declare=("tools",))

    @app.request_handler("tools/list")
    async def listing(params: Any, rctx: Any) -> dict[str, Any]:
        return {"tools": [], "ttlMs": 42, "cacheScope": "public"}

    async with app.running(), ModernPeer(app, wire("2026-07-28")) as peer:
        result = await peer.result("tools/list")
    assert (result["ttlMs"], result["cacheScope"]) == (42, "public")
    assert result["resultType"] == "complete"


def test_a_bad_hint_is_refused_at_registration() -> None:
    with pytest.raises(ValueError, match="ttlMs"):
        Server("bad", ttl_ms=-1)
    app = Server("bad")
    with pytest.raises(ValueError, match="cacheScope"):
        app.tool(cache_scope="everyone")(lambda: 1)  # type: ignore[arg-type]


async def test_legacy_results_have_no_modern_fields(wire: Any) -> None:
    async with connected(make_app(ttl_ms=1000), wire, check_server_received=False) as (client, _):
        for method in ("tools/list", "resources/list", "prompts/list"):
            result = await client.request(method, {}, timeout=5)
            assert not {"resultType", "ttlMs", "cacheScope", "_meta"} & set(result)
        read = await client.request("resources/read", {"uri": "test://static"}, timeout=5)
        assert not {"resultType", "ttlMs", "cacheScope", "_meta"} & set(read)
        from mcpkit.errors import McpError

        with pytest.raises(McpError) as caught:
            await unchecked(client, "server/discover", {})
        assert caught.value.code == -32601


# -- the context: capabilities, identity, era, logging -------------------------------------------


async def test_context_reads_the_request_envelope(peer: ModernPeer) -> None:
    caps = {"sampling": {}}
    result = await peer.result("tools/call", {"name": "whoami", "arguments": {}}, capabilities=caps)
    assert result["structuredContent"] == {
        "era": "modern",
        "version": "2026-07-28",
        "caps": caps,
        "client": CLIENT_INFO,
    }
    # the next request declares other capabilities: nothing is remembered
    other = await peer.result("tools/call", {"name": "whoami", "arguments": {}}, capabilities={})
    assert other["structuredContent"]["caps"] == {}


async def test_context_on_the_legacy_wire(wire: Any) -> None:
    async with connected(make_app(), wire, capabilities={"roots": {}}) as (client, _):
        result = await client.request("tools/call", {"name": "whoami", "arguments": {}}, timeout=5)
    assert result["structuredContent"]["era"] == "legacy"
    assert result["structuredContent"]["version"] == "2025-11-25"
    assert result["structuredContent"]["caps"] == {"roots": {}}


async def test_no_log_messages_without_a_log_level(peer: ModernPeer) -> None:
    result = await peer.result("tools/call", {"name": "chatty", "arguments": {}})
    assert result["content"][0]["text"] == "done"
    await asyncio.sleep(0.01)
    assert peer.notifications("notifications/message") == []


async def test_log_messages_filtered_by_the_requests_level(peer: ModernPeer) -> None:
    await peer.result("tools/call", {"name": "chatty", "arguments": {}}, log_level="info")
    await asyncio.sleep(0.01)
    levels = [m["params"]["level"] for m in peer.notifications("notifications/message")]
    assert levels == ["info", "error"]


async def test_broadcast_logs_do_not_reach_modern_connections(peer: ModernPeer) -> None:
    await peer.result("server/discover")
    await peer.server.send_log("error", "to everyone")
    await asyncio.sleep(0.01)
    assert peer.notifications("notifications/message") == []


async def test_progress_still_flows(wire: Any) -> None:
    app = Server("progress")

    @app.tool()
    async def slow(ctx: Context) -> str:
        for i in range(3):
            await ctx.progress(i + 1, 3)
        return "ok"

    async with app.running(), ModernPeer(app, wire("2026-07-28")) as peer:
        meta = peer.meta(progressToken="p1")
        await peer.result("tools/call", {"name": "slow", "arguments": {}}, meta=meta)
        await asyncio.sleep(0.01)
        progress = [n["params"]["progress"] for n in peer.notifications("notifications/progress")]
    assert progress == [1, 2, 3]


# -- the era of a session ------------------------------------------------------------------------


async def test_a_session_made_modern_up_front(wire: Any) -> None:
    app = make_app()
    async with app.running(), ModernPeer(app, wire("2026-07-28"), era="modern") as peer:
        assert peer.session.era == "modern"
        error = await peer.error(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": CLIENT_INFO},
            check=False,
        )
        assert error["code"] == -32022  # names the version the session speaks
        assert error["data"]["supported"] == ["2026-07-28"]


async def test_a_session_fixed_legacy_ignores_the_envelope(wire: Any) -> None:
    app = make_app()
    async with app.running(), ModernPeer(app, era="legacy") as peer:
        error = await peer.error("tools/list")
        assert error["code"] == -32600  # a legacy session before initialize
        assert (await peer.error("server/discover", check=False))["code"] == -32601


def test_an_unknown_era_is_refused() -> None:
    async def go() -> None:
        from mcpkit.transports import MemoryTransport

        _, b = MemoryTransport.pair()
        make_app().session(b, era="future")  # type: ignore[arg-type]

    with pytest.raises(ValueError, match="era"):
        asyncio.run(go())


async def test_a_legacy_only_server_does_not_serve_the_modern_wire(wire: Any) -> None:
    app = make_app(modern_versions=())
    async with app.running(), ModernPeer(app) as peer:
        error = await peer.error("tools/list")
        assert error["code"] == -32600  # not initialized
        assert peer.session.era is None


async def test_all_capabilities_constant_is_valid() -> None:
    # The peer's default capabilities are what the tests above declare.
    assert set(ALL_CAPABILITIES) == {"elicitation", "sampling", "roots"}


async def test_a_stateless_legacy_session_has_no_modern_methods(wire: Any) -> None:
    from mcpkit import versions

    app = make_app()
    async with app.running(), ModernPeer(app) as peer:
        peer.session.assume_initialized(versions.V2025_11_25, {})
        assert peer.session.era == "legacy"
        message = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}
        assert (await peer.send(message))["error"]["code"] == -32601
        listed = await peer.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert "resultType" not in listed["result"]


async def test_the_logging_bridge_follows_the_requests_level(wire: Any) -> None:
    import logging

    app = Server("bridge")
    log = logging.getLogger("bridge.test")
    log.setLevel(logging.DEBUG)
    log.addHandler(app.log_handler())

    @app.tool()
    async def work() -> str:
        log.info("an info record")
        log.warning("a warning record")
        return "ok"

    async with app.running(), ModernPeer(app, wire("2026-07-28")) as peer:
        await peer.result("tools/call", {"name": "work", "arguments": {}})
        await asyncio.sleep(0.02)
        assert peer.notifications("notifications/message") == []
        await peer.result("tools/call", {"name": "work", "arguments": {}}, log_level="warning")
        await asyncio.sleep(0.02)
        sent = peer.notifications("notifications/message")
    assert [(m["params"]["level"], m["params"]["data"]) for m in sent] == [
        ("warning", "a warning record")
    ]
