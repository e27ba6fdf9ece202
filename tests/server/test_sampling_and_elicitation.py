"""Sampling and elicitation from a tool: every sampling parameter, the spec's tool-message
rules, the restricted elicitation schema end to end, and the version gates of both."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from mcpkit import Context, Server
from mcpkit.server.elicitation import ElicitationError, parse_result, requested_schema
from mcpkit.server.sampling import check_tool_messages
from tests.server.helpers import call, connected, text

TOOL = {"name": "get_weather", "inputSchema": {"type": "object"}}
USE = {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "Oslo"}}
RESULT = {"type": "tool_result", "toolUseId": "c1", "content": [{"type": "text", "text": "9C"}]}
ANSWER = {"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}


# -- sampling ----------------------------------------------------------------------------------


def sampling_app() -> Server:
    app = Server("sampling")

    @app.tool()
    async def full(ctx: Context) -> str:
        result = await ctx.sample(
            ["first", {"role": "assistant", "content": "second"}],
            max_tokens=77,
            system_prompt="Be brief.",
            temperature=0.2,
            stop_sequences=["\n\n"],
            model_preferences=["claude-3", "gpt-4"],
            include_context="thisServer",
            metadata={"k": "v"},
        )
        return f"{result.model}:{getattr(result.content, 'text', '')}"

    @app.tool()
    async def agent_turn(messages: list[dict[str, Any]], ctx: Context) -> str:
        result = await ctx.sample(messages, max_tokens=10, tools=[TOOL])
        return str(result.model)

    @app.tool()
    async def tool_content_only(ctx: Context) -> str:
        messages = [
            {"role": "user", "content": {"type": "text", "text": "weather?"}},
            {"role": "assistant", "content": [USE]},
            {"role": "user", "content": [RESULT]},
        ]
        result = await ctx.sample(messages, max_tokens=10)
        return str(result.model)

    return app


async def test_sampling_sends_every_parameter(wire: Any) -> None:
    caps = {"sampling": {"context": {}}}
    async with connected(sampling_app(), wire, capabilities=caps) as (client, _):
        seen: list[Any] = []

        async def sample(params: Any, ctx: Any) -> Any:
            seen.append(params)
            return ANSWER

        client.set_request_handler("sampling/createMessage", sample)
        assert text(await call(client, "full")) == "m:ok"
        (params,) = seen
        assert params["messages"] == [
            {"role": "user", "content": {"type": "text", "text": "first"}},
            {"role": "assistant", "content": {"type": "text", "text": "second"}},
        ]
        assert params["maxTokens"] == 77 and params["systemPrompt"] == "Be brief."
        assert params["temperature"] == 0.2 and params["stopSequences"] == ["\n\n"]
        assert params["modelPreferences"] == {"hints": [{"name": "claude-3"}, {"name": "gpt-4"}]}
        assert params["includeContext"] == "thisServer" and params["metadata"] == {"k": "v"}


async def test_include_context_needs_sampling_context(wire: Any) -> None:
    async with connected(sampling_app(), wire, capabilities={"sampling": {}}) as (client, _):
        seen: list[Any] = []
        client.set_request_handler("sampling/createMessage", lambda p, c: seen.append(p))
        r = await call(client, "full")
        assert r["isError"] is True and "sampling.context" in text(r)
        assert seen == []  # nothing was sent


async def test_sampling_tool_messages_follow_the_spec_rules(wire: Any) -> None:
    caps = {"sampling": {"tools": {}}}
    app = sampling_app()
    app.mask_errors = False  # the refusals' messages are what is checked
    async with connected(app, wire, capabilities=caps) as (client, _):
        seen: list[Any] = []

        async def sample(params: Any, ctx: Any) -> Any:
            seen.append(params)
            return ANSWER

        client.set_request_handler("sampling/createMessage", sample)
        question = {"role": "user", "content": {"type": "text", "text": "weather?"}}
        valid = [
            question,
            {"role": "assistant", "content": [USE]},
            {"role": "user", "content": RESULT},
        ]
        assert text(await call(client, "agent_turn", {"messages": valid})) == "m"
        assert seen[0]["messages"][2]["content"]["toolUseId"] == "c1"
        mixed = [*valid[:2], {"role": "user", "content": [RESULT, {"type": "text", "text": "x"}]}]
        wrong_id = [*valid[:2], {"role": "user", "content": [{**RESULT, "toolUseId": "c2"}]}]
        unanswered = [*valid[:2], question]
        stray = [question, {"role": "user", "content": [RESULT]}]
        for bad, words in (
            (mixed, "alone in a user message"),
            (wrong_id, "do not answer"),
            (unanswered, "must be answered"),
            (stray, "do not answer"),
        ):
            r = await call(client, "agent_turn", {"messages": bad})
            assert r["isError"] is True and words in text(r), text(r)
        assert len(seen) == 1  # none of the invalid requests left the server
    # Tool content (no `tools`) is a tool-enabled request too: it needs sampling.tools.
    async with connected(sampling_app(), wire, capabilities={"sampling": {}}) as (client, _):
        client.set_request_handler("sampling/createMessage", lambda p, c: seen.append(p))
        r = await call(client, "tool_content_only")
        assert r["isError"] is True and "sampling.tools" in text(r)
        assert len(seen) == 1


def test_check_tool_messages_accepts_parallel_tool_uses() -> None:
    second = {**USE, "id": "c2"}
    check_tool_messages(
        [
            {"role": "user", "content": {"type": "text", "text": "two cities"}},
            {"role": "assistant", "content": [{"type": "text", "text": "checking"}, USE, second]},
            {"role": "user", "content": [{**RESULT, "toolUseId": "c2"}, RESULT]},
            {"role": "assistant", "content": {"type": "text", "text": "done"}},
        ]
    )
    with pytest.raises(ValueError, match="belong to the assistant"):
        check_tool_messages([{"role": "user", "content": USE}])


async def test_sampling_tools_need_2025_11_25(wire: Any) -> None:
    # A 2025-06-18 client may declare `sampling.tools` (extra keys are allowed there), but the
    # revision has no tools in sampling: nothing is sent.
    caps = {"sampling": {"tools": {}}}
    app = sampling_app()
    async with connected(app, wire, capabilities=caps, version="2025-06-18") as (client, _):
        seen: list[Any] = []
        client.set_request_handler("sampling/createMessage", lambda p, c: seen.append(p))
        question = [{"role": "user", "content": {"type": "text", "text": "q"}}]
        r = await call(client, "agent_turn", {"messages": question})
        assert r["isError"] is True and "2025-11-25" in text(r)
        assert seen == []


# -- elicitation -------------------------------------------------------------------------------


class Profile(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=20, description="Your name")]
    email: Annotated[str, Field(json_schema_extra={"format": "email"})] = "a@b.c"
    age: Annotated[int, Field(ge=0, le=150)] = 30
    score: float = 0.5
    subscribe: bool = False
    color: Literal["red", "green"] = "red"
    tags: list[Literal["x", "y", "z"]] = []


DICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "size": {
            "type": "string",
            "title": "Size",
            "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
            "default": "s",
        },
        "toppings": {
            "type": "array",
            "items": {
                "anyOf": [{"const": "ham", "title": "Ham"}, {"const": "egg", "title": "Egg"}]
            },
            "minItems": 1,
        },
        "sides": {"type": "array", "items": {"type": "string", "enum": ["fries", "salad"]}},
        "when": {"type": "string", "format": "date-time"},
        "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
    },
    "required": ["size", "toppings"],
}


def elicitation_app() -> Server:
    app = Server("elicit")

    @app.tool()
    async def profile(ctx: Context) -> str:
        answer = await ctx.elicit("Your profile?", Profile)
        if answer.data is None:
            return answer.action
        assert isinstance(answer.data, Profile)
        return f"{answer.action}:{answer.data.name}:{answer.data.age}:{answer.data.tags}"

    @app.tool()
    async def order(ctx: Context) -> str:
        answer = await ctx.elicit("Your order?", DICT_SCHEMA)
        return f"{answer.action}:{answer.data}"

    @app.tool()
    async def nested(ctx: Context) -> str:
        schema = {"type": "object", "properties": {"address": {"type": "object"}}}
        await ctx.elicit("Where?", schema)
        return "never"

    return app


async def test_elicit_form_with_the_restricted_schema(wire: Any) -> None:
    # The wire checkers validate each requestedSchema against the official schema.json.
    caps = {"elicitation": {"form": {}}}
    app = elicitation_app()
    app.mask_errors = False  # the refusals' messages are what is checked
    async with connected(app, wire, capabilities=caps) as (client, _):
        answers: list[Any] = []
        seen: list[Any] = []

        async def elicit(params: Any, ctx: Any) -> Any:
            seen.append(params)
            return answers.pop(0)

        client.set_request_handler("elicitation/create", elicit)
        answers.append({"action": "accept", "content": {"name": "Ada", "tags": ["x", "z"]}})
        assert text(await call(client, "profile")) == "accept:Ada:30:['x', 'z']"
        props = seen[0]["requestedSchema"]["properties"]
        assert seen[0]["mode"] == "form" and seen[0]["requestedSchema"]["required"] == ["name"]
        assert props["name"] == {
            "type": "string",
            "title": "Name",
            "description": "Your name",
            "minLength": 1,
            "maxLength": 20,
        }
        assert props["email"]["format"] == "email" and props["email"]["default"] == "a@b.c"
        assert props["age"]["minimum"] == 0 and props["age"]["maximum"] == 150
        assert props["score"]["type"] == "number" and props["subscribe"]["type"] == "boolean"
        assert props["color"]["enum"] == ["red", "green"] and props["color"]["default"] == "red"
        assert props["tags"]["items"] == {"type": "string", "enum": ["x", "y", "z"]}

        answers.append({"action": "accept", "content": {"size": "l", "toppings": ["egg"]}})
        assert text(await call(client, "order")) == "accept:{'size': 'l', 'toppings': ['egg']}"
        sent = seen[1]["requestedSchema"]["properties"]
        assert sent["size"]["oneOf"][1] == {"const": "l", "title": "Large"}
        assert sent["toppings"]["items"]["anyOf"][0] == {"const": "ham", "title": "Ham"}
        assert sent["legacy"]["enumNames"] == ["A", "B"] and sent["when"]["format"] == "date-time"

        for action in ("decline", "cancel"):
            answers.append({"action": action})
            assert text(await call(client, "profile")) == action
            answers.append({"action": action})
            assert text(await call(client, "order")) == f"{action}:None"
        # Answers that do not fit the schema are errors the tool sees (isError here).
        for content in ({"name": ""}, {"name": "Ada", "age": 200}, {"name": "Ada", "tags": ["w"]}):
            answers.append({"action": "accept", "content": content})
            r = await call(client, "profile")
            assert r["isError"] is True and "does not match" in text(r), content
        answers.append({"action": "accept", "content": {"size": "m", "toppings": ["ham"]}})
        r = await call(client, "order")
        assert r["isError"] is True and "does not match" in text(r)
        # A schema outside the restricted subset never reaches the client.
        count = len(seen)
        r = await call(client, "nested")
        assert r["isError"] is True and "no nested objects" in text(r)
        assert len(seen) == count


def test_requested_schema_rejects_what_the_spec_does_not_allow() -> None:
    for schema, words in (
        ({"type": "array"}, "object with 'properties'"),
        ({"type": "object", "properties": {"f": {"type": "string", "format": "ipv4"}}}, "format"),
        ({"type": "object", "properties": {"l": {"type": "array", "items": {}}}}, "multi-select"),
        ({"type": "object", "properties": {"n": {"type": "null"}}}, "only string"),
    ):
        with pytest.raises(ElicitationError, match=words):
            requested_schema(schema)
    with pytest.raises(ElicitationError):
        requested_schema(int)


def test_a_refused_answer_keeps_its_content() -> None:
    """The error about an answer the schema refuses carries that answer (a compat layer
    judges it by its SDK's rules); an answer that fits is the result."""

    class Age(BaseModel):
        age: int

    schema = {"type": "object", "properties": {"age": {"type": "integer"}}}
    for given in (schema, Age):
        with pytest.raises(ElicitationError, match="does not match") as refused:
            parse_result({"action": "accept", "content": {"age": "old"}}, given, schema)
        assert refused.value.content == {"age": "old"}
    assert parse_result({"action": "accept", "content": {"age": 3}}, schema, schema).data == {
        "age": 3
    }
    with pytest.raises(ElicitationError, match="malformed") as malformed:
        parse_result({"action": "maybe"}, schema, schema)
    assert malformed.value.content is None


async def test_elicitation_needs_a_version_that_has_it(wire: Any) -> None:
    # A 2025-03-26 client may declare an unknown `elicitation` capability; the revision has no
    # elicitation/create, so nothing is sent (the wire checkers would reject it).
    caps = {"elicitation": {}}
    app = elicitation_app()
    async with connected(app, wire, capabilities=caps, version="2025-03-26") as (client, _):
        seen: list[Any] = []
        client.set_request_handler("elicitation/create", lambda p, c: seen.append(p))
        r = await call(client, "profile")
        assert r["isError"] is True and "2025-06-18" in text(r)
        assert seen == []


async def test_url_elicitation_needs_2025_11_25(wire: Any) -> None:
    app = Server("url")

    @app.tool()
    async def sign_in(ctx: Context) -> str:
        return (await ctx.elicit_url("Sign in", "https://example.com/a")).action

    caps = {"elicitation": {"url": {}}}
    async with connected(app, wire, capabilities=caps, version="2025-06-18") as (client, _):
        seen: list[Any] = []
        client.set_request_handler("elicitation/create", lambda p, c: seen.append(p))
        r = await call(client, "sign_in")
        assert r["isError"] is True and "2025-11-25" in text(r)
        assert seen == []
