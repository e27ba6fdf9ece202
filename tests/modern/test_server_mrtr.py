"""MRTR on the server: the same handlers ask a 2026-07-28 client through
``InputRequiredResult`` rounds and a 2025 client through live server-to-client requests."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit import Context, Server
from mcpkit.server.request_state import KeyRing, RequestStateSealer, generate_key
from tests.modern.peer import ModernPeer
from tests.server.helpers import connected

NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
CONFIRM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
ALICE = {"action": "accept", "content": {"name": "Alice"}}
SAMPLED = {
    "role": "assistant",
    "content": {"type": "text", "text": "Paris"},
    "model": "test-model",
    "stopReason": "endTurn",
}
ROOTS = {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]}


def make_app(**options: Any) -> tuple[Server, dict[str, int]]:
    app = Server("mrtr", "1.0", **options)
    runs = {"greet": 0}

    @app.tool()
    async def greet(ctx: Context) -> str:
        """Asks for a name."""
        runs["greet"] += 1
        answer = await ctx.elicit("What is your name?", NAME_SCHEMA, key="user_name")
        if not answer.accepted:
            return f"no name ({answer.action})"
        return f"Hello, {answer.data['name']}!"  # type: ignore[index]

    @app.tool()
    async def capital(ctx: Context) -> str:
        """Samples."""
        result = await ctx.sample(
            "What is the capital of France?", max_tokens=100, key="sample_request"
        )
        return f"LLM: {getattr(result.content, 'text', '')}"

    @app.tool()
    async def where(ctx: Context) -> str:
        """Lists roots."""
        roots = await ctx.list_roots(key="roots_request")
        return ", ".join(str(r.uri) for r in roots)

    @app.tool()
    async def everything(ctx: Context) -> str:
        """Three questions in one round."""
        name, greeting, roots = await asyncio.gather(
            ctx.elicit("Name?", NAME_SCHEMA, key="user_name"),
            ctx.sample("Say hi", max_tokens=10, key="greeting"),
            ctx.list_roots(key="client_roots"),
        )
        text = getattr(greeting.content, "text", "")
        return f"{name.data['name']}|{text}|{len(roots)}"  # type: ignore[index]

    @app.tool()
    async def two_steps(ctx: Context) -> str:
        """One question per round."""
        first = await ctx.elicit("Step 1?", CONFIRM, key="step1")
        second = await ctx.elicit("Step 2?", CONFIRM, key="step2")
        return f"{first.data['ok']} {second.data['ok']}"  # type: ignore[index]

    @app.tool()
    async def careful(ctx: Context) -> str:
        """Asks only what the client can answer."""
        if "elicitation" in ctx.client_capabilities:
            answer = await ctx.elicit("Name?", NAME_SCHEMA, key="user_name")
            return f"elicited {answer.data['name']}"  # type: ignore[index]
        result = await ctx.sample("Name?", max_tokens=10, key="sample_input")
        return f"sampled {getattr(result.content, 'text', '')}"

    @app.tool()
    async def needs_sampling(ctx: Context) -> str:
        """Samples whatever the client declared."""
        result = await ctx.sample("hi", max_tokens=10)
        return str(result.model)

    @app.tool()
    async def visit(ctx: Context) -> str:
        """URL mode."""
        answer = await ctx.elicit_url("Sign in", "https://example.com/login", key="login")
        return answer.action

    @app.prompt()
    async def contextual(ctx: Context) -> str:
        """A prompt that asks."""
        answer = await ctx.elicit(
            "Context?",
            {
                "type": "object",
                "properties": {"context": {"type": "string"}},
            },
            key="user_context",
        )
        return f"Context: {answer.data['context']}"  # type: ignore[index]

    @app.resource("test://profile/{user}", mime_type="text/plain", ttl_ms=60_000)
    async def profile(user: str, ctx: Context) -> str:
        answer = await ctx.elicit(f"Show {user}?", CONFIRM, key="confirm")
        return f"profile of {user}: {answer.data['ok']}"  # type: ignore[index]

    return app, runs


@pytest.fixture
async def peer(wire: Any) -> Any:
    app, runs = make_app()
    async with app.running(), ModernPeer(app, wire("2026-07-28")) as p:
        p.runs = runs  # type: ignore[attr-defined]
        yield p


def call(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "arguments": {}, **extra}


async def rounds(
    peer: ModernPeer, method: str, params: dict[str, Any], answers: dict[str, Any], **kw: Any
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Drive a request through its rounds, answering each question from ``answers``; the
    input_required results seen and the complete result."""
    seen: list[dict[str, Any]] = []
    result = await peer.result(method, params, **kw)
    while result["resultType"] == "input_required":
        seen.append(result)
        assert len(seen) < 5, "too many rounds"
        responses = {key: answers[key] for key in result["inputRequests"]}
        retry = {**params, "inputResponses": responses, "requestState": result["requestState"]}
        result = await peer.result(method, retry, **kw)
    return seen, result


