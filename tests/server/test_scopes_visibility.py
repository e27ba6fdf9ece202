"""Per-user visibility: components registered with ``scopes=`` are neither listed to nor
usable by a principal without those scopes, in both eras, refused exactly as a component
that does not exist; lists on the 2026-07-28 wire are private to their principal; stdio and
in-memory clients (nobody authenticates) see everything."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
import pytest

from mcpkit import Client, McpError, Server
from mcpkit.auth import APIKey, APIKeyVerifier
from mcpkit.transports.http import running
from tests.http import modern

KEYS = {
    "sk-ada": APIKey(subject="ada", scopes={"mcp", "admin"}),
    "sk-bob": APIKey(subject="bob", scopes={"mcp"}),
    "sk-eve": APIKey(subject="eve", scopes={"notes"}),
}
ERAS = ["legacy", "2026-07-28"]


def make_server(auth: Any = "keys", **options: Any) -> Server:
    app = Server("scoped", auth=APIKeyVerifier(KEYS) if auth == "keys" else auth, **options)

    @app.tool()
    def echo(text: str) -> str:
        return text

    @app.tool(scopes=["admin"])
    def wipe() -> str:
        return "wiped"

    @app.tool(scopes="admin notes")
    def both() -> str:
        return "both"

    @app.prompt()
    def hello() -> str:
        return "hello"

    @app.prompt(scopes=["admin"])
    def runbook(system: str) -> str:
        return f"runbook for {system}"

    @app.completion(prompt="runbook", argument="system")
    def systems(value: str) -> list[str]:
        return [s for s in ("db", "dns") if s.startswith(value)]

    @app.resource("file:///public.txt")
    def public() -> str:
        return "public"

    @app.resource("file:///secret.txt", scopes=["admin"])
    def secret() -> str:
        return "secret"

    @app.resource("notes://{note}", scopes=["notes"])
    def note(note: str) -> str:
        return f"note {note}"

    return app


async def names(c: Client) -> dict[str, list[str]]:
    return {
        "tools": sorted(t.name for t in await c.list_tools()),
        "prompts": sorted(p.name for p in await c.list_prompts()),
        "resources": sorted(r.uri for r in await c.list_resources()),
        "templates": sorted(t.uri_template for t in await c.list_resource_templates()),
    }


def client(base: str, key: str | None, era: str) -> Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return Client(base + "/mcp", headers=headers, era=era, cache=False)


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("middleware", [False, True])
async def test_lists_follow_the_principal(era: str, middleware: bool) -> None:
    async def passthrough(mctx: Any, call_next: Any) -> Any:
        return await call_next(mctx)

    app = make_server(middleware=[passthrough] if middleware else [])
    asgi = app.http_app()
    async with running(asgi) as base:
        async with client(base, "sk-ada", era) as c:
            assert await names(c) == {
                "tools": ["echo", "wipe"],
                "prompts": ["hello", "runbook"],
                "resources": ["file:///public.txt", "file:///secret.txt"],
                "templates": [],
            }
            assert (await c.call_tool("wipe")).content[0].text == "wiped"
        async with client(base, "sk-bob", era) as c:
            assert await names(c) == {
                "tools": ["echo"],
                "prompts": ["hello"],
                "resources": ["file:///public.txt"],
                "templates": [],
            }
        async with client(base, "sk-eve", era) as c:
            got = await names(c)
            assert got["tools"] == ["echo"] and got["templates"] == ["notes://{note}"]
            assert (await c.read_resource("notes://7")).contents[0].text == "note 7"
    await asgi.aclose()


async def refusal(coro: Any) -> tuple[int, str]:
    with pytest.raises(McpError) as info:
        await coro
    return info.value.code, info.value.message


@pytest.mark.parametrize("era", ERAS)
async def test_hidden_is_refused_as_missing(era: str) -> None:
    asgi = make_server().http_app()
    async with running(asgi) as base:
        async with client(base, "sk-bob", era) as c:
            assert await refusal(c.call_tool("wipe")) == (-32602, "Unknown tool: wipe")
            assert await refusal(c.call_tool("both")) == (-32602, "Unknown tool: both")
            assert await refusal(c.call_tool("nope")) == (-32602, "Unknown tool: nope")
            assert await refusal(c.get_prompt("runbook", {"system": "db"})) == (
                -32602,
                "Unknown prompt: runbook",
            )
            missing = await refusal(c.read_resource("file:///nothing.txt"))
            hidden = await refusal(c.read_resource("file:///secret.txt"))
            assert hidden == (missing[0], "Resource not found: file:///secret.txt")
            assert (await refusal(c.read_resource("notes://1")))[0] == missing[0]
            if era == "legacy":
                code, _ = await refusal(c.subscribe_resource("file:///secret.txt"))
                assert code == missing[0]
                assert await refusal(
                    c.complete({"type": "ref/prompt", "name": "runbook"}, "system", "d")
                ) == (-32602, "Unknown prompt: runbook")
        async with client(base, "sk-ada", era) as c:
            assert (await c.get_prompt("runbook", {"system": "db"})).messages
            assert (await c.read_resource("file:///secret.txt")).contents[0].text == "secret"
            if era == "legacy":
                done = await c.complete({"type": "ref/prompt", "name": "runbook"}, "system", "d")
                assert done.completion.values == ["db", "dns"]
            # a tool needs every one of its scopes
            assert await refusal(c.call_tool("both")) == (-32602, "Unknown tool: both")
    await asgi.aclose()


async def test_no_token_over_http_sees_only_the_unscoped() -> None:
    asgi = make_server(auth=None).http_app()
    async with running(asgi) as base:
        async with client(base, None, "legacy") as c:
            assert (await names(c))["tools"] == ["echo"]
            assert (await refusal(c.call_tool("wipe")))[0] == -32602
    await asgi.aclose()


async def test_in_memory_everything_is_visible() -> None:
    async with Client(make_server(auth=None)) as c:
        got = await names(c)
        assert got["tools"] == ["both", "echo", "wipe"]
        assert got["templates"] == ["notes://{note}"]
        assert (await c.call_tool("both")).content[0].text == "both"


async def test_modern_lists_are_private_to_their_principal() -> None:
    app = make_server(ttl_ms=60_000, cache_scope="public")

    @app.resource("file:///other.txt")
    def other() -> str:
        return "other"

    asgi = app.http_app()
    async with running(asgi) as base, httpx.AsyncClient() as http:

        async def result(key: str, method: str, params: dict[str, Any] | None = None) -> Any:
            r = await http.post(
                base + "/mcp",
                content=orjson.dumps(modern.request(1, method, params)),
                headers=modern.headers(
                    method, (params or {}).get("uri"), authorization=f"Bearer {key}"
                ),
            )
            assert r.status_code == 200, r.text
            return r.json()["result"]

        for method, key in (
            ("tools/list", "tools"),
            ("prompts/list", "prompts"),
            ("resources/list", "resources"),
            ("resources/templates/list", "resourceTemplates"),
        ):
            ada, bob = await result("sk-ada", method), await result("sk-bob", method)
            for got in (ada, bob):
                assert (got["ttlMs"], got["cacheScope"]) == (60_000, "private"), method
            if key != "resourceTemplates":
                assert len(ada[key]) > len(bob[key]), method
        read = await result("sk-ada", "resources/read", {"uri": "file:///secret.txt"})
        assert read["cacheScope"] == "private"
        read = await result("sk-ada", "resources/read", {"uri": "file:///public.txt"})
        assert read["cacheScope"] == "public"  # nothing about it depends on who asks
    await asgi.aclose()
    # a list without a scoped component stays shareable
    plain = Server("plain", auth=APIKeyVerifier(KEYS), ttl_ms=1000, cache_scope="public")
    plain.tool("admin_only", scopes=["admin"])(lambda: "x")

    @plain.prompt()
    def hi() -> str:
        return "hi"

    asgi = plain.http_app()
    async with running(asgi) as base, httpx.AsyncClient() as http:
        r = await http.post(
            base + "/mcp",
            content=orjson.dumps(modern.request(1, "prompts/list")),
            headers=modern.headers("prompts/list", authorization="Bearer sk-bob"),
        )
        assert r.json()["result"]["cacheScope"] == "public"
    await asgi.aclose()


def test_registration_checks_scopes() -> None:
    app = Server("x")
    with pytest.raises(ValueError, match="without spaces"):
        app.tool("t", scopes=["a b"])(lambda: "x")
    with pytest.raises(ValueError, match="non-empty"):
        app.prompt("p", scopes=[""])(lambda: "x")
    app.resource("file:///x", scopes=[])(lambda: "x")  # empty: everyone
    assert app.resources.resources["file:///x"].scopes is None


async def test_listen_never_carries_hidden_updates() -> None:
    app = make_server()
    asgi = app.http_app()
    async with running(asgi) as base:
        for key, expected in (
            ("sk-bob", ["file:///public.txt"]),
            ("sk-ada", ["file:///secret.txt", "file:///public.txt"]),
        ):
            async with client(base, key, "2026-07-28") as c:
                # the hidden ones first: a leak would arrive before the public one
                uris = ["file:///secret.txt", "notes://1", "file:///public.txt"]
                async with c.listen(resources=uris) as events:
                    for uri in uris:
                        app.notify_resource_updated(uri)
                    seen: list[str] = []
                    async for event in events:
                        seen.append(event.params["uri"])
                        if event.params["uri"] == "file:///public.txt":
                            break
                assert seen == expected, key  # notes://1 needs the notes scope: no one here
    await asgi.aclose()


@pytest.mark.parametrize("era", ERAS)
async def test_mounted_servers_keep_their_scopes(era: str) -> None:
    """A parent with mounts (its lists and calls are the mount's handlers) still hides its
    own scoped components, and a child's scoped ones stay hidden through the parent."""
    parent = make_server()
    child = Server("child")

    @child.tool(scopes=["admin"])
    def purge() -> str:
        return "purged"

    @child.tool()
    def ping_child() -> str:
        return "pong"

    parent.mount(child, prefix="kid")
    asgi = parent.http_app()
    async with running(asgi) as base:
        async with client(base, "sk-bob", era) as c:
            tools = sorted(t.name for t in await c.list_tools())
            assert tools == ["echo", "kid_ping_child"]
            assert sorted(p.name for p in await c.list_prompts()) == ["hello"]
            assert (await refusal(c.call_tool("wipe")))[0] == -32602
            assert (await refusal(c.call_tool("kid_purge")))[0] == -32602
        async with client(base, "sk-ada", era) as c:
            tools = sorted(t.name for t in await c.list_tools())
            assert tools == ["echo", "kid_ping_child", "kid_purge", "wipe"]
            assert (await c.call_tool("kid_purge")).content[0].text == "purged"
    await asgi.aclose()


async def test_tool_search_finds_only_what_the_principal_may_see() -> None:
    from mcpkit.server import ToolSearch

    app = make_server(tool_search=ToolSearch(pinned=["echo"]))
    asgi = app.http_app()
    async with running(asgi) as base:
        for key, found in (("sk-bob", []), ("sk-ada", ["wipe"])):
            async with client(base, key, "legacy") as c:
                result = await c.call_tool("search_tools", {"query": "wipe"})
                names = [t["name"] for t in result.structured_content["tools"]]  # type: ignore[index]
                assert [n for n in names if n in ("wipe", "both")] == found, key
    await asgi.aclose()
