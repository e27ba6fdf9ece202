"""The fixture server of the official MCP conformance suite (both eras), in mcpkit.

Every tool, resource and prompt the suite's server scenarios look for, with the exact names,
values and behaviours they expect, on the 2025-11-25 wire (sessions, requests to the
client) and on the stateless 2026-07-28 wire (the same functions: elicitation, sampling and
roots become multi round-trip ``input_required`` results). Written only with mcpkit's public
API, so it doubles as a tour of the server features: content types, logging, progress,
sampling, elicitation, resource templates, subscriptions, completion, SSE polling, caching
hints, ``x-mcp-header`` parameters and list-change notifications.

    python examples/conformance/everything_server.py --transport http --port 3000
    python examples/conformance/everything_server.py --transport stdio

Over HTTP the endpoint is http://localhost:PORT/mcp for both eras (see scripts/conformance.sh).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import wave
from typing import Any

from mcpkit import Audio, Context, Image, McpError, MissingClientCapability, Server
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

# 2026-07-28 caching hints: results may be cached for five minutes, by anyone (the server's
# default, below), a resource's reads only by the client that read it (on the resources).
# A list combines its items' hints, so resources/list and resources/templates/list are
# private too; tools/list, prompts/list and server/discover are public.
LIST_TTL_MS = READ_TTL_MS = 300_000

app = Server(
    "mcp-conformance-test-server", version="1.0.0", ttl_ms=LIST_TTL_MS, cache_scope="public"
)


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


# -- tools: 2026-07-28 diagnostics ------------------------------------------------------------


@app.tool()
async def test_missing_capability(ctx: Context) -> str:
    """Needs the client's sampling capability: -32021 naming it when the request lacks it."""
    if "sampling" not in ctx.client_capabilities:
        raise MissingClientCapability.build({"sampling": {}})
    return "The client declared the sampling capability."


@app.tool()
async def test_streaming_elicitation(ctx: Context) -> str:
    """Streams a progress notification, then the result (never a request to the client)."""
    await ctx.progress(50, total=100, message="Working")
    return "Streaming completed without server-to-client requests."


@app.tool()
async def test_logging_tool(ctx: Context) -> str:
    """Logs once; on 2026-07-28 the message is sent only when the request asked for a level."""
    await ctx.info("test_logging_tool ran")
    return "Logging tool completed."


def _placeholder() -> str:
    """A tool or prompt registered for a moment, to change a list."""
    return "placeholder"


@app.tool()
def test_trigger_tool_change() -> str:
    """Changes the tool list (adds and removes a tool): listeners get tools/list_changed."""
    app.add_tool(_placeholder, name="test_transient_tool")
    app.remove_tool("test_transient_tool")
    return "Tool list changed."


@app.tool()
def test_trigger_prompt_change() -> str:
    """Changes the prompt list (adds and removes a prompt): listeners get
    prompts/list_changed."""
    app.add_prompt(_placeholder, name="test_transient_prompt")
    app.remove_prompt("test_transient_prompt")
    return "Prompt list changed."


# A string parameter the client mirrors into an Mcp-Param-Message header (2026-07-28).
CUSTOM_HEADER_SCHEMA = {
    "type": "object",
    "properties": {
        "message": {
            "type": "string",
            "description": "Echoed back; also sent as the Mcp-Param-Message header",
            "x-mcp-header": "Message",
        }
    },
    "required": ["message"],
}


@app.tool(input_schema=CUSTOM_HEADER_SCHEMA)
def test_custom_header(message: str) -> str:
    """Echoes a parameter that also travels in an HTTP header (x-mcp-header)."""
    return f"Received: {message}"


# -- tools: multi round-trip requests (2026-07-28 input_required results) ----------------------
# The same ctx.elicit / ctx.sample / ctx.list_roots as on the 2025 wire; key= names each
# question (the inputRequests key). Each round runs the tool from the top again, and answered
# questions return at once, so every function below reads top to bottom.

