"""The fixture server of the official MCP conformance suite (2025-11-25 wire), in mcpkit.

Every tool, resource and prompt the suite's server scenarios look for, with the exact names,
values and behaviours they expect. Written only with mcpkit's public API, so it doubles as a
tour of the server features: content types, logging, progress, sampling, elicitation,
resource templates, subscriptions, completion and SSE polling.

    python examples/conformance/everything_server.py --transport http --port 3000
    python examples/conformance/everything_server.py --transport stdio

Over HTTP the endpoint is http://localhost:PORT/mcp (see scripts/conformance.sh).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import wave
from typing import Any

from mcpkit import Audio, Context, Image, Server
from mcpkit.server import ElicitationResult, user
from mcpkit.types import CallToolResult, EmbeddedResource, TextContent, TextResourceContents

# A 1x1 PNG and a 10 ms silent WAV, for the image and audio content tests.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5e1a0b10000000049454e44ae426082"
)


def _silent_wav(milliseconds: int = 10, rate: int = 8000) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\x00\x00" * (rate * milliseconds // 1000))
    return buffer.getvalue()


WAV = _silent_wav()

app = Server("mcp-conformance-test-server", version="1.0.0")


# -- tools: content types ----------------------------------------------------------------------


@app.tool()
def test_simple_text() -> str:
    """Tests simple text content response."""
    return "This is a simple text response for testing."


@app.tool()
def test_image_content() -> Image:
    """Tests image content response."""
    return Image(data=PNG, mime_type="image/png")


@app.tool()
def test_audio_content() -> Audio:
    """Tests audio content response."""
    return Audio(data=WAV, mime_type="audio/wav")


def embedded_text(uri: str, mime_type: str, text: str) -> EmbeddedResource:
    """An embedded text resource content block."""
    return EmbeddedResource(
        type="resource",
        resource=TextResourceContents(uri=uri, mime_type=mime_type, text=text),
    )


@app.tool()
def test_embedded_resource() -> EmbeddedResource:
    """Tests embedded resource content response."""
    return embedded_text(
        "test://embedded-resource", "text/plain", "This is an embedded resource content."
    )


@app.tool()
def test_multiple_content_types() -> list[object]:
    """Tests response with multiple content types (text, image, resource)."""
    return [
        "Multiple content types test:",
        Image(data=PNG, mime_type="image/png"),
        embedded_text(
            "test://mixed-content-resource",
            "application/json",
            json.dumps({"test": "data", "value": 123}, separators=(",", ":")),
        ),
    ]


@app.tool()
def test_error_handling() -> CallToolResult:
    """Tests error response handling (a tool execution error, not a protocol error)."""
    return CallToolResult(
        content=[
            TextContent(type="text", text="This tool intentionally returns an error for testing")
        ],
        is_error=True,
    )


# -- tools: talking back to the client during a call -------------------------------------------


@app.tool()
async def test_tool_with_logging(ctx: Context) -> str:
    """Tests tool that emits log messages during execution."""
    await ctx.info("Tool execution started")
    await asyncio.sleep(0.05)
    await ctx.info("Tool processing data")
    await asyncio.sleep(0.05)
    await ctx.info("Tool execution completed")
    return "Tool with logging executed successfully"


@app.tool()
async def test_tool_with_progress(ctx: Context) -> str:
    """Tests tool that reports progress notifications."""
    for step in (0, 50, 100):
        await ctx.progress(step, total=100, message=f"Completed step {step} of 100")
        if step < 100:
            await asyncio.sleep(0.05)
    return f"Progress test completed (token: {ctx.progress_token})"


@app.tool()
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Tests server-initiated sampling (LLM completion request)."""
    result = await ctx.sample(prompt, max_tokens=100)
    text = getattr(result.content, "text", None)
    return f"LLM response: {text if text is not None else 'No response'}"


def describe(answer: ElicitationResult[Any]) -> str:
    """The user's elicitation answer, as the tools report it."""
    return f"action={answer.action}, content={json.dumps(answer.content or {})}"


USER_INFO_SCHEMA = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}


@app.tool()
async def test_elicitation(message: str, ctx: Context) -> str:
    """Tests server-initiated elicitation (user input request)."""
    answer = await ctx.elicit(message, USER_INFO_SCHEMA)
    return f"User response: {describe(answer)}"


# SEP-1034: every primitive type may carry a default value.
DEFAULTS_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "User status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
    "required": [],
}