# -- one question ----------------------------------------------------------------------------


async def test_elicitation_round_trip(peer: ModernPeer) -> None:
    first = await peer.result("tools/call", call("greet"))
    assert first["resultType"] == "input_required"
    assert set(first["inputRequests"]) == {"user_name"}
    asked = first["inputRequests"]["user_name"]
    assert asked["method"] == "elicitation/create"
    assert asked["params"]["requestedSchema"] == NAME_SCHEMA
    assert asked["params"]["mode"] == "form"
    assert isinstance(first["requestState"], str)
    assert "ttlMs" not in first and "cacheScope" not in first
    assert first["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mrtr"
    retry = call("greet", inputResponses={"user_name": ALICE}, requestState=first["requestState"])
    done = await peer.result("tools/call", retry)
    assert done["resultType"] == "complete"
    assert done["content"][0]["text"] == "Hello, Alice!"
    assert peer.runs["greet"] == 2  # type: ignore[attr-defined]


async def test_an_answer_without_state_is_used(peer: ModernPeer) -> None:
    done = await peer.result("tools/call", call("greet", inputResponses={"user_name": ALICE}))
    assert done["content"][0]["text"] == "Hello, Alice!"


async def test_declined(peer: ModernPeer) -> None:
    answer = {"action": "decline"}
    done = await peer.result("tools/call", call("greet", inputResponses={"user_name": answer}))
    assert done["content"][0]["text"] == "no name (decline)"


async def test_sampling_round_trip(peer: ModernPeer) -> None:
    seen, done = await rounds(peer, "tools/call", call("capital"), {"sample_request": SAMPLED})
    asked = seen[0]["inputRequests"]["sample_request"]
    assert asked["method"] == "sampling/createMessage"
    assert asked["params"]["maxTokens"] == 100
    assert asked["params"]["messages"][0]["content"]["text"] == "What is the capital of France?"
    assert done["content"][0]["text"] == "LLM: Paris"


async def test_roots_round_trip(peer: ModernPeer) -> None:
    seen, done = await rounds(peer, "tools/call", call("where"), {"roots_request": ROOTS})
    assert seen[0]["inputRequests"]["roots_request"] == {"method": "roots/list", "params": {}}
    assert done["content"][0]["text"] == "file:///test/root"


async def test_url_elicitation_round_trip(peer: ModernPeer) -> None:
    seen, done = await rounds(peer, "tools/call", call("visit"), {"login": {"action": "accept"}})
    params = seen[0]["inputRequests"]["login"]["params"]
    assert params == {"mode": "url", "message": "Sign in", "url": "https://example.com/login"}
    assert done["content"][0]["text"] == "accept"


async def test_a_prompt_asks(peer: ModernPeer) -> None:
    answer = {"action": "accept", "content": {"context": "test context"}}
    seen, done = await rounds(peer, "prompts/get", {"name": "contextual"}, {"user_context": answer})
    assert len(seen) == 1
    assert done["messages"][0]["content"]["text"] == "Context: test context"
    assert done["resultType"] == "complete"


async def test_a_resource_template_asks(peer: ModernPeer) -> None:
    params = {"uri": "test://profile/ann"}
    confirm = {"action": "accept", "content": {"ok": True}}
    seen, done = await rounds(peer, "resources/read", params, {"confirm": confirm})
    assert "ttlMs" not in seen[0] and "cacheScope" not in seen[0]
    assert done["contents"][0]["text"] == "profile of ann: True"
    # the answer to a retry is not the resource's to cache: the safe defaults
    assert (done["ttlMs"], done["cacheScope"]) == (0, "private")
    # a fresh read (no answers, no state) asks again: the server remembers nothing
    plain = await peer.result("resources/read", params)
    assert plain["resultType"] == "input_required"


# -- several questions, several rounds -------------------------------------------------------


async def test_several_questions_in_one_round(peer: ModernPeer) -> None:
    answers = {"user_name": ALICE, "greeting": SAMPLED, "client_roots": ROOTS}
    seen, done = await rounds(peer, "tools/call", call("everything"), answers)
    assert len(seen) == 1
    methods = {k: v["method"] for k, v in seen[0]["inputRequests"].items()}
    assert methods == {
        "user_name": "elicitation/create",
        "greeting": "sampling/createMessage",
        "client_roots": "roots/list",
    }
    assert done["content"][0]["text"] == "Alice|Paris|1"


async def test_several_rounds_with_fresh_state(peer: ModernPeer) -> None:
    yes = {"action": "accept", "content": {"ok": True}}
    seen, done = await rounds(peer, "tools/call", call("two_steps"), {"step1": yes, "step2": yes})
    assert [set(r["inputRequests"]) for r in seen] == [{"step1"}, {"step2"}]
    assert seen[0]["requestState"] != seen[1]["requestState"]
    assert done["content"][0]["text"] == "True True"


async def test_a_missing_answer_is_asked_again(peer: ModernPeer) -> None:
    wrong = {"wrong_key": {"action": "accept", "content": {"data": "wrong"}}}
    again = await peer.result("tools/call", call("greet", inputResponses=wrong))
    assert again["resultType"] == "input_required"
    assert set(again["inputRequests"]) == {"user_name"}


async def test_unknown_answers_are_ignored(peer: ModernPeer) -> None:
    responses = {
        "user_name": ALICE,
        "unknown_extra_key": {"action": "accept"},
        "another_unexpected": {"x": 1},
    }
    response = await peer.request(
        "tools/call", call("greet", inputResponses=responses), check=False
    )
    assert response["result"]["content"][0]["text"] == "Hello, Alice!"


@pytest.mark.parametrize(
    "responses", [{"user_name": 12345}, None, {"user_name": {"action": "maybe"}}]
)
async def test_an_invalid_answer_is_invalid_params(peer: ModernPeer, responses: Any) -> None:
    response = await peer.request(
        "tools/call", call("greet", inputResponses=responses), check=False
    )
    assert response["error"]["code"] == -32602


async def test_tampered_state_is_refused(peer: ModernPeer) -> None:
    first = await peer.result("tools/call", call("greet"))
    state = first["requestState"]
    for bad in (state + "-TAMPERED", state[:-4] + "AAAA", "not-a-state"):
        error = await peer.error(
            "tools/call", call("greet", inputResponses={"user_name": ALICE}, requestState=bad)
        )
        assert error["code"] == -32602
        assert "requestState" in error["message"]


async def test_state_is_bound_to_its_request(peer: ModernPeer) -> None:
    first = await peer.result("tools/call", call("greet"))
    elsewhere = {"name": "where", "arguments": {}, "requestState": first["requestState"]}
    assert (await peer.error("tools/call", elsewhere))["code"] == -32602
    read = await peer.result("resources/read", {"uri": "test://profile/ann"})
    other_uri = {"uri": "test://profile/bob", "requestState": read["requestState"]}
    error = await peer.error("resources/read", other_uri)
    assert error["code"] == -32602
    assert "another request" in error["message"]


# -- capabilities ----------------------------------------------------------------------------


async def test_an_undeclared_capability_is_never_asked(peer: ModernPeer) -> None:
    error = await peer.error("tools/call", call("needs_sampling"), capabilities={})
    assert error["code"] == -32021
    assert error["data"] == {"requiredCapabilities": {"sampling": {}}}
    elicit = await peer.error("tools/call", call("greet"), capabilities={"sampling": {}})
    assert elicit["code"] == -32021
    assert elicit["data"]["requiredCapabilities"] == {"elicitation": {"form": {}}}


async def test_a_handler_chooses_by_the_requests_capabilities(peer: ModernPeer) -> None:
    result = await peer.result("tools/call", call("careful"), capabilities={"sampling": {}})
    assert set(result["inputRequests"]) == {"sample_input"}
    with_elicitation = await peer.result(
        "tools/call", call("careful"), capabilities={"elicitation": {}}
    )
    assert set(with_elicitation["inputRequests"]) == {"user_name"}


async def test_lists_never_ask(peer: ModernPeer) -> None:
    for method in ("tools/list", "prompts/list"):
        assert (await peer.result(method))["resultType"] == "complete"


# -- request state shared by replicas --------------------------------------------------------


async def test_replicas_sharing_keys_open_each_others_state(wire: Any, monkeypatch: Any) -> None:
    key = generate_key()
    monkeypatch.setenv("MCPKIT_REQUEST_STATE_KEYS", key)
    one, _ = make_app()
    two, _ = make_app(request_state_keys=KeyRing.from_base64(key))
    stranger, _ = make_app(request_state_keys=RequestStateSealer(KeyRing.generate()))
    assert not one.request_state.ephemeral
    async with ModernPeer(one, wire("2026-07-28")) as a, ModernPeer(two, wire("2026-07-28")) as b:
        first = await a.result("tools/call", call("greet"))
        retry = call(
            "greet", inputResponses={"user_name": ALICE}, requestState=first["requestState"]
        )
        done = await b.result("tools/call", retry)
        assert done["content"][0]["text"] == "Hello, Alice!"
        async with ModernPeer(stranger, wire("2026-07-28")) as c:
            assert (await c.error("tools/call", retry))["code"] == -32602


def test_keys_as_a_string() -> None:
    key = generate_key()
    app = Server("s", request_state_keys=f"{key},{generate_key()}")
    assert len(app.request_state.keys) == 2
    assert not app.request_state.ephemeral


async def test_state_is_bound_to_the_authenticated_subject(wire: Any) -> None:
    from mcpkit.auth.server import AccessToken
    from mcpkit.owner import token_var

    caller = {"subject": "alice"}

    async def resource_server(ctx: Any, call_next: Any) -> Any:
        # What the resource server does for each request (a connection carries no context
        # of the sender's: the server side sets the principal itself).
        token_var.set(AccessToken(token="t", subject=caller["subject"]))
        return await call_next(ctx)

    app, _ = make_app()
    app.auth = object()  # protected: requests carry an access token
    app.add_middleware(resource_server)
    async with ModernPeer(app, wire("2026-07-28")) as peer:
        first = await peer.result("tools/call", call("greet"))
        retry = call(
            "greet", inputResponses={"user_name": ALICE}, requestState=first["requestState"]
        )
        caller["subject"] = "mallory"
        error = await peer.error("tools/call", retry)
        assert error["code"] == -32602
        assert "principal" in error["message"]
        caller["subject"] = "alice"  # the subject the state was issued to goes on
        assert (await peer.result("tools/call", retry))["content"][0]["text"] == "Hello, Alice!"


# -- the same handlers for a 2025 client -----------------------------------------------------


async def test_the_same_handlers_serve_a_legacy_client(wire: Any) -> None:
    app, runs = make_app()
    caps = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {"listChanged": True}}
    async with connected(app, wire, capabilities=caps) as (client, _):
        asked: list[str] = []

        async def elicit(params: Any, ctx: Any) -> dict[str, Any]:
            asked.append(params["message"])
            if params.get("mode") == "url":
                return {"action": "accept"}
            if "context" in params["requestedSchema"]["properties"]:
                return {"action": "accept", "content": {"context": "ctx"}}
            if "ok" in params["requestedSchema"]["properties"]:
                return {"action": "accept", "content": {"ok": True}}
            return ALICE

        async def sample(params: Any, ctx: Any) -> dict[str, Any]:
            return SAMPLED

        async def roots(params: Any, ctx: Any) -> dict[str, Any]:
            return ROOTS

        client.set_request_handler("elicitation/create", elicit)
        client.set_request_handler("sampling/createMessage", sample)
        client.set_request_handler("roots/list", roots)

        async def text(name: str) -> str:
            result = await client.request("tools/call", call(name), timeout=5)
            assert "resultType" not in result and "_meta" not in result
            return str(result["content"][0]["text"])

        assert await text("greet") == "Hello, Alice!"
        assert runs["greet"] == 1  # a live request: the handler runs once
        assert await text("capital") == "LLM: Paris"
        assert await text("where") == "file:///test/root"
        assert await text("everything") == "Alice|Paris|1"
        assert await text("two_steps") == "True True"
        assert await text("visit") == "accept"
        prompt = await client.request("prompts/get", {"name": "contextual"}, timeout=5)
        assert prompt["messages"][0]["content"]["text"] == "Context: ctx"
        read = await client.request("resources/read", {"uri": "test://profile/bo"}, timeout=5)
        assert read["contents"][0]["text"] == "profile of bo: True"
        assert "ttlMs" not in read


async def test_a_legacy_client_without_the_capability_gets_a_tool_error(wire: Any) -> None:
    app, _ = make_app()
    async with connected(app, wire, capabilities={}) as (client, _):
        result = await client.request("tools/call", call("needs_sampling"), timeout=5)
    assert result["isError"] is True
    assert "sampling" in result["content"][0]["text"]