NAME_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "description": "Your name"}},
    "required": ["name"],
}
CONFIRM_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean", "description": "Proceed?"}},
    "required": ["ok"],
}


def _field(answer: ElicitationResult[Any], name: str) -> str:
    return str((answer.content or {}).get(name, "")) if answer.action == "accept" else ""


@app.tool()
async def test_input_required_result_elicitation(ctx: Context) -> str:
    """Asks the user's name (elicitation), then greets them."""
    answer = await ctx.elicit("What is your name?", NAME_SCHEMA, key="user_name")
    if answer.action != "accept":
        return f"No name given (action={answer.action})."
    return f"Hello, {_field(answer, 'name')}!"


@app.tool()
async def test_input_required_result_sampling(ctx: Context) -> str:
    """Asks the client's model a question (sampling), then reports its answer."""
    result = await ctx.sample(
        "What is the capital of France?", max_tokens=100, key="sample_request"
    )
    text = getattr(result.content, "text", None)
    return f"LLM response: {text if text is not None else 'No response'}"


@app.tool()
async def test_input_required_result_list_roots(ctx: Context) -> str:
    """Asks the client's roots, then lists them."""
    roots = await ctx.list_roots(key="roots_request")
    return "Roots: " + ", ".join(str(root.uri) for root in roots)


@app.tool()
async def test_input_required_result_request_state(ctx: Context) -> str:
    """One question whose round travels in requestState; the retry is checked against it."""
    answer = await ctx.elicit("Confirm to continue", CONFIRM_SCHEMA, key="confirm")
    if answer.action != "accept" or not (answer.content or {}).get("ok"):
        return "state-ok: requestState validated, not confirmed"
    return "state-ok: requestState validated"


@app.tool()
async def test_input_required_result_multiple_inputs(ctx: Context) -> str:
    """Three questions in one round: elicitation, sampling and roots at once."""
    answer, sampled, roots = await asyncio.gather(
        ctx.elicit("What is your name?", NAME_SCHEMA, key="user_name"),
        ctx.sample("Write a one-line greeting.", max_tokens=50, key="greeting"),
        ctx.list_roots(key="client_roots"),
    )
    greeting = getattr(sampled.content, "text", "")
    return f"name={_field(answer, 'name')}, greeting={greeting}, roots={len(roots)}"


@app.tool()
async def test_input_required_result_multi_round(ctx: Context) -> str:
    """Two questions in two rounds: the second is asked only after the first is answered."""
    first = await ctx.elicit("Step 1: what is your name?", NAME_SCHEMA, key="step1")
    second = await ctx.elicit("Step 2: confirm to finish", CONFIRM_SCHEMA, key="step2")
    return f"Completed both rounds: step1={first.action}, step2={second.action}"


@app.tool()
async def test_input_required_result_tampered_state(ctx: Context) -> str:
    """Its requestState is sealed (authenticated): a changed one is refused."""
    answer = await ctx.elicit("Confirm to continue", CONFIRM_SCHEMA, key="confirm")
    return f"requestState intact (action={answer.action})"


@app.tool()
async def test_input_required_result_capabilities(ctx: Context) -> str:
    """Asks only for what the request's client capabilities allow."""
    caps = ctx.client_capabilities
    done = []
    if "elicitation" in caps:
        answer = await ctx.elicit("What is your name?", NAME_SCHEMA, key="elicit_input")
        done.append(f"elicitation={answer.action}")
    if "sampling" in caps:
        await ctx.sample("Say hello.", max_tokens=20, key="sample_input")
        done.append("sampling=answered")
    return "Asked within the client's capabilities: " + (", ".join(done) or "nothing")


# -- resources ---------------------------------------------------------------------------------


@app.resource(
    "test://static-text",
    name="static-text",
    title="Static Text Resource",
    description="A static text resource for testing",
    mime_type="text/plain",
    ttl_ms=READ_TTL_MS,
    cache_scope="private",
)
def static_text() -> str:
    return "This is the content of the static text resource."


