"""fastmcp's Client on a server in memory: lists, calls (``.data`` for each kind of return
value), errors, resources, prompts, handlers. Prints what it saw."""

import asyncio
import json
from dataclasses import dataclass

from fastmcp import Client, Context, FastMCP
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.messages import MessageHandler
from fastmcp.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import SamplingMessage, TextContent
from pydantic import BaseModel

mcp = FastMCP("Demo", instructions="Try the tools.")


class Person(BaseModel):
    name: str
    age: int
    tags: list[str] = []


class Team(BaseModel):
    lead: Person
    size: int | None = None


class Contact(BaseModel):
    name: str
    age: int


@dataclass
class Point:
    x: int
    y: float


@mcp.tool
def text(value: str = "x") -> str:
    """Return the text."""
    return value


@mcp.tool
def number() -> int:
    return 3


@mcp.tool
def mapping() -> dict:
    return {"a": 1}


@mcp.tool
def typed_mapping() -> dict[str, int]:
    return {"a": 1}


@mcp.tool
def numbers() -> list[int]:
    return [1, 2]


@mcp.tool
def person() -> Person:
    return Person(name="Ada", age=36)


@mcp.tool
def team() -> Team:
    return Team(lead=Person(name="Ada", age=36))


@mcp.tool
def point() -> Point:
    return Point(1, 2.5)


@mcp.tool
def nothing() -> None:
    return None


@mcp.tool
def untyped():
    return {"k": [1]}


@mcp.tool
def people() -> list[Person]:
    return [Person(name="Bob", age=3)]


@mcp.tool
def pair() -> tuple[int, str]:
    return (1, "a")


@mcp.tool
def fails() -> str:
    raise ToolError("it broke")


@mcp.tool
async def working(steps: int, ctx: Context) -> str:
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, f"step {i + 1}")
    await ctx.info("done working", logger_name="worker")
    await ctx.warning("careful")
    return "worked"


@mcp.tool
async def ask(ctx: Context) -> str:
    answer = await ctx.elicit("Who are you?", response_type=Contact)
    if answer.action != "accept":
        return answer.action
    return f"{answer.data.name} is {answer.data.age}"


@mcp.tool
async def ask_name(ctx: Context) -> str:
    answer = await ctx.elicit("Your name?", response_type=str)
    return f"hello {answer.data}" if answer.action == "accept" else answer.action


@mcp.tool
async def think(topic: str, ctx: Context) -> str:
    message = SamplingMessage(role="user", content=TextContent(type="text", text=topic))
    result = await ctx.session.create_message(messages=[message], max_tokens=50)
    return f"{result.model}: {result.content.text}"


@mcp.tool
async def places(ctx: Context) -> list[str]:
    return [str(root.uri) for root in (await ctx.session.list_roots()).roots]


@mcp.tool
async def refused(ctx: Context) -> str:
    answer = await ctx.elicit("Decline me?", response_type=str)
    return answer.action


@mcp.resource("data://config")
def config() -> dict:
    """The configuration."""
    return {"debug": True}


@mcp.resource("users://{user_id}/profile")
def profile(user_id: str) -> str:
    return f"user {user_id}"


@mcp.prompt
def review(code: str, focus: str = "style") -> str:
    """Review some code."""
    return f"Review {code} for {focus}"


def show(label, value):
    print(label, json.dumps(value, sort_keys=True, default=repr))


async def on_log(message):
    print("log:", message.level, message.logger, message.data)


async def on_progress(progress, total, message):
    print("progress:", progress, total, message)


async def on_elicit(message, response_type, params, context):
    print("elicit:", message, response_type is not None)
    if message == "Your name?":
        return "Ada"
    if message == "Decline me?":
        return ElicitResult(action="decline")
    return response_type(name="Grace", age=45)


async def on_sample(messages, params, context):
    print("sample:", [m.content.text for m in messages])
    return "deep thoughts"


class Notifications(MessageHandler):
    def __init__(self):
        self.seen = set()

    async def on_notification(self, message):
        self.seen.add(type(message).__name__)

    async def on_logging_message(self, message):
        self.seen.add(f"log {message.params.level}")


async def main():
    client = Client(
        mcp,
        log_handler=on_log,
        progress_handler=on_progress,
        elicitation_handler=on_elicit,
        sampling_handler=on_sample,
    )
    print("connected before:", client.is_connected())
    async with client:
        print("connected:", client.is_connected())
        print("initialize result:", client.initialize_result)
        print("server:", client.server_info.name, "|", client.instructions)
        print("protocol:", client.protocol_version)
        try:
            print("ping:", await client.ping())
        except MCPError as exc:  # the 2026-07-28 wire has no ping
            print("ping failed:", exc.error.code)
        for tool in await client.list_tools():
            show(f"tool {tool.name}:", [tool.description, tool.input_schema, tool.output_schema])
        for resource in await client.list_resources():
            print(
                "resource:", resource.uri, resource.name, resource.description, resource.mime_type
            )
        for template in await client.list_resource_templates():
            print("template:", template.uri_template, template.name, template.mime_type)
        for prompt in await client.list_prompts():
            show(f"prompt {prompt.name}:", [prompt.description, [a.name for a in prompt.arguments]])
        for name in [
            "text",
            "number",
            "mapping",
            "typed_mapping",
            "numbers",
            "person",
            "team",
            "point",
            "nothing",
            "untyped",
            "people",
            "pair",
        ]:
            result = await client.call_tool(name)
            print(
                f"call {name}:",
                repr(result.data),
                type(result.data).__name__,
                result.structured_content,
                result.is_error,
                [c.text for c in result.content if isinstance(c, TextContent)],
            )
        result = await client.call_tool("text", {"value": "hello"})
        print("data:", result.data)
        try:
            await client.call_tool("fails")
        except ToolError as exc:
            print("ToolError:", exc)
        result = await client.call_tool("fails", raise_on_error=False)
        print("not raised:", result.is_error, result.data, result.content[0].text)
        raw = await client.call_tool_mcp("number", {})
        print("mcp result:", type(raw).__name__, raw.is_error, raw.structured_content)
        try:
            await client.call_tool("no_such_tool")
        except ToolError as exc:
            print("unknown:", exc)
        contents = await client.read_resource("data://config")
        print("read:", [(type(c).__name__, c.uri, c.mime_type, c.text) for c in contents])
        contents = await client.read_resource("users://7/profile")
        print("read:", [(c.uri, c.text) for c in contents])
        prompt = await client.get_prompt("review", {"code": "x = 1"})
        print("prompt:", [(m.role, m.content.text) for m in prompt.messages])
    print("connected after:", client.is_connected())
    notifications = Notifications()
    # The handlers, over the handshake (fastmcp's server asks for elicitation there only).
    async with Client(
        mcp,
        mode="legacy",
        log_handler=on_log,
        progress_handler=on_progress,
        elicitation_handler=on_elicit,
        sampling_handler=on_sample,
        roots=["file:///tmp/one", "file:///tmp/two"],
        message_handler=notifications,
    ) as client:
        init = client.initialize_result
        print("initialize:", init.server_info.name, init.instructions, init.protocol_version)
        print("ping:", await client.ping())
        print("working:", (await client.call_tool("working", {"steps": 2})).data)
        print("ask:", (await client.call_tool("ask")).data)
        print("ask_name:", (await client.call_tool("ask_name")).data)
        print("refused:", (await client.call_tool("refused")).data)
        print("think:", (await client.call_tool("think", {"topic": "tea"})).data)
        print("places:", (await client.call_tool("places")).data)
    print("notifications:", sorted(notifications.seen))


if __name__ == "__main__":
    asyncio.run(main())
