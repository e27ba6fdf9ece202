"""mcpkit.client.mrtr: the client's multi round-trip request loop, against a fake sender."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from mcpkit.client.errors import InvalidServerResponse
from mcpkit.client.mrtr import (
    InputRoundsExceeded,
    UnsupportedInputRequest,
    bind_context,
    drive,
    is_input_required,
    retry_params,
)

ELICIT = {"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {}}}
SAMPLE = {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}
ROOTS = {"method": "roots/list"}


class FakeServer:
    """A request sender: answers each call with the next scripted result, recording every
    request with the JSON-RPC id a real sender would give it."""

    def __init__(self, *results: Any) -> None:
        self.results = list(results)
        self.sent: list[tuple[int, str, dict[str, Any]]] = []
        self._ids = itertools.count(1)

    async def __call__(self, method: str, params: dict[str, Any]) -> Any:
        self.sent.append((next(self._ids), method, params))
        return self.results.pop(0)


async def accept(params: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Alice"}}


async def sample(params: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"}


async def roots(params: Any) -> dict[str, Any]:
    return {"roots": [{"uri": "file:///r"}]}


HANDLERS = {"elicitation/create": accept, "sampling/createMessage": sample, "roots/list": roots}
DONE = {"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}
PARAMS = {"name": "t", "arguments": {"x": 1}, "_meta": {"k": "v"}}


async def test_complete_result_is_returned_without_retry() -> None:
    server = FakeServer(DONE)
    assert await drive(server, "tools/call", PARAMS, HANDLERS) == DONE
    assert len(server.sent) == 1


async def test_result_without_result_type_is_complete() -> None:
    server = FakeServer({"content": []})
    assert await drive(server, "tools/call", PARAMS, HANDLERS) == {"content": []}
    assert len(server.sent) == 1


async def test_every_input_request_answered_and_state_echoed_exactly() -> None:
    state = "opaque+/=state with spaces"
    server = FakeServer(
        {
            "resultType": "input_required",
            "inputRequests": {"user_name": ELICIT, "greeting": SAMPLE, "client_roots": ROOTS},
            "requestState": state,
        },
        DONE,
    )
    assert await drive(server, "tools/call", PARAMS, HANDLERS) == DONE
    (first_id, _, first), (retry_id, method, retry) = server.sent
    assert first == PARAMS and "inputResponses" not in first
    assert method == "tools/call" and retry_id != first_id
    assert retry["requestState"] is state
    assert retry["inputResponses"] == {
        "user_name": await accept(None),
        "greeting": await sample(None),
        "client_roots": await roots(None),
    }
    assert {k: retry[k] for k in ("name", "arguments", "_meta")} == PARAMS


async def test_absent_state_is_omitted_and_a_new_state_replaces_the_old() -> None:
    server = FakeServer(
        {"resultType": "input_required", "inputRequests": {"a": ELICIT}, "requestState": "s1"},
        {"resultType": "input_required", "inputRequests": {"b": ELICIT}},
        {"resultType": "input_required", "requestState": "s3"},
        DONE,
    )
    assert await drive(server, "prompts/get", {"name": "p"}, HANDLERS) == DONE
    second, third, fourth = (p for _, _, p in server.sent[1:])
    assert second["requestState"] == "s1" and set(second["inputResponses"]) == {"a"}
    assert "requestState" not in third and set(third["inputResponses"]) == {"b"}
    # Only requestState: retried at once, without inputResponses.
    assert fourth == {"name": "p", "requestState": "s3"}


async def test_input_requests_are_fulfilled_concurrently() -> None:
    started: list[str] = []
    both = asyncio.Event()

    async def slow(params: Any) -> dict[str, Any]:
        started.append(params["message"])
        if len(started) == 2:
            both.set()
        await asyncio.wait_for(both.wait(), 2)  # deadlocks if run one after the other
        return {"action": "decline"}

    ask = {"method": "elicitation/create", "params": {"message": "1"}}
    ask2 = {"method": "elicitation/create", "params": {"message": "2"}}
    server = FakeServer(
        {"resultType": "input_required", "inputRequests": {"a": ask, "b": ask2}}, DONE
    )
    await drive(server, "tools/call", PARAMS, {"elicitation/create": slow})
    assert sorted(started) == ["1", "2"]


async def test_rounds_are_bounded_with_a_clear_error() -> None:
    again = {"resultType": "input_required", "inputRequests": {"a": ELICIT}}
    server = FakeServer(again, again, again, DONE)
    with pytest.raises(InputRoundsExceeded, match="after 2 rounds") as caught:
        await drive(server, "tools/call", PARAMS, HANDLERS, max_rounds=2)
    assert caught.value.result == again
    assert len(server.sent) == 3


async def test_opt_out_returns_the_raw_input_required_result() -> None:
    raw = {"resultType": "input_required", "inputRequests": {"a": ELICIT}, "requestState": "s"}
    server = FakeServer(raw)
    assert await drive(server, "tools/call", PARAMS, HANDLERS, return_input_required=True) == raw
    assert len(server.sent) == 1


async def test_input_without_handler_is_a_clear_error() -> None:
    server = FakeServer({"resultType": "input_required", "inputRequests": {"r": ROOTS}})
    with pytest.raises(UnsupportedInputRequest, match="roots/list"):
        await drive(server, "tools/call", PARAMS, {"elicitation/create": accept})


async def test_a_handler_error_propagates_and_cancels_the_others() -> None:
    cancelled = asyncio.Event()

    async def hangs(params: Any) -> dict[str, Any]:
        try:
            await asyncio.sleep(10)
        finally:
            cancelled.set()
        return {}

    async def fails(params: Any) -> dict[str, Any]:
        raise RuntimeError("user closed the dialog")

    server = FakeServer(
        {"resultType": "input_required", "inputRequests": {"a": ELICIT, "b": SAMPLE}}
    )
    handlers = {"elicitation/create": hangs, "sampling/createMessage": fails}
    with pytest.raises(RuntimeError, match="closed the dialog"):
        await drive(server, "tools/call", PARAMS, handlers)
    assert cancelled.is_set()


@pytest.mark.parametrize(
    "bad",
    [
        {"resultType": "input_required"},
        {"resultType": "input_required", "inputRequests": ["x"]},
        {"resultType": "input_required", "inputRequests": {"a": {"params": {}}}},
        {
            "resultType": "input_required",
            "inputRequests": {"a": {"method": "roots/list", "params": 1}},
        },
        {"resultType": "input_required", "inputRequests": {}, "requestState": 7},
    ],
)
async def test_malformed_input_required_result_is_invalid_server_response(bad: Any) -> None:
    with pytest.raises(InvalidServerResponse):
        await drive(FakeServer(bad), "tools/call", PARAMS, HANDLERS)


def test_pure_helpers() -> None:
    assert is_input_required({"resultType": "input_required"})
    assert not is_input_required({"resultType": "complete"}) and not is_input_required(None)
    stale = {"x": 1, "inputResponses": {"old": {}}, "requestState": "old"}
    assert retry_params(stale, {"resultType": "input_required"}, None) == {"x": 1}


async def test_bind_context_passes_the_context_to_a_session_handler() -> None:
    seen: list[Any] = []

    async def serve(params: Any, ctx: Any) -> dict[str, Any]:
        seen.append((params, ctx))
        return {"roots": []}

    ctx: Any = object()
    handler = bind_context(serve, ctx)
    assert await handler({"p": 1}) == {"roots": []}
    assert seen == [({"p": 1}, ctx)]