@app.resource(
    "test://static-binary",
    name="static-binary",
    title="Static Binary Resource",
    description="A static binary resource (image) for testing",
    mime_type="image/png",
    ttl_ms=READ_TTL_MS,
    cache_scope="private",
)
def static_binary() -> bytes:
    return PNG


@app.resource(
    "test://watched-resource",
    name="watched-resource",
    title="Watched Resource",
    description="A resource clients can subscribe to",
    mime_type="text/plain",
    ttl_ms=READ_TTL_MS,
    cache_scope="private",
)
def watched_resource() -> str:
    return "Watched resource content"


@app.resource(
    "test://template/{id}/data",
    name="template-data",
    title="Template Data Resource",
    description="A resource template with an id parameter",
    mime_type="application/json",
    ttl_ms=READ_TTL_MS,
    cache_scope="private",
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


CONTEXT_SCHEMA = {
    "type": "object",
    "properties": {"context": {"type": "string", "description": "Context for the prompt"}},
    "required": ["context"],
}


@app.prompt()
async def test_input_required_result_prompt(ctx: Context) -> str:
    """A prompt that asks the user for context first (2026-07-28: an input_required round)."""
    answer = await ctx.elicit(
        "What context should the prompt use?", CONTEXT_SCHEMA, key="user_context"
    )
    return f"Use this context: {_field(answer, 'context') or '(none given)'}"


# -- the tasks extension (io.modelcontextprotocol/tasks) ------------------------------------------
# The same tools run as 2025-11-25 task-augmented calls for 2025 sessions.

CONFIRM_SCHEMA = {
    "type": "object",
    "properties": {"confirm": {"type": "boolean", "description": "Go ahead?"}},
    "required": ["confirm"],
}
NAME_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "description": "Your name"}},
    "required": ["name"],
}


@app.tool()
def greet(name: str) -> str:
    """Greets by name (never a task)."""
    return f"Hello, {name}!"


@app.tool(task_support="optional")
async def slow_compute(seconds: int, label: str = "job") -> str:
    """Sleeps ``seconds`` then reports; a task for clients that opted in."""
    await asyncio.sleep(seconds)
    return f"{label}: computed after {seconds}s"


@app.tool(task_support="required")
async def failing_job() -> str:
    """Always a task; ends with a tool execution error after about a second."""
    await asyncio.sleep(1)
    raise RuntimeError("the job failed")


@app.tool(task_support="required")
async def protocol_error_job() -> str:
    """Always a task; ends failed with a JSON-RPC error."""
    await asyncio.sleep(0.1)
    raise McpError(-32603, "The job hit an internal error")


@app.tool(task_support="required")
async def confirm_delete(filename: str, ctx: Context) -> str:
    """Asks for confirmation while running as a task (input_required)."""
    answer = await ctx.elicit(f"Delete {filename}?", CONFIRM_SCHEMA)
    confirmed = answer.action == "accept" and bool((answer.content or {}).get("confirm"))
    return f"{filename}: {'deleted' if confirmed else 'kept'}"


@app.tool(task_support="required")
async def multi_input(ctx: Context) -> str:
    """Asks two questions at once while running as a task."""
    first, second = await asyncio.gather(
        ctx.elicit("First answer?", CONFIRM_SCHEMA, key="first"),
        ctx.elicit("Second answer?", CONFIRM_SCHEMA, key="second"),
    )
    return f"answers: {first.action}, {second.action}"


@app.tool(task_support="required", task_start="explicit")
async def test_tool_with_task(ctx: Context) -> str:
    """Asks for a name (an MRTR round), then runs as a task that greets it."""
    answer = await ctx.elicit("What is your name?", NAME_SCHEMA, key="user_name")
    await ctx.start_task()
    await asyncio.sleep(0.2)
    return f"Hello, {_field(answer, 'name') or 'stranger'}! (from a task)"


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
