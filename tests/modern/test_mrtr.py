"""MRTR rounds: questions, answers across rounds, concurrency, capabilities, bounds."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from mcpkit.errors import McpError
from mcpkit.server.mrtr import (
    InputRequired,
    Round,
    current_round,
    input_required_result,
    required_capability,
    run_with_rounds,
    validate_answer,
)
from mcpkit.server.request_state import KeyRing, RequestStateSealer, generate_key
from tests.modern.schema import check

ALL_CAPS = {"sampling": {}, "elicitation": {}, "roots": {"listChanged": True}}
NAME_Q = {
    "mode": "form",
    "message": "What is your name?",
    "requestedSchema": {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
    },
}
SAMPLE_Q = {
    "messages": [
        {"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}
    ],
    "maxTokens": 100,
}
ELICIT_A = {"action": "accept", "content": {"name": "Alice"}}
SAMPLE_A = {
    "role": "assistant",
    "content": {"type": "text", "text": "Paris"},
    "model": "test-model",
    "stopReason": "endTurn",
}
ROOTS_A = {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]}

Handler = Callable[[], Awaitable[dict[str, Any]]]


@pytest.fixture
def sealer() -> RequestStateSealer:
    return RequestStateSealer(KeyRing([base64.b64decode(generate_key())]))


async def attempt(
    handler: Callable[[Round], Awaitable[dict[str, Any]]],
    sealer: RequestStateSealer,
    *,
    caps: dict[str, Any] | None = None,
    method: str = "tools/call",
    principal: str | None = None,
    max_rounds: int = 10,
    **params: Any,
) -> dict[str, Any]:
    """One request: the complete result, or the InputRequiredResult (schema-checked)."""
    params.setdefault("name", "t")
    rnd = Round.from_request(
        method,
        params,
        client_capabilities=ALL_CAPS if caps is None else caps,
        sealer=sealer,
        principal=principal,
        max_rounds=max_rounds,
    )
    try:
        return await rnd.run(lambda: handler(rnd))
    except InputRequired as ir:
        check("InputRequiredResult", ir.result)
        for request in ir.input_requests.values():
            check("InputRequest", request)
        return ir.result


def text(value: str) -> dict[str, Any]:
    return {"resultType": "complete", "content": [{"type": "text", "text": value}]}


async def greet(rnd: Round) -> dict[str, Any]:
    answer = await rnd.ask("elicitation", NAME_Q, key="user_name")
    return text(f"Hello, {answer['content']['name']}!")


async def test_single_elicitation_two_rounds(sealer: RequestStateSealer) -> None:
    r1 = await attempt(greet, sealer)
    assert r1["resultType"] == "input_required"
    assert r1["inputRequests"] == {"user_name": {"method": "elicitation/create", "params": NAME_Q}}
    assert isinstance(r1["requestState"], str)
    r2 = await attempt(
        greet, sealer, inputResponses={"user_name": ELICIT_A}, requestState=r1["requestState"]
    )
    assert r2 == text("Hello, Alice!")
    check("CallToolResult", r2)


async def test_answers_without_state_and_unknown_keys_are_ignored(
    sealer: RequestStateSealer,
) -> None:
    responses = {
        "user_name": ELICIT_A,
        "unknown_extra_key": {"action": "accept", "content": {"x": "y"}},
        "another_unexpected": 12345,
    }
    assert await attempt(greet, sealer, inputResponses=responses) == text("Hello, Alice!")


async def test_missing_answer_is_asked_again(sealer: RequestStateSealer) -> None:
    wrong = {"wrong_key": {"action": "accept", "content": {"data": "wrong"}}}
    r = await attempt(greet, sealer, inputResponses=wrong)
    assert r["resultType"] == "input_required" and list(r["inputRequests"]) == ["user_name"]
    r1 = await attempt(greet, sealer)
    r2 = await attempt(greet, sealer, inputResponses={}, requestState=r1["requestState"])
    assert list(r2["inputRequests"]) == ["user_name"]


@pytest.mark.parametrize("bad", [12345, {"action": "maybe"}, {"action": "accept", "content": 1}])
async def test_invalid_answers_are_invalid_params(sealer: RequestStateSealer, bad: Any) -> None:
    with pytest.raises(McpError) as info:
        await attempt(greet, sealer, inputResponses={"user_name": bad})
    assert info.value.code == -32602 and "user_name" in info.value.message


async def test_input_responses_must_be_an_object(sealer: RequestStateSealer) -> None:
    with pytest.raises(McpError) as info:
        await attempt(greet, sealer, inputResponses=None)
    assert info.value.code == -32602


async def test_tampered_state_is_rejected(sealer: RequestStateSealer) -> None:
    r1 = await attempt(greet, sealer)
    with pytest.raises(McpError) as info:
        await attempt(greet, sealer, requestState=r1["requestState"] + "-TAMPERED")
    assert info.value.code == -32602


async def test_state_replayed_on_other_arguments_or_principal(sealer: RequestStateSealer) -> None:
    r1 = await attempt(greet, sealer, principal="alice", arguments={"a": 1})
    state = r1["requestState"]
    for kwargs in ({"principal": "bob", "arguments": {"a": 1}}, {"arguments": {"a": 2}}):
        with pytest.raises(McpError) as info:
            await attempt(greet, sealer, requestState=state, **{"principal": "alice", **kwargs})
        assert info.value.code == -32602


async def multiple(rnd: Round) -> dict[str, Any]:
    name, reply, roots = await asyncio.gather(
        rnd.ask("elicitation", NAME_Q, key="user_name"),
        rnd.ask("sampling", SAMPLE_Q, key="greeting"),
        rnd.ask("roots", key="client_roots"),
    )
    return text(f"{name['content']['name']} {reply['content']['text']} {len(roots['roots'])}")


async def test_concurrent_questions_make_one_round(sealer: RequestStateSealer) -> None:
    r1 = await attempt(multiple, sealer)
    assert {k: v["method"] for k, v in r1["inputRequests"].items()} == {
        "user_name": "elicitation/create",
        "greeting": "sampling/createMessage",
        "client_roots": "roots/list",
    }
    assert r1["inputRequests"]["client_roots"] == {"method": "roots/list", "params": {}}
    answers = {"user_name": ELICIT_A, "greeting": SAMPLE_A, "client_roots": ROOTS_A}
    for value in answers.values():
        check("InputResponse", value)
    r2 = await attempt(multiple, sealer, inputResponses=answers, requestState=r1["requestState"])
    assert r2 == text("Alice Paris 1")


async def test_partly_answered_round_keeps_the_answers(sealer: RequestStateSealer) -> None:
    r1 = await attempt(multiple, sealer)
    r2 = await attempt(
        multiple, sealer, inputResponses={"user_name": ELICIT_A}, requestState=r1["requestState"]
    )
    assert set(r2["inputRequests"]) == {"greeting", "client_roots"}
    r3 = await attempt(
        multiple,
        sealer,
        inputResponses={"greeting": SAMPLE_A, "client_roots": ROOTS_A},
        requestState=r2["requestState"],
    )
    assert r3 == text("Alice Paris 1")


async def test_multi_round_answers_survive_and_work_is_repeated(
    sealer: RequestStateSealer,
) -> None:
    runs: list[int] = []

    async def wizard(rnd: Round) -> dict[str, Any]:
        runs.append(rnd.previous_rounds)
        first = await rnd.ask("elicitation", NAME_Q)
        rnd.data["seen"] = first["content"]["name"]
        confirm = {
            "message": f"Book for {first['content']['name']}?",
            "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
        }
        second = await rnd.ask("elicitation", confirm)
        return text(f"{rnd.data['seen']}: {second['content']['ok']}")

    r1 = await attempt(wizard, sealer)
    (k1,) = r1["inputRequests"]
    r2 = await attempt(
        wizard, sealer, inputResponses={k1: ELICIT_A}, requestState=r1["requestState"]
    )
    (k2,) = r2["inputRequests"]
    assert k2 != k1 and r2["requestState"] != r1["requestState"]
    assert r2["inputRequests"][k2]["params"]["message"] == "Book for Alice?"
    answer = {"action": "accept", "content": {"ok": True}}
    r3 = await attempt(wizard, sealer, inputResponses={k2: answer}, requestState=r2["requestState"])
    assert r3 == text("Alice: True")
    assert runs == [0, 1, 2]


async def test_question_keys_are_deterministic(sealer: RequestStateSealer) -> None:
    async def ask_twice(rnd: Round) -> dict[str, Any]:
        await rnd.ask("sampling", SAMPLE_Q)
        await rnd.ask("sampling", SAMPLE_Q)
        return text("done")

    a = await attempt(ask_twice, sealer)
    b = await attempt(ask_twice, sealer)
    assert list(a["inputRequests"]) == list(b["inputRequests"])
    (k1,) = a["inputRequests"]
    r2 = await attempt(
        ask_twice, sealer, inputResponses={k1: SAMPLE_A}, requestState=a["requestState"]
    )
    (k2,) = r2["inputRequests"]
    assert k2 != k1

    async def changed(rnd: Round) -> dict[str, Any]:
        await rnd.ask("sampling", {**SAMPLE_Q, "maxTokens": 5})
        return text("done")

    other = await attempt(changed, sealer)
    assert list(other["inputRequests"]) != [k1]


async def test_undeclared_capability_is_minus_32021(sealer: RequestStateSealer) -> None:
    with pytest.raises(McpError) as info:
        await attempt(greet, sealer, caps={"sampling": {}})
    assert info.value.code == -32021
    assert info.value.data == {"requiredCapabilities": {"elicitation": {"form": {}}}}

    async def polite(rnd: Round) -> dict[str, Any]:
        if rnd.can_ask("elicitation", NAME_Q):
            await rnd.ask("elicitation", NAME_Q)
        await rnd.ask("sampling", SAMPLE_Q, key="sample_input")
        return text("ok")

    r = await attempt(polite, sealer, caps={"sampling": {}})
    assert list(r["inputRequests"]) == ["sample_input"]


def test_required_capabilities_per_kind() -> None:
    assert required_capability("roots", {}) == {"roots": {}}
    assert required_capability("elicitation", {"mode": "url"}) == {"elicitation": {"url": {}}}
    assert required_capability("sampling", {"tools": [{"name": "x"}]}) == {
        "sampling": {"tools": {}}
    }
    assert required_capability("sampling", {"includeContext": "thisServer"}) == {
        "sampling": {"context": {}}
    }


async def test_capability_details(sealer: RequestStateSealer) -> None:
    url_q = {"mode": "url", "message": "Sign in", "url": "https://example.com/login"}
    form_only = Round.from_request(
        "tools/call", {"name": "t"}, client_capabilities={"elicitation": {}}, sealer=sealer
    )
    assert form_only.can_ask("elicitation", NAME_Q)
    assert not form_only.can_ask("elicitation", url_q)
    url_only = Round.from_request(
        "tools/call",
        {"name": "t"},
        client_capabilities={"elicitation": {"url": {}}},
        sealer=sealer,
    )
    assert url_only.can_ask("elicitation", url_q) and not url_only.can_ask("elicitation", NAME_Q)
    with_tools = {**SAMPLE_Q, "tools": [{"name": "x", "inputSchema": {"type": "object"}}]}
    assert not form_only.can_ask("sampling", SAMPLE_Q)
    plain = Round.from_request(
        "tools/call", {"name": "t"}, client_capabilities={"sampling": {}}, sealer=sealer
    )
    assert plain.can_ask("sampling", SAMPLE_Q) and not plain.can_ask("sampling", with_tools)


async def test_round_bound(sealer: RequestStateSealer) -> None:
    async def endless(rnd: Round) -> dict[str, Any]:
        for i in range(100):
            await rnd.ask("sampling", {**SAMPLE_Q, "maxTokens": i + 1})
        return text("never")

    state: str | None = None
    responses: dict[str, Any] = {}
    for _ in range(3):
        kwargs: dict[str, Any] = {"inputResponses": responses}
        if state is not None:
            kwargs["requestState"] = state
        r = await attempt(endless, sealer, max_rounds=3, **kwargs)
        state = r["requestState"]
        responses = {k: SAMPLE_A for k in r["inputRequests"]}
    with pytest.raises(McpError) as info:
        await attempt(endless, sealer, max_rounds=3, inputResponses=responses, requestState=state)
    assert "Too many rounds" in info.value.message


async def test_handler_completing_or_failing_without_questions(sealer: RequestStateSealer) -> None:
    async def plain(rnd: Round) -> dict[str, Any]:
        assert current_round() is rnd
        return text("plain")

    assert await attempt(plain, sealer) == text("plain")
    assert current_round() is None

    async def broken(rnd: Round) -> dict[str, Any]:
        raise McpError(-32602, "Unknown tool")

    with pytest.raises(McpError, match="Unknown tool"):
        await attempt(broken, sealer)


async def test_misused_keys_and_params(sealer: RequestStateSealer) -> None:
    async def clash(rnd: Round) -> dict[str, Any]:
        await asyncio.gather(rnd.ask("sampling", SAMPLE_Q, key="k"), rnd.ask("roots", key="k"))
        return text("x")

    with pytest.raises(ValueError):
        await attempt(clash, sealer)
    rnd = Round.from_request(
        "tools/call", {"name": "t"}, client_capabilities=ALL_CAPS, sealer=sealer
    )
    with pytest.raises(RuntimeError):
        await rnd.ask("roots")
    with pytest.raises(ValueError):
        await rnd.ask("elicitation", {"message": "no schema"})
    with pytest.raises(ValueError):
        await rnd.ask("sampling", {"messages": []})
    with pytest.raises(ValueError):
        Round.from_request("tools/list", {}, client_capabilities={}, sealer=sealer)


def test_answer_validation_per_kind() -> None:
    assert validate_answer("roots", "r", ROOTS_A) == ROOTS_A
    assert validate_answer("sampling", "s", {**SAMPLE_A, "content": [SAMPLE_A["content"]]})
    for kind, bad in [
        ("sampling", {**SAMPLE_A, "role": "system"}),
        ("sampling", {**SAMPLE_A, "model": None}),
        ("sampling", {**SAMPLE_A, "content": "Paris"}),
        ("roots", {"roots": [{"name": "no uri"}]}),
        ("roots", {"roots": "file:///"}),
        ("elicitation", {"action": "accept", "content": {"x": {"nested": 1}}}),
    ]:
        with pytest.raises(McpError) as info:
            validate_answer(kind, "key", bad)
        assert info.value.code == -32602


async def test_prompts_get_and_resources_read_rounds(sealer: RequestStateSealer) -> None:
    async def ctx(rnd: Round) -> dict[str, Any]:
        await rnd.ask("elicitation", NAME_Q, key="user_context")
        return {"resultType": "complete", "messages": []}

    r1 = await attempt(ctx, sealer, method="prompts/get", name="p")
    assert list(r1["inputRequests"]) == ["user_context"]
    r2 = await attempt(
        ctx,
        sealer,
        method="prompts/get",
        name="p",
        inputResponses={"user_context": ELICIT_A},
        requestState=r1["requestState"],
    )
    check("GetPromptResult", r2)
    with pytest.raises(McpError):
        await attempt(ctx, sealer, method="prompts/get", name="q", requestState=r1["requestState"])


def test_input_required_result_shapes() -> None:
    only_state = input_required_result(request_state="opaque")
    check("InputRequiredResult", only_state)
    assert only_state == {"resultType": "input_required", "requestState": "opaque"}
    with pytest.raises(ValueError):
        input_required_result()
    assert InputRequired(request_state="s").input_requests == {}


async def test_a_branch_asking_a_little_later_joins_the_round(sealer: RequestStateSealer) -> None:
    async def later(rnd: Round) -> dict[str, Any]:
        for _ in range(4):
            await asyncio.sleep(0)
        return await rnd.ask("roots", key="client_roots")

    async def handler(rnd: Round) -> dict[str, Any]:
        await asyncio.gather(rnd.ask("elicitation", NAME_Q, key="user_name"), later(rnd))
        return text("done")

    r = await attempt(handler, sealer)
    assert set(r["inputRequests"]) == {"user_name", "client_roots"}


async def test_no_waiting_ask_outlives_its_round(sealer: RequestStateSealer) -> None:
    async def mixed(rnd: Round) -> dict[str, Any]:
        await asyncio.gather(rnd.ask("sampling", SAMPLE_Q), rnd.ask("elicitation", NAME_Q))
        return text("never")

    before = asyncio.all_tasks()
    with pytest.raises(McpError) as info:
        await attempt(mixed, sealer, caps={"sampling": {}})
    assert info.value.code == -32021
    for _ in range(3):
        await asyncio.sleep(0)
    assert asyncio.all_tasks() == before


async def context_elicit(message: str) -> dict[str, Any]:
    """What Context.elicit does on the modern wire: ask the current round."""
    rnd = current_round()
    assert rnd is not None
    return await rnd.ask("elicitation", {**NAME_Q, "message": message})


async def test_run_with_rounds_serves_a_handler_unaware_of_rounds(
    sealer: RequestStateSealer,
) -> None:
    async def tool() -> dict[str, Any]:
        answer = await context_elicit("Who?")
        return text(answer["content"]["name"])

    params: dict[str, Any] = {"name": "who", "arguments": {}}
    r1 = await run_with_rounds(
        "tools/call", params, tool, client_capabilities=ALL_CAPS, sealer=sealer
    )
    assert isinstance(r1, dict) and r1["resultType"] == "input_required"
    check("InputRequiredResult", r1)
    (key,) = r1["inputRequests"]
    retry = {**params, "inputResponses": {key: ELICIT_A}, "requestState": r1["requestState"]}
    r2 = await run_with_rounds(
        "tools/call", retry, tool, client_capabilities=ALL_CAPS, sealer=sealer
    )
    assert r2 == text("Alice")

    async def listing() -> dict[str, Any]:
        assert current_round() is None
        return {"resultType": "complete", "tools": []}

    r = await run_with_rounds("tools/list", {}, listing, client_capabilities={}, sealer=sealer)
    assert r == {"resultType": "complete", "tools": []}


async def test_state_only_input_required(sealer: RequestStateSealer) -> None:
    async def later() -> dict[str, Any]:
        raise InputRequired(request_state="come back later")

    r = await run_with_rounds(
        "resources/read", {"uri": "file:///a"}, later, client_capabilities={}, sealer=sealer
    )
    assert r == {"resultType": "input_required", "requestState": "come back later"}


async def test_a_round_runs_one_handler(sealer: RequestStateSealer) -> None:
    rnd = Round.from_request(
        "tools/call", {"name": "t"}, client_capabilities=ALL_CAPS, sealer=sealer
    )

    async def plain() -> dict[str, Any]:
        return text("x")

    await rnd.run(plain)
    with pytest.raises(RuntimeError):
        await rnd.run(plain)