@app.tool()
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Tests elicitation with default values for all primitive types (SEP-1034)."""
    answer = await ctx.elicit(
        "Please review and update the form fields with defaults", DEFAULTS_SCHEMA
    )
    return f"Elicitation completed: {describe(answer)}"


# SEP-1330: single- and multi-select enums, with and without titles.
ENUMS_SCHEMA = {
    "type": "object",
    "properties": {
        "untitledSingle": {
            "type": "string",
            "description": "Select one option",
            "enum": ["option1", "option2", "option3"],
        },
        "titledSingle": {
            "type": "string",
            "description": "Select one option with titles",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "description": "Select one option (legacy)",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "description": "Select multiple options",
            "minItems": 1,
            "maxItems": 3,
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "description": "Select multiple options with titles",
            "minItems": 1,
            "maxItems": 3,
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
    "required": [],
}


@app.tool()
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Tests elicitation with enum schema improvements (SEP-1330)."""
    answer = await ctx.elicit("Please select options from the enum fields", ENUMS_SCHEMA)
    return f"Elicitation completed: {describe(answer)}"


# A JSON Schema 2020-12 input schema must reach clients exactly as written.
JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


@app.tool(input_schema=JSON_SCHEMA_2020_12)
def json_schema_2020_12_tool(arguments: dict[str, Any]) -> str:
    """Tool with JSON Schema 2020-12 features ($defs, $anchor, composition, conditionals)."""
    return f"Received: {json.dumps(arguments)}"


@app.tool()
async def test_reconnection(ctx: Context) -> str:
    """Tests SSE polling: the server closes the stream mid-call, the client resumes it."""
    await asyncio.sleep(0.1)
    ctx.close_sse_stream()  # the client reconnects with Last-Event-ID after `retry` ms
    await asyncio.sleep(0.1)
    return "Reconnection test completed successfully"


# -- resources ---------------------------------------------------------------------------------


@app.resource(
    "test://static-text",
    name="static-text",
    title="Static Text Resource",
    description="A static text resource for testing",
    mime_type="text/plain",
)
def static_text() -> str:
    return "This is the content of the static text resource."


@app.resource(
    "test://static-binary",
    name="static-binary",
    title="Static Binary Resource",
    description="A static binary resource (image) for testing",
    mime_type="image/png",
)
def static_binary() -> bytes:
    return PNG


@app.resource(
    "test://watched-resource",
    name="watched-resource",
    title="Watched Resource",
    description="A resource clients can subscribe to",
    mime_type="text/plain",
)
def watched_resource() -> str:
    return "Watched resource content"


@app.resource(
    "test://template/{id}/data",
    name="template-data",
    title="Template Data Resource",
    description="A resource template with an id parameter",
    mime_type="application/json",
)
def template_data(id: str) -> str:
    return json.dumps(
        {"id": id, "templateTest": True, "data": f"Data for ID: {id}"}, separators=(",", ":")
    )


# -- prompts -----------------------------------------------------------------------------------


@app.prompt()
def test_simple_prompt() -> str:
    """A simple prompt without arguments."""
    return "This is a simple prompt for testing."


@app.prompt()
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with required arguments."""
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@app.prompt()
def test_prompt_with_embedded_resource(resourceUri: str) -> list[object]:
    """A prompt that includes an embedded resource."""
    resource = embedded_text(resourceUri, "text/plain", "Embedded resource content for testing.")
    return [user(resource), user("Please process the embedded resource above.")]


@app.prompt()
def test_prompt_with_image() -> list[object]:
    """A prompt that includes image content."""
    return [user(Image(data=PNG, mime_type="image/png")), user("Please analyze the image above.")]


# -- completion --------------------------------------------------------------------------------


@app.completion(prompt="test_prompt_with_arguments")
def complete_prompt_argument(argument: str, value: str, arguments: dict[str, str]) -> list[str]:
    return [f"{value}{suffix}" for suffix in ("", "-completion")] if value else []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["http", "stdio"], default="http")
    parser.add_argument("--port", type=int, default=3000)
    args = parser.parse_args()
    if args.transport == "stdio":
        app.run("stdio")
    else:
        # `retry` in the priming events tells a client cut off mid-stream when to reconnect.
        app.run("http", host="127.0.0.1", port=args.port, sse_retry_ms=500)


if __name__ == "__main__":
    main()
