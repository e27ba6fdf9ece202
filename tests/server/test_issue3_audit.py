"""Server features the audit of issue 3 found untested or missing: sampling parameters and the
spec's tool-message rules, the restricted elicitation schema end to end, version gates for
server-to-client requests, Context accessors, list-changed for every list, initialize
metadata, low-level notification handlers, annotations and icons, cancellation of sync tools.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from mcpkit import Context, Image, McpError, Server
from mcpkit.server.elicitation import ElicitationError, requested_schema
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
    async with connected(sampling_app(), wire, capabilities=caps) as (client, _):
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
    async with connected(elicitation_app(), wire, capabilities=caps) as (client, _):
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


# -- Context accessors, lifespan, read_resource ------------------------------------------------


@asynccontextmanager
async def lifespan(app: Server) -> AsyncIterator[dict[str, str]]:
    yield {"db": "connected"}


def context_app() -> Server:
    app = Server("ctx", lifespan=lifespan)

    @app.tool()
    async def inspect_request(ctx: Context) -> dict[str, Any]:
        return {
            "id": ctx.request_id,
            "meta": ctx.meta,
            "token": ctx.progress_token,
            "cancelled": ctx.cancelled,
            "db": ctx.lifespan["db"],
            "client": ctx.client_capabilities,
        }

    @app.tool()
    async def read_own(uri: str, ctx: Context) -> str:
        result = await ctx.read_resource(uri)
        return "|".join(getattr(c, "text", "") or "" for c in result.contents)

    @app.resource("mem://greeting")
    def greeting(ctx: Context) -> str:
        return f"hello ({ctx.lifespan['db']})"

    @app.resource("mem://users/{id}")
    def user_by_id(id: int) -> str:
        return f"user {id + 1}"

    return app


async def test_context_exposes_the_request(wire: Any) -> None:
    async with connected(context_app(), wire, capabilities={"roots": {}}) as (client, _):
        r = await client.request(
            "tools/call",
            {"name": "inspect_request", "_meta": {"example.com/trace": "t-1"}},
            on_progress=lambda *a: None,
            timeout=10,
        )
        data = r["structuredContent"]
        assert data["meta"]["example.com/trace"] == "t-1"
        assert data["token"] is not None and data["meta"]["progressToken"] == data["token"]
        assert isinstance(data["id"], int) and data["cancelled"] is False
        assert data["db"] == "connected" and data["client"] == {"roots": {}}


async def test_ctx_read_resource_reads_static_and_templated(wire: Any) -> None:
    async with connected(context_app(), wire) as (client, _):
        assert text(await call(client, "read_own", {"uri": "mem://greeting"})) == (
            "hello (connected)"
        )
        assert text(await call(client, "read_own", {"uri": "mem://users/41"})) == "user 42"
        # The McpError raised inside the tool travels as the JSON-RPC error it is.
        with pytest.raises(McpError) as err:
            await call(client, "read_own", {"uri": "mem://nothing"})
        assert err.value.code == -32002 and err.value.data == {"uri": "mem://nothing"}


# -- list changes, initialize metadata, low-level notifications --------------------------------


async def test_resources_and_prompts_list_changed(wire: Any) -> None:
    app = Server("changes")

    @app.resource("mem://a")
    def a() -> str:
        return "a"

    @app.prompt()
    def p() -> str:
        return "p"

    async with connected(app, wire) as (client, _):
        caps = client.server_capabilities
        assert caps["resources"]["listChanged"] is True and caps["prompts"]["listChanged"] is True
        got: list[str] = []
        arrived = asyncio.Event()

        def seen(kind: str) -> Any:
            return lambda params: (got.append(kind), arrived.set())

        client.set_notification_handler("notifications/resources/list_changed", seen("res"))
        client.set_notification_handler("notifications/prompts/list_changed", seen("prompt"))

        async def expect(kind: str) -> None:
            await asyncio.wait_for(arrived.wait(), 5)
            arrived.clear()
            assert got.pop() == kind

        app.resource("mem://b")(lambda: "b")
        await expect("res")
        listed = await client.request("resources/list")
        assert [r["uri"] for r in listed["resources"]] == ["mem://a", "mem://b"]
        app.resource("mem://t/{x}")(lambda x: x)
        await expect("res")
        templates = await client.request("resources/templates/list")
        assert [t["uriTemplate"] for t in templates["resourceTemplates"]] == ["mem://t/{x}"]
        app.remove_resource("mem://b")
        await expect("res")
        app.prompt(name="q")(lambda: "q")
        await expect("prompt")
        listed = await client.request("prompts/list")
        assert [p["name"] for p in listed["prompts"]] == ["p", "q"]
        app.remove_prompt("q")
        await expect("prompt")
        assert [p["name"] for p in (await client.request("prompts/list"))["prompts"]] == ["p"]


async def test_initialize_carries_the_server_metadata(wire: Any) -> None:
    app = Server(
        "meta-server",
        version="4.5.6",
        title="Meta Server",
        instructions="Use the tools wisely.",
        icons=[
            {"src": "https://example.com/icon.png", "mime_type": "image/png", "sizes": ["48x48"]}
        ],
        website_url="https://example.com",
    )
    async with connected(app, wire) as (client, _):
        init = client.initialize_result
        assert init["serverInfo"] == {
            "name": "meta-server",
            "version": "4.5.6",
            "title": "Meta Server",
            "icons": [
                {"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}
            ],
            "websiteUrl": "https://example.com",
        }
        assert init["instructions"] == "Use the tools wisely."


async def test_low_level_notification_handler(wire: Any) -> None:
    app = Server("low")
    got: list[Any] = []
    done = asyncio.Event()

    @app.notification_handler("notifications/roots/list_changed")
    async def roots_changed(params: Any) -> None:
        got.append(params)
        done.set()

    async with connected(app, wire, capabilities={"roots": {"listChanged": True}}) as (client, _):
        await client.notify("notifications/roots/list_changed")
        await asyncio.wait_for(done.wait(), 5)
        assert got == [None] or got == [{}]


# -- prompts, annotations, icons ---------------------------------------------------------------


async def test_prompt_argument_titles_and_descriptions(wire: Any) -> None:
    app = Server("prompt-args")

    @app.prompt(description="Summarize a text.", icons=[{"src": "https://example.com/p.png"}])
    def summarize(
        text: Annotated[str, Field(description="The text to summarize")],
        style: Annotated[str, Field(title="Writing style", description="e.g. terse")] = "terse",
    ) -> str:
        return f"{style}: {text}"

    async with connected(app, wire) as (client, _):
        (prompt,) = (await client.request("prompts/list"))["prompts"]
        assert prompt["description"] == "Summarize a text."
        assert prompt["icons"] == [{"src": "https://example.com/p.png"}]
        assert prompt["arguments"] == [
            {"name": "text", "description": "The text to summarize", "required": True},
            {
                "name": "style",
                "title": "Writing style",
                "description": "e.g. terse",
                "required": False,
            },
        ]
        r = await client.request("prompts/get", {"name": "summarize", "arguments": {"text": "t"}})
        assert r["description"] == "Summarize a text."
        assert r["messages"][0]["content"]["text"] == "terse: t"


async def test_content_and_resource_annotations_and_icons(wire: Any) -> None:
    app = Server("annotated")
    stamp = "2025-05-03T14:30:00Z"
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8

    @app.tool()
    def annotated() -> list[Any]:
        return [
            {
                "type": "text",
                "text": "for the user",
                "annotations": {"audience": ["user"], "priority": 1, "lastModified": stamp},
            },
            Image(data=png, annotations={"audience": ["assistant"], "last_modified": stamp}),
            {
                "type": "resource",
                "resource": {
                    "uri": "file:///m.rs",
                    "mimeType": "text/x-rust",
                    "text": "fn main(){}",
                },
                "annotations": {"audience": ["user", "assistant"], "priority": 0.7},
            },
            {
                "type": "resource_link",
                "uri": "file:///m.rs",
                "name": "m.rs",
                "annotations": {"lastModified": stamp},
            },
        ]

    @app.resource(
        "file:///m.rs",
        mime_type="text/x-rust",
        icons=[{"src": "https://example.com/rs.png", "sizes": ["16x16"]}],
        annotations={"audience": ["user"], "priority": 0.2, "last_modified": stamp},
    )
    def main_rs() -> str:
        return "fn main(){}"

    @app.resource("file:///src/{name}", icons=[{"src": "https://example.com/dir.png"}])
    def source(name: str) -> str:
        return name

    async with connected(app, wire) as (client, _):
        content = (await call(client, "annotated"))["content"]
        assert content[0]["annotations"]["lastModified"] == stamp
        assert content[1]["annotations"] == {"audience": ["assistant"], "lastModified": stamp}
        assert content[2]["annotations"]["priority"] == 0.7
        assert content[3]["annotations"] == {"lastModified": stamp}
        (resource,) = (await client.request("resources/list"))["resources"]
        assert resource["icons"] == [{"src": "https://example.com/rs.png", "sizes": ["16x16"]}]
        assert resource["annotations"] == {
            "audience": ["user"],
            "priority": 0.2,
            "lastModified": stamp,
        }
        (template,) = (await client.request("resources/templates/list"))["resourceTemplates"]
        assert template["icons"] == [{"src": "https://example.com/dir.png"}]


# -- logging helpers, cancellation of sync tools -----------------------------------------------

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


async def test_every_log_helper_respects_the_level(wire: Any) -> None:
    app = Server("levels")

    @app.tool()
    async def shout(ctx: Context) -> str:
        for level in LEVELS:
            await getattr(ctx, level)(f"at {level}", logger="lg")
        return "done"

    async with connected(app, wire) as (client, _):
        got: list[Any] = []
        client.set_notification_handler("notifications/message", got.append)
        await call(client, "shout")
        assert [m["level"] for m in got] == list(LEVELS)
        assert got[-1] == {"level": "emergency", "logger": "lg", "data": "at emergency"}
        for threshold in ("notice", "emergency"):
            got.clear()
            await client.request("logging/setLevel", {"level": threshold})
            await call(client, "shout")
            assert [m["level"] for m in got] == list(LEVELS[LEVELS.index(threshold) :])


async def test_a_sync_tool_sees_its_cancellation(wire: Any) -> None:
    app = Server("sync-cancel")
    started = threading.Event()
    noticed = threading.Event()

    @app.tool()
    def poll(ctx: Context) -> str:
        started.set()
        for _ in range(500):
            if ctx.cancelled:
                noticed.set()
                return "stopped"
            threading.Event().wait(0.01)
        return "never cancelled"

    async with connected(app, wire) as (client, _):
        request = asyncio.ensure_future(call(client, "poll"))
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 5)
        request.cancel()  # sends notifications/cancelled
        assert await asyncio.get_running_loop().run_in_executor(None, noticed.wait, 5)
        await client.ping()


# -- features registered while clients are connected ------------------------------------------


async def test_declared_features_can_be_filled_while_connected(wire: Any) -> None:
    app = Server("dynamic", declare=("tools", "resources", "prompts"))
    async with connected(app, wire) as (client, _):
        caps = client.server_capabilities
        assert caps["tools"] == {"listChanged": True}
        assert caps["resources"] == {"subscribe": True, "listChanged": True}
        assert caps["prompts"] == {"listChanged": True} and caps["completions"] == {}
        assert (await client.request("tools/list")) == {"tools": []}
        assert (await client.request("resources/list")) == {"resources": []}
        assert (await client.request("prompts/list")) == {"prompts": []}
        changed = asyncio.Event()
        client.set_notification_handler("notifications/tools/list_changed", lambda p: changed.set())

        @app.tool()
        def late(x: int) -> int:
            return x + 1

        await asyncio.wait_for(changed.wait(), 5)
        assert [t["name"] for t in (await client.request("tools/list"))["tools"]] == ["late"]
        assert (await call(client, "late", {"x": 1}))["structuredContent"] == {"result": 2}
    with pytest.raises(ValueError, match="unknown feature"):
        Server("bad", declare=("tool",))  # type: ignore[arg-type]


async def test_a_tool_registered_before_initialize_is_served(wire: Any) -> None:
    # The session exists (and is started) before the server has any tool; the client
    # initializes after the first registration: it is declared and served.
    from mcpkit.session import ClientSession
    from mcpkit.transports import MemoryTransport
    from tests.server.helpers import CLIENT_INFO

    app = Server("late-start")
    a, b = MemoryTransport.pair()
    server = app.session(b, tracer=wire())
    client = ClientSession(a, tracer=wire())
    async with app.running():
        await server.start()
        await client.start()
        try:

            @app.tool()
            def hello() -> str:
                return "hi"

            init = await client.initialize(CLIENT_INFO, {})
            assert init["capabilities"]["tools"] == {"listChanged": True}
            assert text(await call(client, "hello")) == "hi"
        finally:
            await client.close()
            await server.close()


# -- the example server over stdio: the bullets the other stdio tests do not reach -------------


async def _stdio_example(wire: Any, capabilities: dict[str, Any]) -> Any:
    import sys

    from mcpkit.session import ClientSession
    from mcpkit.transports import StdioClientTransport
    from tests.conftest import ROOT, server_env
    from tests.server.helpers import CLIENT_INFO

    transport = StdioClientTransport(
        sys.executable,
        [str(ROOT / "examples" / "server_everything.py")],
        env=server_env(),
        cwd=str(ROOT),
    )
    client = ClientSession(transport, tracer=wire())
    await client.start()
    await client.initialize(CLIENT_INFO, capabilities)
    return client


async def test_example_over_stdio_subscriptions_levels_url_elicitation_roots(wire: Any) -> None:
    caps = {"elicitation": {"url": {}}, "roots": {"listChanged": True}}
    client = await _stdio_example(wire, caps)
    try:
        updated: list[Any] = []
        logs: list[Any] = []
        completed: list[Any] = []
        arrived = asyncio.Event()

        def note(store: list[Any]) -> Any:
            def handler(params: Any) -> None:
                store.append(params)
                arrived.set()

            return handler

        async def next_of(store: list[Any]) -> Any:
            while not store:
                await asyncio.wait_for(arrived.wait(), 10)
                arrived.clear()
            return store.pop(0)

        client.set_notification_handler("notifications/resources/updated", note(updated))
        client.set_notification_handler("notifications/message", note(logs))
        client.set_notification_handler("notifications/elicitation/complete", note(completed))
        # Subscriptions: only subscribed URIs are announced.
        await client.request("resources/subscribe", {"uri": "test://static-text"})
        await call(client, "touch", {"uri": "test://static-binary"})
        await call(client, "touch", {"uri": "test://static-text"})
        assert await next_of(updated) == {"uri": "test://static-text"}
        await client.request("resources/unsubscribe", {"uri": "test://static-text"})
        await call(client, "touch", {"uri": "test://static-text"})
        await client.ping()
        assert updated == []
        # Logging level per session.
        await call(client, "forecast", {"city": "Oslo", "days": 1})
        assert (await next_of(logs))["data"] == "forecasting Oslo"
        await client.request("logging/setLevel", {"level": "warning"})
        await call(client, "forecast", {"city": "Oslo", "days": 1})
        await client.ping()
        assert logs == []
        await client.request("logging/setLevel", {"level": "info"})

        # URL elicitation and its completion notification.
        async def accept(params: Any, ctx: Any) -> Any:
            return {"action": "accept"}

        async def roots(params: Any, ctx: Any) -> Any:
            return {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}

        client.set_request_handler("elicitation/create", accept)
        assert text(await call(client, "connect")) == "user chose accept"
        assert await next_of(completed) == {"elicitationId": "connect-1"}
        # Roots changed: the server's hook asks for them again.
        client.set_request_handler("roots/list", roots)
        await client.notify("notifications/roots/list_changed")
        assert (await next_of(logs))["data"] == "roots changed: 2 root(s)"
        # Resource links and embedded resources with annotations.
        content = (await call(client, "files"))["content"]
        assert [c["type"] for c in content] == ["resource_link", "resource"]
        assert content[1]["annotations"]["lastModified"] == "2025-05-03T14:30:00Z"
    finally:
        await client.close()


async def test_example_over_stdio_url_elicitation_required(wire: Any) -> None:
    client = await _stdio_example(wire, {})
    try:
        with pytest.raises(McpError) as err:
            await call(client, "connect")
        assert err.value.code == -32042
        (entry,) = err.value.data["elicitations"]
        assert entry["mode"] == "url" and entry["url"] == "https://example.com/connect"
        assert entry["elicitationId"]
        await client.ping()
    finally:
        await client.close()


def test_a_tool_name_with_a_trailing_newline_warns() -> None:
    import warnings

    app = Server("names")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        app.tool(name="ok.name-1_")(lambda: None)
        app.tool(name="trailing\n")(lambda: None)
    assert len(caught) == 1 and "'trailing\\n'" in str(caught[0].message)
