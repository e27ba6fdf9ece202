"""The protocol types in mcpkit.types against the official MCP JSON schemas.

Every ``$defs`` entry of the 2025-11-25 schema has a model (or type alias); hand-written
wire samples are parsed, dumped again, compared with the original (lossless round trip,
unknown fields included) and the dump is validated against the official definition.
Older revisions' messages are checked against their own schemas.
"""

import copy
import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator
from pydantic import TypeAdapter, ValidationError

import mcpkit.types as t

SCHEMA_DIR = Path(__file__).parent / "schemas"
LATEST = "2025-11-25"
EXTRA_KEY = "x-vendor-extension"
EXTRA_VALUE = {"kept": [1, "two", {"three": True}]}


@cache
def load_schema(version: str) -> dict[str, Any]:
    with open(SCHEMA_DIR / f"{version}.json", encoding="utf-8") as f:
        schema: dict[str, Any] = json.load(f)
    return schema


def definitions(version: str) -> dict[str, Any]:
    schema = load_schema(version)
    defs: dict[str, Any] = schema.get("$defs") or schema["definitions"]
    return defs


@cache
def validator_for(version: str, name: str) -> Draft202012Validator | Draft7Validator:
    """A validator for one definition, resolving refs against the whole schema."""
    schema = load_schema(version)
    if "$defs" in schema:
        return Draft202012Validator({**schema, "$ref": f"#/$defs/{name}"})
    return Draft7Validator({**schema, "$ref": f"#/definitions/{name}"})


def schema_errors(version: str, name: str, instance: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator_for(version, name).iter_errors(instance)
    ]


@cache
def adapter(tp: Any) -> TypeAdapter[Any]:
    return TypeAdapter(tp)


def dump(tp: Any, value: Any) -> Any:
    return adapter(tp).dump_python(value, by_alias=True, exclude_none=True, mode="json")


# --------------------------------------------------------------------------- samples
# Building blocks, reused below. Tests always deep-copy before use.

META = {"io.example/trace-id": "abc123", "note": "free-form"}
REQUEST_META = {"progressToken": "progress-42", "io.example/client": "cli"}
RELATED_TASK_META = {"io.modelcontextprotocol/related-task": {"taskId": "task-7"}}
ICON_PNG = {
    "src": "https://example.com/icon-48.png",
    "mimeType": "image/png",
    "sizes": ["48x48", "96x96"],
    "theme": "light",
}
ICON_SVG = {"src": "data:image/svg+xml;base64,PHN2Zy8+", "sizes": ["any"], "theme": "dark"}
ANNOTATIONS = {
    "audience": ["user", "assistant"],
    "priority": 0.8,
    "lastModified": "2025-01-12T15:00:58Z",
}
TEXT = {"type": "text", "text": "The weather in Paris is sunny, 22°C."}
TEXT_FULL = {
    "type": "text",
    "text": "Build succeeded.",
    "annotations": {"audience": ["user"], "priority": 1},
    "_meta": META,
}
IMAGE = {
    "type": "image",
    "data": (
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
        "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    ),
    "mimeType": "image/png",
    "annotations": ANNOTATIONS,
    "_meta": META,
}
AUDIO = {
    "type": "audio",
    "data": "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=",
    "mimeType": "audio/wav",
    "annotations": {"priority": 0.2},
    "_meta": META,
}
TEXT_CONTENTS = {
    "uri": "file:///project/README.md",
    "mimeType": "text/markdown",
    "text": "# Project\n\nHello.",
    "_meta": META,
}
BLOB_CONTENTS = {
    "uri": "file:///project/logo.png",
    "mimeType": "image/png",
    "blob": "iVBORw0KGgo=",
    "_meta": META,
}
RESOURCE_LINK = {
    "type": "resource_link",
    "uri": "file:///project/src/main.rs",
    "name": "main.rs",
    "title": "Main entry point",
    "description": "The program's entry point",
    "mimeType": "text/x-rust",
    "size": 2048,
    "annotations": ANNOTATIONS,
    "icons": [ICON_PNG],
    "_meta": META,
}
EMBEDDED_TEXT = {
    "type": "resource",
    "resource": TEXT_CONTENTS,
    "annotations": {"audience": ["assistant"]},
    "_meta": META,
}
EMBEDDED_BLOB = {"type": "resource", "resource": BLOB_CONTENTS}
TOOL_USE = {
    "type": "tool_use",
    "id": "toolu_01A09q90qw90lq917835lq9",
    "name": "get_weather",
    "input": {"city": "Paris", "units": "metric", "days": None},
    "_meta": META,
}
TOOL_RESULT = {
    "type": "tool_result",
    "toolUseId": "toolu_01A09q90qw90lq917835lq9",
    "content": [TEXT, RESOURCE_LINK],
    "structuredContent": {"temperature": 22, "conditions": "sunny", "wind": None},
    "isError": False,
    "_meta": {"cache": "ephemeral"},
}
TASK_WORKING = {
    "taskId": "786512e2-9e0d-44bd-8f29-789f320fe840",
    "status": "working",
    "statusMessage": "Fetching forecast",
    "createdAt": "2025-11-25T10:30:00Z",
    "lastUpdatedAt": "2025-11-25T10:40:00Z",
    "ttl": 60000,
    "pollInterval": 5000,
}
TASK_UNLIMITED = {
    "taskId": "task-7",
    "status": "input_required",
    "createdAt": "2025-11-25T10:30:00Z",
    "lastUpdatedAt": "2025-11-25T10:31:00Z",
    "ttl": None,
}
TASK_DONE = {
    "taskId": "task-8",
    "status": "completed",
    "statusMessage": "Done",
    "createdAt": "2025-11-25T10:30:00Z",
    "lastUpdatedAt": "2025-11-25T10:35:00Z",
    "ttl": 300000,
}
TASK_CANCELLED = {**TASK_DONE, "status": "cancelled", "statusMessage": "Cancelled by user"}
INPUT_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
    },
    "required": ["city"],
    "additionalProperties": False,
}
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {"temperature": {"type": "number"}, "conditions": {"type": "string"}},
    "required": ["temperature", "conditions"],
}
TOOL = {
    "name": "get_weather",
    "title": "Weather Information",
    "description": "Get current weather information for a location",
    "inputSchema": INPUT_SCHEMA,
    "outputSchema": OUTPUT_SCHEMA,
    "annotations": {
        "title": "Weather",
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": True,
    },
    "execution": {"taskSupport": "optional"},
    "icons": [ICON_PNG, ICON_SVG],
    "_meta": META,
}
TOOL_MINIMAL = {"name": "ping_db", "inputSchema": {"type": "object"}}
IMPLEMENTATION = {
    "name": "mcpkit-example-server",
    "title": "Example Server",
    "version": "1.4.0",
    "description": "Serves weather and files",
    "websiteUrl": "https://example.com/mcp",
    "icons": [ICON_PNG],
}
CLIENT_CAPS = {
    "experimental": {"io.example/feature": {"level": 2}},
    "roots": {"listChanged": True},
    "sampling": {"context": {}, "tools": {}},
    "elicitation": {"form": {}, "url": {}},
    "tasks": {
        "list": {},
        "cancel": {},
        "requests": {
            "sampling": {"createMessage": {}},
            "elicitation": {"create": {}},
        },
    },
}
SERVER_CAPS = {
    "experimental": {"io.example/streaming": {}},
    "logging": {},
    "completions": {},
    "prompts": {"listChanged": True},
    "resources": {"subscribe": True, "listChanged": False},
    "tools": {"listChanged": True},
    "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
}
RESOURCE = {
    "uri": "file:///project/README.md",
    "name": "README.md",
    "title": "Project README",
    "description": "Top-level documentation",
    "mimeType": "text/markdown",
    "size": 1024,
    "annotations": ANNOTATIONS,
    "icons": [ICON_SVG],
    "_meta": META,
}
RESOURCE_TEMPLATE = {
    "uriTemplate": "file:///project/{path}",
    "name": "project-files",
    "title": "Project Files",
    "description": "Any file in the project",
    "mimeType": "application/octet-stream",
    "annotations": {"audience": ["assistant"]},
    "icons": [ICON_PNG],
    "_meta": META,
}
PROMPT = {
    "name": "code_review",
    "title": "Request Code Review",
    "description": "Asks the LLM to analyze code quality and suggest improvements",
    "arguments": [
        {"name": "code", "title": "Code", "description": "The code to review", "required": True},
        {"name": "style"},
    ],
    "icons": [ICON_PNG],
    "_meta": META,
}
ROOT = {"uri": "file:///home/user/projects/frontend", "name": "Frontend", "_meta": META}
MODEL_PREFERENCES = {
    "hints": [{"name": "claude-3-sonnet"}, {"name": "claude"}, {}],
    "costPriority": 0.3,
    "speedPriority": 0.8,
    "intelligencePriority": 0.5,
}
STRING_SCHEMA = {
    "type": "string",
    "title": "Email",
    "description": "Your email address",
    "minLength": 3,
    "maxLength": 254,
    "format": "email",
    "default": "user@example.com",
}
NUMBER_SCHEMA = {
    "type": "integer",
    "title": "Age",
    "description": "Age in years",
    "minimum": 0,
    "maximum": 150,
    "default": 30,
}
FLOAT_SCHEMA = {"type": "number", "minimum": 0.5, "maximum": 9.5, "default": 1.5}
BOOLEAN_SCHEMA = {
    "type": "boolean",
    "title": "Subscribe",
    "description": "Receive the newsletter",
    "default": False,
}
UNTITLED_SINGLE = {
    "type": "string",
    "title": "Color",
    "description": "Pick a color",
    "enum": ["red", "green", "blue"],
    "default": "red",
}
TITLED_SINGLE = {
    "type": "string",
    "title": "Color",
    "description": "Pick a color",
    "oneOf": [
        {"const": "#FF0000", "title": "Red"},
        {"const": "#00FF00", "title": "Green"},
    ],
    "default": "#FF0000",
}
UNTITLED_MULTI = {
    "type": "array",
    "title": "Colors",
    "description": "Pick colors",
    "minItems": 1,
    "maxItems": 2,
    "items": {"type": "string", "enum": ["red", "green", "blue"]},
    "default": ["red", "green"],
}
TITLED_MULTI = {
    "type": "array",
    "title": "Colors",
    "description": "Pick colors",
    "minItems": 1,
    "maxItems": 2,
    "items": {
        "anyOf": [
            {"const": "#FF0000", "title": "Red"},
            {"const": "#00FF00", "title": "Green"},
        ]
    },
    "default": ["#00FF00"],
}
LEGACY_ENUM = {
    "type": "string",
    "title": "Size",
    "description": "Pick a size",
    "enum": ["s", "m", "l"],
    "enumNames": ["Small", "Medium", "Large"],
    "default": "m",
}
REQUESTED_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "email": STRING_SCHEMA,
        "age": NUMBER_SCHEMA,
        "ratio": FLOAT_SCHEMA,
        "subscribe": BOOLEAN_SCHEMA,
        "color": UNTITLED_SINGLE,
        "hex": TITLED_SINGLE,
        "colors": UNTITLED_MULTI,
        "hexes": TITLED_MULTI,
        "size": LEGACY_ENUM,
        "nickname": {"type": "string"},
    },
    "required": ["email", "age"],
}
FORM_PARAMS = {
    "mode": "form",
    "message": "Please provide your contact information",
    "requestedSchema": REQUESTED_SCHEMA,
    "task": {"ttl": 600000},
    "_meta": REQUEST_META,
}
FORM_PARAMS_NO_MODE = {
    "message": "Please provide your GitHub username",
    "requestedSchema": {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
    },
}
URL_PARAMS = {
    "mode": "url",
    "elicitationId": "550e8400-e29b-41d4-a716-446655440000",
    "url": "https://mcp.example.com/ui/set_api_key",
    "message": "Please provide your API key to continue.",
    "task": {},
    "_meta": REQUEST_META,
}
SAMPLING_MESSAGES = [
    {"role": "user", "content": {"type": "text", "text": "What's the weather in Paris?"}},
    {"role": "assistant", "content": [TOOL_USE]},
    {"role": "user", "content": [TOOL_RESULT], "_meta": META},
    {"role": "user", "content": [IMAGE, AUDIO, TEXT_FULL]},
]
CREATE_MESSAGE_PARAMS = {
    "messages": SAMPLING_MESSAGES,
    "modelPreferences": MODEL_PREFERENCES,
    "systemPrompt": "You are a helpful assistant.",
    "includeContext": "thisServer",
    "temperature": 0.7,
    "maxTokens": 1000,
    "stopSequences": ["\n\nHuman:"],
    "metadata": {"provider": "anthropic", "nested": {"k": [1, 2]}},
    "tools": [TOOL, TOOL_MINIMAL],
    "toolChoice": {"mode": "auto"},
    "task": {"ttl": 30000},
    "_meta": REQUEST_META,
}
CALL_TOOL_PARAMS = {
    "name": "get_weather",
    "arguments": {"city": "Paris", "days": 3, "extra": None},
    "task": {"ttl": 60000},
    "_meta": {**REQUEST_META, **RELATED_TASK_META},
}
CALL_TOOL_RESULT = {
    "content": [TEXT_FULL, IMAGE, AUDIO, RESOURCE_LINK, EMBEDDED_TEXT, EMBEDDED_BLOB],
    "structuredContent": {"temperature": 22.5, "conditions": "sunny"},
    "isError": False,
    "_meta": META,
}
COMPLETE_PARAMS = {
    "ref": {"type": "ref/prompt", "name": "code_review", "title": "Code Review"},
    "argument": {"name": "language", "value": "py"},
    "context": {"arguments": {"framework": "flask"}},
    "_meta": REQUEST_META,
}
INIT_PARAMS = {
    "protocolVersion": "2025-11-25",
    "capabilities": CLIENT_CAPS,
    "clientInfo": {**IMPLEMENTATION, "name": "example-client"},
    "_meta": REQUEST_META,
}
INIT_RESULT = {
    "protocolVersion": "2025-11-25",
    "capabilities": SERVER_CAPS,
    "serverInfo": IMPLEMENTATION,
    "instructions": "Use get_weather for forecasts.",
    "_meta": META,
}
LOG_PARAMS = {
    "level": "error",
    "logger": "database",
    "data": {"error": "Connection failed", "details": {"host": "localhost", "port": 5432}},
    "_meta": META,
}
PROGRESS_PARAMS = {
    "progressToken": "progress-42",
    "progress": 50,
    "total": 100,
    "message": "Reticulating splines...",
    "_meta": META,
}
ERROR = {"code": -32602, "message": "Unknown tool: invalid_tool_name", "data": {"tool": "x"}}
URL_ELICITATION_ERROR = {
    "code": -32042,
    "message": "This request requires more information.",
    "data": {
        "elicitations": [
            {
                "mode": "url",
                "elicitationId": "550e8400-e29b-41d4-a716-446655440000",
                "url": "https://mcp.example.com/connect?elicitationId=550e8400",
                "message": "Authorization is required to access your Example Co files.",
            }
        ],
        "retryAfter": 5,
    },
}


def req(method: str, params: Any = None, id: Any = 1) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def note(method: str, params: Any = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return msg


# Samples per 2025-11-25 ``$defs`` name. Unions without an entry use their members' samples.
SAMPLES: dict[str, list[Any]] = {
    # -- scalars / literals
    "RequestId": ["req-1", 42, 0],
    "ProgressToken": ["progress-42", 7],
    "Cursor": ["eyJwYWdlIjogMn0="],
    "Role": ["user", "assistant"],
    "LoggingLevel": [
        "debug",
        "info",
        "notice",
        "warning",
        "error",
        "critical",
        "alert",
        "emergency",
    ],
    "TaskStatus": ["working", "input_required", "completed", "failed", "cancelled"],
    # -- base shapes
    "BaseMetadata": [{"name": "weather"}, {"name": "weather", "title": "Weather"}],
    "Icon": [ICON_PNG, ICON_SVG, {"src": "https://example.com/i.svg"}],
    "Icons": [{"icons": [ICON_PNG, ICON_SVG]}, {}],
    "Annotations": [ANNOTATIONS, {}, {"priority": 0}],
    "Request": [
        {"method": "tools/list"},
        {"method": "custom/op", "params": {"_meta": REQUEST_META, "x": [1, None]}},
    ],
    "Notification": [
        {"method": "notifications/initialized"},
        {"method": "custom/event", "params": {"_meta": META, "value": 3}},
    ],
    "RequestParams": [{}, {"_meta": REQUEST_META}, {"_meta": {"progressToken": 5}}],
    "NotificationParams": [{}, {"_meta": META}],
    "PaginatedRequestParams": [{}, {"cursor": "abc", "_meta": REQUEST_META}],
    "TaskAugmentedRequestParams": [{}, {"task": {"ttl": 1000}, "_meta": REQUEST_META}],
    "ResourceRequestParams": [{"uri": "file:///a.txt", "_meta": REQUEST_META}],
    "Result": [{}, {"_meta": META}, {"_meta": META, "anything": {"goes": [1, 2]}}],
    "EmptyResult": [{}, {"_meta": META}],
    "PaginatedResult": [{}, {"nextCursor": "page-3", "_meta": META}],
    "PaginatedRequest": [
        req("resources/list", {"cursor": "page-2"}),
        req("tools/list", id="abc"),
    ],
    # -- JSON-RPC
    "JSONRPCRequest": [
        req("tools/call", {"name": "x", "arguments": {}}),
        req("ping", id="p-1"),
        req("custom/method", {"_meta": REQUEST_META, "free": "form"}),
    ],
    "JSONRPCNotification": [
        note("notifications/initialized"),
        note("notifications/progress", PROGRESS_PARAMS),
    ],
    "JSONRPCResultResponse": [
        {"jsonrpc": "2.0", "id": 1, "result": {}},
        {"jsonrpc": "2.0", "id": "a", "result": CALL_TOOL_RESULT},
    ],
    "JSONRPCErrorResponse": [
        {"jsonrpc": "2.0", "id": 3, "error": ERROR},
        {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}},
        {"jsonrpc": "2.0", "id": 4, "error": {"code": -32603, "message": "boom", "data": None}},
    ],
    "Error": [
        ERROR,
        {"code": -32601, "message": "Method not found"},
        {"code": -32603, "message": "Internal error", "data": None},
        {"code": -32002, "message": "Resource not found", "data": "file:///x"},
    ],
    "URLElicitationRequiredError": [
        {"jsonrpc": "2.0", "id": 2, "error": URL_ELICITATION_ERROR},
        {"jsonrpc": "2.0", "error": {**URL_ELICITATION_ERROR, "data": {"elicitations": []}}},
    ],
    # -- lifecycle
    "Implementation": [IMPLEMENTATION, {"name": "tiny", "version": "0.0.1"}],
    "ClientCapabilities": [CLIENT_CAPS, {}, {"sampling": {}, "elicitation": {}}],
    "ServerCapabilities": [SERVER_CAPS, {}, {"tools": {}}],
    "InitializeRequestParams": [INIT_PARAMS],
    "InitializeRequest": [req("initialize", INIT_PARAMS, id=0)],
    "InitializeResult": [
        INIT_RESULT,
        {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": IMPLEMENTATION},
    ],
    "InitializedNotification": [
        note("notifications/initialized"),
        note("notifications/initialized", {"_meta": META}),
    ],
    # -- utilities
    "PingRequest": [req("ping"), req("ping", {"_meta": REQUEST_META}, id="ping-9")],
    "ProgressNotificationParams": [PROGRESS_PARAMS, {"progressToken": 7, "progress": 0.25}],
    "ProgressNotification": [note("notifications/progress", PROGRESS_PARAMS)],
    "CancelledNotificationParams": [
        {"requestId": "123", "reason": "User requested cancellation", "_meta": META},
        {"requestId": 5},
        {},
    ],
    "CancelledNotification": [
        note("notifications/cancelled", {"requestId": 123, "reason": "timeout"}),
    ],
    # -- content
    "TextContent": [TEXT, TEXT_FULL],
    "ImageContent": [IMAGE, {"type": "image", "data": "AAAA", "mimeType": "image/jpeg"}],
    "AudioContent": [AUDIO, {"type": "audio", "data": "AAAA", "mimeType": "audio/mpeg"}],
    "ResourceLink": [RESOURCE_LINK, {"type": "resource_link", "uri": "https://x.y/z", "name": "z"}],
    "EmbeddedResource": [EMBEDDED_TEXT, EMBEDDED_BLOB],
    "ResourceContents": [
        {"uri": "file:///a", "mimeType": "text/plain", "_meta": META},
        {"uri": "file:///b"},
    ],
    "TextResourceContents": [TEXT_CONTENTS, {"uri": "file:///a.txt", "text": ""}],
    "BlobResourceContents": [BLOB_CONTENTS, {"uri": "file:///a.bin", "blob": "AA=="}],
    "ToolUseContent": [TOOL_USE, {"type": "tool_use", "id": "t1", "name": "x", "input": {}}],
    "ToolResultContent": [
        TOOL_RESULT,
        {"type": "tool_result", "toolUseId": "t1", "content": [], "isError": True},
    ],
    # -- tools
    "ToolAnnotations": [TOOL["annotations"], {}],
    "ToolExecution": [
        {"taskSupport": "forbidden"},
        {"taskSupport": "optional"},
        {"taskSupport": "required"},
        {},
    ],
    "Tool": [TOOL, TOOL_MINIMAL],
    "ListToolsRequest": [req("tools/list"), req("tools/list", {"cursor": "c2"})],
    "ListToolsResult": [{"tools": [TOOL, TOOL_MINIMAL], "nextCursor": "c3", "_meta": META}],
    "CallToolRequestParams": [CALL_TOOL_PARAMS, {"name": "noop"}],
    "CallToolRequest": [req("tools/call", CALL_TOOL_PARAMS, id="call-1")],
    "CallToolResult": [
        CALL_TOOL_RESULT,
        {"content": [{"type": "text", "text": "Invalid date"}], "isError": True},
        {"content": [], "structuredContent": {"rows": [], "total": 0}},
    ],
    "ToolListChangedNotification": [
        note("notifications/tools/list_changed"),
        note("notifications/tools/list_changed", {"_meta": META}),
    ],
    # -- resources
    "Resource": [RESOURCE, {"uri": "file:///x", "name": "x"}],
    "ResourceTemplate": [RESOURCE_TEMPLATE, {"uriTemplate": "db://{table}", "name": "tables"}],
    "ListResourcesRequest": [req("resources/list"), req("resources/list", {"cursor": "c"})],
    "ListResourcesResult": [{"resources": [RESOURCE], "nextCursor": "n"}, {"resources": []}],
    "ListResourceTemplatesRequest": [req("resources/templates/list")],
    "ListResourceTemplatesResult": [{"resourceTemplates": [RESOURCE_TEMPLATE], "_meta": META}],
    "ReadResourceRequestParams": [{"uri": "file:///project/README.md", "_meta": REQUEST_META}],
    "ReadResourceRequest": [req("resources/read", {"uri": "file:///project/README.md"})],
    "ReadResourceResult": [
        {"contents": [TEXT_CONTENTS, BLOB_CONTENTS], "_meta": META},
        {"contents": []},
    ],
    "SubscribeRequestParams": [{"uri": "file:///project/README.md"}],
    "SubscribeRequest": [req("resources/subscribe", {"uri": "file:///project/README.md"})],
    "UnsubscribeRequestParams": [{"uri": "file:///project/README.md", "_meta": REQUEST_META}],
    "UnsubscribeRequest": [req("resources/unsubscribe", {"uri": "file:///project/README.md"})],
    "ResourceListChangedNotification": [note("notifications/resources/list_changed")],
    "ResourceUpdatedNotificationParams": [{"uri": "file:///project/README.md", "_meta": META}],
    "ResourceUpdatedNotification": [
        note("notifications/resources/updated", {"uri": "file:///project/README.md"}),
    ],
    # -- prompts
    "PromptArgument": [PROMPT["arguments"][0], {"name": "x"}],
    "Prompt": [PROMPT, {"name": "simple"}],
    "PromptMessage": [
        {"role": "user", "content": TEXT},
        {"role": "assistant", "content": IMAGE},
        {"role": "user", "content": AUDIO},
        {"role": "user", "content": RESOURCE_LINK},
        {"role": "user", "content": EMBEDDED_TEXT},
    ],
    "ListPromptsRequest": [req("prompts/list", {"cursor": "p2", "_meta": REQUEST_META})],
    "ListPromptsResult": [{"prompts": [PROMPT], "nextCursor": "p3"}],
    "GetPromptRequestParams": [
        {"name": "code_review", "arguments": {"code": "def hello(): pass"}},
        {"name": "plain"},
    ],
    "GetPromptRequest": [req("prompts/get", {"name": "code_review", "arguments": {"code": "x"}})],
    "GetPromptResult": [
        {
            "description": "Code review prompt",
            "messages": [
                {"role": "user", "content": TEXT},
                {"role": "user", "content": EMBEDDED_BLOB},
            ],
            "_meta": META,
        }
    ],
    "PromptListChangedNotification": [note("notifications/prompts/list_changed")],
    # -- completion
    "PromptReference": [{"type": "ref/prompt", "name": "code_review", "title": "Review"}],
    "ResourceTemplateReference": [{"type": "ref/resource", "uri": "file:///{path}"}],
    "CompleteRequestParams": [
        COMPLETE_PARAMS,
        {
            "ref": {"type": "ref/resource", "uri": "file:///{path}"},
            "argument": {"name": "path", "value": "src/"},
        },
    ],
    "CompleteRequest": [req("completion/complete", COMPLETE_PARAMS)],
    "CompleteResult": [
        {"completion": {"values": ["python", "pytorch"], "total": 10, "hasMore": True}},
        {"completion": {"values": []}, "_meta": META},
    ],
    # -- logging
    "SetLevelRequestParams": [{"level": "info"}, {"level": "debug", "_meta": REQUEST_META}],
    "SetLevelRequest": [req("logging/setLevel", {"level": "warning"})],
    "LoggingMessageNotificationParams": [
        LOG_PARAMS,
        {"level": "debug", "data": "plain string"},
        {"level": "info", "data": None},
        {"level": "notice", "data": [1, 2, 3]},
    ],
    "LoggingMessageNotification": [note("notifications/message", LOG_PARAMS)],
    # -- sampling
    "ModelHint": [{"name": "claude-3-5-sonnet"}, {}],
    "ModelPreferences": [MODEL_PREFERENCES, {}],
    "ToolChoice": [{"mode": "auto"}, {"mode": "required"}, {"mode": "none"}, {}],
    "SamplingMessage": SAMPLING_MESSAGES,
    "CreateMessageRequestParams": [
        CREATE_MESSAGE_PARAMS,
        {"messages": [SAMPLING_MESSAGES[0]], "maxTokens": 100},
    ],
    "CreateMessageRequest": [req("sampling/createMessage", CREATE_MESSAGE_PARAMS)],
    "CreateMessageResult": [
        {
            "role": "assistant",
            "content": {"type": "text", "text": "It is sunny in Paris."},
            "model": "claude-3-sonnet-20240307",
            "stopReason": "endTurn",
            "_meta": META,
        },
        {
            "role": "assistant",
            "content": [TEXT, TOOL_USE],
            "model": "claude-3-sonnet-20240307",
            "stopReason": "toolUse",
        },
    ],
    # -- elicitation
    "StringSchema": [STRING_SCHEMA, {"type": "string"}, {"type": "string", "format": "date"}],
    "NumberSchema": [NUMBER_SCHEMA, FLOAT_SCHEMA, {"type": "number"}],
    "BooleanSchema": [BOOLEAN_SCHEMA, {"type": "boolean"}],
    "UntitledSingleSelectEnumSchema": [UNTITLED_SINGLE, {"type": "string", "enum": ["a"]}],
    "TitledSingleSelectEnumSchema": [TITLED_SINGLE],
    "UntitledMultiSelectEnumSchema": [UNTITLED_MULTI],
    "TitledMultiSelectEnumSchema": [TITLED_MULTI],
    "LegacyTitledEnumSchema": [LEGACY_ENUM, {"type": "string", "enum": ["a", "b"]}],
    "ElicitRequestFormParams": [FORM_PARAMS, FORM_PARAMS_NO_MODE],
    "ElicitRequestURLParams": [URL_PARAMS],
    "ElicitRequest": [
        req("elicitation/create", FORM_PARAMS),
        req("elicitation/create", URL_PARAMS, id="e-2"),
        req("elicitation/create", FORM_PARAMS_NO_MODE, id=3),
    ],
    "ElicitResult": [
        {
            "action": "accept",
            "content": {
                "email": "a@b.c",
                "age": 30,
                "subscribe": True,
                "colors": ["red", "blue"],
            },
            "_meta": META,
        },
        {"action": "decline"},
        {"action": "cancel"},
        {"action": "accept"},
    ],
    "ElicitationCompleteNotification": [
        note(
            "notifications/elicitation/complete",
            {"elicitationId": "550e8400-e29b-41d4-a716-446655440000", "_meta": META},
        )
    ],
    # -- roots
    "Root": [ROOT, {"uri": "file:///tmp"}],
    "ListRootsRequest": [req("roots/list"), req("roots/list", {"_meta": REQUEST_META})],
    "ListRootsResult": [{"roots": [ROOT, {"uri": "file:///tmp"}]}, {"roots": []}],
    "RootsListChangedNotification": [note("notifications/roots/list_changed")],
    # -- tasks
    "TaskMetadata": [{"ttl": 60000}, {}],
    "RelatedTaskMetadata": [{"taskId": "task-7"}],
    "Task": [TASK_WORKING, TASK_UNLIMITED, TASK_DONE, TASK_CANCELLED],
    "CreateTaskResult": [
        {
            "task": TASK_WORKING,
            "_meta": {"io.modelcontextprotocol/model-immediate-response": "Working on it"},
        },
        {"task": TASK_UNLIMITED},
    ],
    "GetTaskRequest": [req("tasks/get", {"taskId": "task-7"})],
    "GetTaskResult": [
        {**TASK_WORKING, "_meta": RELATED_TASK_META},
        TASK_UNLIMITED,
        {**TASK_DONE, "status": "failed", "statusMessage": "Tool crashed"},
    ],
    "GetTaskPayloadRequest": [req("tasks/result", {"taskId": "task-8"})],
    "GetTaskPayloadResult": [
        {**CALL_TOOL_RESULT, "_meta": RELATED_TASK_META},
        {"action": "accept", "content": {"name": "x"}},
        {},
    ],
    "CancelTaskRequest": [req("tasks/cancel", {"taskId": "task-8"})],
    "CancelTaskResult": [TASK_CANCELLED, {**TASK_CANCELLED, "_meta": META}],
    "ListTasksRequest": [req("tasks/list"), req("tasks/list", {"cursor": "t2"})],
    "ListTasksResult": [
        {"tasks": [TASK_WORKING, TASK_UNLIMITED], "nextCursor": "t3"},
        {"tasks": []},
    ],
    "TaskStatusNotificationParams": [
        {**TASK_DONE, "_meta": META},
        TASK_UNLIMITED,
    ],
    "TaskStatusNotification": [
        note("notifications/tasks/status", TASK_DONE),
        note("notifications/tasks/status", TASK_UNLIMITED),
    ],
}


def samples_for(name: str) -> list[Any]:
    """Samples of a definition; unions and plain refs fall back to their members' samples."""
    if name in SAMPLES:
        return copy.deepcopy(SAMPLES[name])
    definition = definitions(LATEST)[name]
    refs = [m["$ref"] for m in definition.get("anyOf", []) if "$ref" in m]
    if "$ref" in definition:
        refs = [definition["$ref"]]
    out: list[Any] = []
    for ref in refs:
        out.extend(samples_for(ref.rsplit("/", 1)[-1]))
    return out


ALL_DEFS = sorted(definitions(LATEST))


# ----------------------------------------------------------------------------- tests


def test_registry_covers_every_schema_definition() -> None:
    missing = [name for name in ALL_DEFS if name not in t.SCHEMA_DEFS]
    assert not missing, f"schema definitions without a type in SCHEMA_DEFS: {missing}"
    unknown = sorted(set(t.SCHEMA_DEFS) - set(ALL_DEFS))
    assert not unknown, f"SCHEMA_DEFS entries that are not schema definitions: {unknown}"
    assert t.model_for_def("CallToolResult") is t.CallToolResult
    with pytest.raises(KeyError):
        t.model_for_def("NoSuchThing")


def test_every_definition_has_samples() -> None:
    empty = [name for name in ALL_DEFS if not samples_for(name)]
    assert not empty, f"definitions without samples: {empty}"


def test_samples_are_valid_against_the_schema() -> None:
    """Guards the test data itself: every hand-written sample is valid on the wire."""
    bad = {
        name: errors
        for name in ALL_DEFS
        for sample in samples_for(name)
        if (errors := schema_errors(LATEST, name, sample))
    }
    assert not bad, bad


def _round_trip(name: str, sample: Any) -> None:
    tp = t.SCHEMA_DEFS[name]
    parsed = adapter(tp).validate_python(copy.deepcopy(sample))
    wire = dump(tp, parsed)
    assert wire == sample, f"{name}: round trip changed the message"
    errors = schema_errors(LATEST, name, wire)
    assert not errors, f"{name}: dump is not valid against the schema: {errors}"
    if isinstance(parsed, t.McpModel):
        assert parsed.to_wire() == wire
        assert type(parsed).from_wire(wire).to_wire() == wire


@pytest.mark.parametrize("name", ALL_DEFS)
def test_round_trip_and_schema_valid(name: str) -> None:
    for sample in samples_for(name):
        _round_trip(name, sample)


@pytest.mark.parametrize("name", ALL_DEFS)
def test_unknown_fields_survive_round_trip(name: str) -> None:
    samples = [s for s in samples_for(name) if isinstance(s, dict)]
    if not samples and name in ("RequestId", "ProgressToken", "Cursor", "Role"):
        return
    if not samples:
        assert name in ("LoggingLevel", "TaskStatus"), f"{name} has no object samples"
        return
    for sample in samples:
        _round_trip(name, {**sample, EXTRA_KEY: copy.deepcopy(EXTRA_VALUE)})


def test_nested_unknown_fields_survive() -> None:
    msg = req(
        "tools/call",
        {
            "name": "x",
            "arguments": {"a": None},
            "_meta": {"progressToken": 1, "vendor": {"x": 1}},
            "futureParam": [1, 2],
        },
    )
    msg["futureEnvelopeField"] = "kept"
    parsed = t.parse_client_request(msg)
    assert isinstance(parsed, t.CallToolRequest)
    assert parsed.to_wire() == msg
    assert parsed.params.model_extra == {"futureParam": [1, 2]}
    assert parsed.params.meta is not None
    assert parsed.params.meta.progress_token == 1
    result = {
        "content": [{"type": "text", "text": "x", "futureBlockField": {"deep": True}}],
        "futureResultField": 1,
    }
    assert t.CallToolResult.from_wire(result).to_wire() == result


# ------------------------------------------------------------------ union dispatch


@pytest.mark.parametrize(
    ("union", "sample", "expected"),
    [
        ("ContentBlock", TEXT, t.TextContent),
        ("ContentBlock", IMAGE, t.ImageContent),
        ("ContentBlock", AUDIO, t.AudioContent),
        ("ContentBlock", RESOURCE_LINK, t.ResourceLink),
        ("ContentBlock", EMBEDDED_BLOB, t.EmbeddedResource),
        ("SamplingMessageContentBlock", TOOL_USE, t.ToolUseContent),
        ("SamplingMessageContentBlock", TOOL_RESULT, t.ToolResultContent),
        ("PrimitiveSchemaDefinition", STRING_SCHEMA, t.StringSchema),
        ("PrimitiveSchemaDefinition", NUMBER_SCHEMA, t.NumberSchema),
        ("PrimitiveSchemaDefinition", FLOAT_SCHEMA, t.NumberSchema),
        ("PrimitiveSchemaDefinition", BOOLEAN_SCHEMA, t.BooleanSchema),
        ("PrimitiveSchemaDefinition", UNTITLED_SINGLE, t.UntitledSingleSelectEnumSchema),
        ("PrimitiveSchemaDefinition", TITLED_SINGLE, t.TitledSingleSelectEnumSchema),
        ("PrimitiveSchemaDefinition", UNTITLED_MULTI, t.UntitledMultiSelectEnumSchema),
        ("PrimitiveSchemaDefinition", TITLED_MULTI, t.TitledMultiSelectEnumSchema),
        ("PrimitiveSchemaDefinition", LEGACY_ENUM, t.LegacyTitledEnumSchema),
        ("EnumSchema", LEGACY_ENUM, t.LegacyTitledEnumSchema),
        ("SingleSelectEnumSchema", TITLED_SINGLE, t.TitledSingleSelectEnumSchema),
        ("MultiSelectEnumSchema", UNTITLED_MULTI, t.UntitledMultiSelectEnumSchema),
        ("ElicitRequestParams", URL_PARAMS, t.ElicitRequestURLParams),
        ("ElicitRequestParams", FORM_PARAMS, t.ElicitRequestFormParams),
        ("ElicitRequestParams", FORM_PARAMS_NO_MODE, t.ElicitRequestFormParams),
        ("JSONRPCMessage", req("ping"), t.JSONRPCRequest),
        ("JSONRPCMessage", note("notifications/initialized"), t.JSONRPCNotification),
        ("JSONRPCMessage", {"jsonrpc": "2.0", "id": 1, "result": {}}, t.JSONRPCResultResponse),
        ("JSONRPCMessage", {"jsonrpc": "2.0", "error": ERROR}, t.JSONRPCErrorResponse),
        ("JSONRPCResponse", {"jsonrpc": "2.0", "id": 1, "error": ERROR}, t.JSONRPCErrorResponse),
        ("ClientRequest", req("tools/call", CALL_TOOL_PARAMS), t.CallToolRequest),
        ("ClientRequest", req("tasks/cancel", {"taskId": "t"}), t.CancelTaskRequest),
        ("ClientRequest", req("ping"), t.PingRequest),
        ("ServerRequest", req("ping"), t.PingRequest),
        ("ServerRequest", req("elicitation/create", URL_PARAMS), t.ElicitRequest),
        (
            "ServerRequest",
            req("sampling/createMessage", CREATE_MESSAGE_PARAMS),
            t.CreateMessageRequest,
        ),
        (
            "ClientNotification",
            note("notifications/roots/list_changed"),
            t.RootsListChangedNotification,
        ),
        (
            "ClientNotification",
            note("notifications/tasks/status", TASK_DONE),
            t.TaskStatusNotification,
        ),
        (
            "ServerNotification",
            note("notifications/message", LOG_PARAMS),
            t.LoggingMessageNotification,
        ),
        (
            "ServerNotification",
            note("notifications/progress", PROGRESS_PARAMS),
            t.ProgressNotification,
        ),
        ("ServerResult", CALL_TOOL_RESULT, t.CallToolResult),
        ("ServerResult", INIT_RESULT, t.InitializeResult),
        ("ServerResult", {"tools": [TOOL]}, t.ListToolsResult),
        ("ServerResult", {"task": TASK_WORKING}, t.CreateTaskResult),
        ("ServerResult", TASK_DONE, t.GetTaskResult),
        ("ServerResult", {"completion": {"values": []}}, t.CompleteResult),
        ("ServerResult", {}, t.Result),
        ("ClientResult", {"action": "decline"}, t.ElicitResult),
        ("ClientResult", {"roots": []}, t.ListRootsResult),
        (
            "ClientResult",
            {"role": "assistant", "content": TEXT, "model": "m"},
            t.CreateMessageResult,
        ),
        ("ClientResult", {"_meta": META}, t.Result),
    ],
)
def test_union_dispatch(union: str, sample: dict[str, Any], expected: type) -> None:
    parsed = adapter(t.SCHEMA_DEFS[union]).validate_python(copy.deepcopy(sample))
    assert type(parsed) is expected
    assert dump(t.SCHEMA_DEFS[union], parsed) == sample


def test_parse_helpers() -> None:
    assert isinstance(t.parse_client_request(req("initialize", INIT_PARAMS)), t.InitializeRequest)
    assert isinstance(t.parse_server_request(req("roots/list")), t.ListRootsRequest)
    assert isinstance(
        t.parse_client_notification(note("notifications/initialized")), t.InitializedNotification
    )
    assert isinstance(
        t.parse_server_notification(note("notifications/tools/list_changed")),
        t.ToolListChangedNotification,
    )
    assert isinstance(t.parse_server_result({"prompts": []}), t.ListPromptsResult)
    assert isinstance(t.parse_client_result({"roots": []}), t.ListRootsResult)
    assert isinstance(t.parse_jsonrpc_message(req("ping")), t.JSONRPCRequest)
    with pytest.raises(ValidationError):
        t.parse_client_request(req("sampling/createMessage", CREATE_MESSAGE_PARAMS))
    with pytest.raises(ValidationError):
        t.parse_server_request(req("tools/call", CALL_TOOL_PARAMS))
    with pytest.raises(ValidationError):
        adapter(t.ContentBlock).validate_python({"type": "video", "data": "x"})


def test_result_type_by_method_covers_every_request() -> None:
    methods = set()
    for name, definition in definitions(LATEST).items():
        method = definition.get("properties", {}).get("method", {}).get("const")
        if name.endswith("Request") and method:
            methods.add(method)
    assert methods == set(t.RESULT_TYPE_BY_METHOD)


# ---------------------------------------------------------- Python-side ergonomics


def test_snake_case_attributes_and_camel_case_wire() -> None:
    result = t.CallToolResult(
        content=[t.TextContent(text="42", meta={"k": 1})],
        structured_content={"answer": 42},
        is_error=False,
        meta={"io.example/x": 1},
    )
    assert result.structured_content == {"answer": 42}
    assert result.is_error is False
    assert result.meta == {"io.example/x": 1}
    wire = result.to_wire()
    assert wire == {
        "content": [{"type": "text", "text": "42", "_meta": {"k": 1}}],
        "structuredContent": {"answer": 42},
        "isError": False,
        "_meta": {"io.example/x": 1},
    }
    assert not schema_errors(LATEST, "CallToolResult", wire)

    parsed = t.CallToolResult.from_wire(wire)
    assert parsed.structured_content == {"answer": 42}
    assert parsed.is_error is False
    assert parsed.meta == {"io.example/x": 1}
    # snake_case keys are accepted on input too (populate by name)
    assert t.CallToolResult.from_wire({"content": [], "is_error": True}).is_error is True


def test_constructed_messages_are_valid_on_the_wire() -> None:
    request = t.CallToolRequest(
        id=7,
        params=t.CallToolRequestParams(
            name="get_weather",
            arguments={"city": "Paris"},
            task=t.TaskMetadata(ttl=1000),
            meta=t.RequestMeta(progress_token="tok"),
        ),
    )
    wire = request.to_wire()
    assert wire == {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {
            "name": "get_weather",
            "arguments": {"city": "Paris"},
            "task": {"ttl": 1000},
            "_meta": {"progressToken": "tok"},
        },
    }
    assert not schema_errors(LATEST, "CallToolRequest", wire)

    tool = t.Tool(
        name="t",
        input_schema=t.ToolInputSchema(schema_="https://json-schema.org/draft/2020-12/schema"),
        execution=t.ToolExecution(task_support="required"),
        icons=[t.Icon(src="https://x.y/i.png", theme="dark")],
    )
    assert tool.to_wire()["inputSchema"] == {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
    }
    assert not schema_errors(LATEST, "Tool", tool.to_wire())

    init = t.InitializeResult(
        protocol_version="2025-11-25",
        capabilities=t.ServerCapabilities(
            tools=t.ToolsCapability(list_changed=True),
            tasks=t.ServerTasksCapability(
                list={},
                requests=t.ServerTasksRequestsCapability(tools=t.ToolsTasksCapability(call={})),
            ),
        ),
        server_info=t.Implementation(name="s", version="1", website_url="https://x.y"),
    )
    assert init.to_wire()["capabilities"] == {
        "tools": {"listChanged": True},
        "tasks": {"list": {}, "requests": {"tools": {"call": {}}}},
    }
    assert init.to_wire()["serverInfo"] == {
        "name": "s",
        "version": "1",
        "websiteUrl": "https://x.y",
    }
    assert not schema_errors(LATEST, "InitializeResult", init.to_wire())

    response = t.JSONRPCResultResponse(id=7, result=t.CallToolResult(content=[]))
    assert response.to_wire() == {"jsonrpc": "2.0", "id": 7, "result": {"content": []}}

    elicit = t.ElicitRequest(
        id=1,
        params=t.ElicitRequestFormParams(
            message="Name?",
            requested_schema=t.ElicitationRequestedSchema(
                properties={
                    "name": t.StringSchema(min_length=1),
                    "color": t.TitledSingleSelectEnumSchema(
                        one_of=[t.TitledEnumOption(const="r", title="Red")]
                    ),
                    "tags": t.TitledMultiSelectEnumSchema(
                        items=t.TitledEnumItems(any_of=[t.TitledEnumOption(const="a", title="A")])
                    ),
                },
                required=["name"],
            ),
        ),
    )
    wire = elicit.to_wire()
    assert wire["params"]["requestedSchema"]["properties"]["color"] == {
        "type": "string",
        "oneOf": [{"const": "r", "title": "Red"}],
    }
    assert not schema_errors(LATEST, "ElicitRequest", wire)
    assert t.ElicitRequest.from_wire(wire).to_wire() == wire

    error = t.URLElicitationRequiredError(
        id=3,
        error=t.URLElicitationRequiredErrorDetail(
            message="Need auth",
            data=t.URLElicitationRequiredErrorData(
                elicitations=[
                    t.ElicitRequestURLParams(
                        elicitation_id="e1", url="https://x.y/auth", message="Log in"
                    )
                ]
            ),
        ),
    )
    wire = error.to_wire()
    assert wire["error"]["code"] == -32042
    assert wire["error"]["data"]["elicitations"][0]["mode"] == "url"
    assert not schema_errors(LATEST, "URLElicitationRequiredError", wire)


def test_explicit_nulls_are_kept_where_the_schema_needs_them() -> None:
    task = t.Task(task_id="t", status="working", created_at="a", last_updated_at="b", ttl=None)
    assert task.to_wire()["ttl"] is None
    assert not schema_errors(LATEST, "Task", task.to_wire())
    status = t.TaskStatusNotification(
        params=t.TaskStatusNotificationParams(
            task_id="t", status="failed", created_at="a", last_updated_at="b", ttl=None
        )
    )
    assert status.to_wire()["params"]["ttl"] is None
    assert not schema_errors(LATEST, "TaskStatusNotification", status.to_wire())
    log = t.LoggingMessageNotificationParams(level="info", data=None)
    assert log.to_wire() == {"level": "info", "data": None}
    # optional nullable: absent stays absent, explicit null stays null
    assert "data" not in t.Error(code=1, message="m").to_wire()
    assert t.Error(code=1, message="m", data=None).to_wire()["data"] is None
    # snake_case dumps keep the Python names
    assert t.Task.from_wire(TASK_UNLIMITED).model_dump(exclude_none=True)["ttl"] is None


def test_meta_alias_and_keyword_aliases() -> None:
    params = t.CallToolRequestParams.from_wire(CALL_TOOL_PARAMS)
    assert params.meta is not None
    assert params.meta.progress_token == "progress-42"
    assert params.meta.model_extra is not None
    assert params.meta.model_extra["io.modelcontextprotocol/related-task"] == {"taskId": "task-7"}
    tool = t.Tool.from_wire(TOOL)
    assert tool.input_schema.schema_ == "https://json-schema.org/draft/2020-12/schema"
    assert tool.input_schema.model_extra == {"additionalProperties": False}
    assert tool.execution is not None and tool.execution.task_support == "optional"
    assert tool.annotations is not None and tool.annotations.read_only_hint is True
    form = t.ElicitRequestFormParams.from_wire(FORM_PARAMS)
    assert form.requested_schema.schema_ is not None
    titled = form.requested_schema.properties["hex"]
    assert isinstance(titled, t.TitledSingleSelectEnumSchema)
    assert titled.one_of[0].const == "#FF0000"
    caps = t.ClientCapabilities.from_wire(CLIENT_CAPS)
    assert caps.tasks is not None and caps.tasks.list == {}
    assert caps.tasks.requests is not None and caps.tasks.requests.sampling is not None
    assert caps.tasks.requests.sampling.create_message == {}


def test_import_is_lazy() -> None:
    """Importing mcpkit.types builds no validators: models are built on first use."""
    code = (
        "import mcpkit.types as t\n"
        "built = [n for n in t.__all__ if getattr(getattr(t, n), '__pydantic_complete__', False)]\n"
        "print(len(built))\n"
        "t.CallToolResult.from_wire({'content': []})\n"
        "print(t.CallToolResult.__pydantic_complete__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert out == ["0", "True"]


# ------------------------------------------------------------- older revisions

LEGACY_SAMPLES: list[tuple[str, str, Any, dict[str, Any]]] = [
    # 2024-11-05: first revision; content blocks without _meta, annotations inline
    (
        "2024-11-05",
        "CallToolResult",
        t.CallToolResult,
        {
            "content": [
                {
                    "type": "text",
                    "text": "Current weather: 72°F",
                    "annotations": {"audience": ["user"], "priority": 0.9},
                },
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {
                    "type": "resource",
                    "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hi"},
                },
            ],
            "isError": False,
        },
    ),
    (
        "2024-11-05",
        "JSONRPCError",
        t.JSONRPCError,
        {"jsonrpc": "2.0", "id": 5, "error": {"code": -32601, "message": "Method not found"}},
    ),
    (
        "2024-11-05",
        "InitializeRequest",
        t.InitializeRequest,
        req(
            "initialize",
            {
                "protocolVersion": "2024-11-05",
                "capabilities": {"roots": {"listChanged": True}, "sampling": {}},
                "clientInfo": {"name": "ExampleClient", "version": "1.0.0"},
            },
        ),
    ),
    (
        "2024-11-05",
        "InitializeResult",
        t.InitializeResult,
        {
            "protocolVersion": "2024-11-05",
            "capabilities": {
                "logging": {},
                "prompts": {"listChanged": True},
                "resources": {"subscribe": True, "listChanged": True},
                "tools": {"listChanged": True},
            },
            "serverInfo": {"name": "ExampleServer", "version": "1.0.0"},
        },
    ),
    (
        "2024-11-05",
        "CompleteRequest",
        t.CompleteRequest,
        req(
            "completion/complete",
            {
                "ref": {"type": "ref/resource", "uri": "file:///{path}"},
                "argument": {"name": "path", "value": "sr"},
            },
        ),
    ),
    (
        "2024-11-05",
        "ResourceReference",
        t.ResourceReference,
        {"type": "ref/resource", "uri": "file:///{path}"},
    ),
    (
        "2024-11-05",
        "ProgressNotification",
        t.ProgressNotification,
        note("notifications/progress", {"progressToken": "abc", "progress": 50, "total": 100}),
    ),
    (
        "2024-11-05",
        "PromptMessage",
        t.PromptMessage,
        {
            "role": "user",
            "content": {
                "type": "resource",
                "resource": {"uri": "resource://example", "mimeType": "text/plain", "text": "x"},
            },
        },
    ),
    (
        "2024-11-05",
        "CreateMessageRequest",
        t.CreateMessageRequest,
        req(
            "sampling/createMessage",
            {
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "Capital of France?"}},
                    {"role": "user", "content": {"type": "image", "data": "AA", "mimeType": "x"}},
                ],
                "modelPreferences": {"hints": [{"name": "claude-3-sonnet"}], "speedPriority": 1},
                "includeContext": "none",
                "maxTokens": 100,
            },
        ),
    ),
    (
        "2024-11-05",
        "CancelledNotification",
        t.CancelledNotification,
        note("notifications/cancelled", {"requestId": "123", "reason": "User requested"}),
    ),
    (
        "2024-11-05",
        "Tool",
        t.Tool,
        {
            "name": "get_weather",
            "description": "Get weather",
            "inputSchema": {"type": "object", "properties": {"location": {"type": "string"}}},
        },
    ),
    # 2025-03-26: audio, tool annotations, batching, progress message
    (
        "2025-03-26",
        "CallToolResult",
        t.CallToolResult,
        {"content": [{"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}]},
    ),
    (
        "2025-03-26",
        "Tool",
        t.Tool,
        {
            "name": "delete_file",
            "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
            "annotations": {"title": "Delete", "destructiveHint": True, "readOnlyHint": False},
        },
    ),
    (
        "2025-03-26",
        "JSONRPCBatchRequest",
        t.JSONRPCBatchRequest,
        [req("tools/list", id=1), note("notifications/initialized"), req("ping", id=2)],
    ),
    (
        "2025-03-26",
        "JSONRPCBatchResponse",
        t.JSONRPCBatchResponse,
        [
            {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}},
            {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "nope"}},
        ],
    ),
    (
        "2025-03-26",
        "ProgressNotification",
        t.ProgressNotification,
        note("notifications/progress", {"progressToken": 1, "progress": 2, "message": "half"}),
    ),
    (
        "2025-03-26",
        "ServerCapabilities",
        t.ServerCapabilities,
        {"completions": {}, "logging": {}, "tools": {"listChanged": False}},
    ),
    # 2025-06-18: elicitation (form only, legacy enums), structured output, resource links
    (
        "2025-06-18",
        "ElicitRequest",
        t.ElicitRequest,
        req(
            "elicitation/create",
            {
                "message": "Please provide your contact information",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "Your full name"},
                        "email": {"type": "string", "format": "email"},
                        "age": {"type": "number", "minimum": 18},
                        "ok": {"type": "boolean", "default": True},
                        "size": {"type": "string", "enum": ["s", "l"], "enumNames": ["S", "L"]},
                    },
                    "required": ["name", "email"],
                },
            },
        ),
    ),
    (
        "2025-06-18",
        "EnumSchema",
        t.EnumSchema,
        {"type": "string", "title": "Size", "enum": ["s", "l"], "enumNames": ["S", "L"]},
    ),
    (
        "2025-06-18",
        "ElicitResult",
        t.ElicitResult,
        {"action": "accept", "content": {"name": "Monalisa", "age": 30, "ok": True}},
    ),
    (
        "2025-06-18",
        "CallToolResult",
        t.CallToolResult,
        {
            "content": [
                {"type": "text", "text": '{"temperature": 22.5}'},
                {
                    "type": "resource_link",
                    "uri": "file:///project/src/main.rs",
                    "name": "main.rs",
                    "title": "Main",
                    "mimeType": "text/x-rust",
                },
            ],
            "structuredContent": {"temperature": 22.5},
        },
    ),
    (
        "2025-06-18",
        "Tool",
        t.Tool,
        {
            "name": "get_weather_data",
            "title": "Weather Data Retriever",
            "inputSchema": {"type": "object", "properties": {"location": {"type": "string"}}},
            "outputSchema": {
                "type": "object",
                "properties": {"temperature": {"type": "number"}},
                "required": ["temperature"],
            },
            "_meta": {"io.example/owner": "weather-team"},
        },
    ),
    (
        "2025-06-18",
        "JSONRPCError",
        t.JSONRPCError,
        {"jsonrpc": "2.0", "id": "x", "error": {"code": -32002, "message": "Not found"}},
    ),
    (
        "2025-06-18",
        "JSONRPCResponse",
        t.JSONRPCResponse,
        {"jsonrpc": "2.0", "id": "x", "result": {"content": [], "_meta": {"a": 1}}},
    ),
    (
        "2025-06-18",
        "CompleteRequest",
        t.CompleteRequest,
        req(
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "code_review"},
                "argument": {"name": "framework", "value": "fla"},
                "context": {"arguments": {"language": "python"}},
            },
        ),
    ),
    (
        "2025-06-18",
        "InitializeRequest",
        t.InitializeRequest,
        req(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {"elicitation": {}, "sampling": {}, "roots": {}},
                "clientInfo": {"name": "c", "title": "Client", "version": "2"},
            },
        ),
    ),
]


@pytest.mark.parametrize(
    ("version", "name", "tp", "sample"),
    LEGACY_SAMPLES,
    ids=[f"{v}-{n}-{i}" for i, (v, n, _, _) in enumerate(LEGACY_SAMPLES)],
)
def test_older_revisions_round_trip(version: str, name: str, tp: Any, sample: Any) -> None:
    assert not schema_errors(version, name, sample), "test sample must be valid"
    parsed = adapter(tp).validate_python(copy.deepcopy(sample))
    wire = dump(tp, parsed)
    assert wire == sample
    assert not schema_errors(version, name, wire)
    # Envelopes written by older peers are also plain JSON-RPC messages of that revision.
    if isinstance(sample, dict) and "jsonrpc" in sample:
        kind = (
            "JSONRPCRequest"
            if "id" in sample and "method" in sample
            else "JSONRPCNotification"
            if "method" in sample
            else "JSONRPCError"
            if "error" in sample
            else "JSONRPCResponse"
        )
        assert not schema_errors(version, kind, wire)


def test_legacy_names_are_aliases() -> None:
    assert t.JSONRPCError is t.JSONRPCErrorResponse
    assert t.ResourceReference is t.ResourceTemplateReference
    for version in ("2024-11-05", "2025-03-26", "2025-06-18"):
        old = set(definitions(version))
        exported = set(t.__all__) | {"Annotated"}  # 2024-11-05's mixin base is folded in
        assert not old - exported, (version, sorted(old - exported))


# ---------------------------------------------------------- result helpers


def test_is_error_is_false_when_omitted_and_stays_omitted() -> None:
    omitted = t.CallToolResult.from_wire({"content": []})
    assert omitted.is_error is False
    assert omitted.to_wire() == {"content": []}  # not added to the wire form
    assert t.CallToolResult.from_wire({"content": [], "isError": None}).is_error is False
    explicit = t.CallToolResult(content=[], is_error=False)
    assert explicit.to_wire() == {"content": [], "isError": False}
    assert t.CallToolResult.from_wire({"content": [], "isError": True}).to_wire()["isError"]
    assert "is_error" not in t.CallToolResult(content=[]).model_dump()  # by name too
    with pytest.raises(ValidationError):
        t.CallToolResult.from_wire({"content": [], "isError": [1]})


def test_text_helpers_join_the_text_blocks() -> None:
    result = t.CallToolResult.from_wire(
        {
            "content": [
                {"type": "text", "text": "one"},
                {"type": "image", "data": "AA==", "mimeType": "image/png"},
                {"type": "text", "text": "two"},
            ]
        }
    )
    assert result.text == "one\ntwo"
    assert t.CallToolResult(content=[]).text == ""
    prompt = t.GetPromptResult.from_wire(
        {
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Hi"}},
                {"role": "user", "content": {"type": "audio", "data": "AA==", "mimeType": "a/b"}},
                {"role": "assistant", "content": {"type": "text", "text": "Hello"}},
            ]
        }
    )
    assert [m.text for m in prompt.messages] == ["Hi", "", "Hello"]
    assert prompt.text == "Hi\nHello"
    read = t.ReadResourceResult.from_wire(
        {
            "contents": [
                {"uri": "a://1", "text": "first"},
                {"uri": "a://2", "blob": "AA=="},
                {"uri": "a://3", "text": "second"},
            ]
        }
    )
    assert read.text == "first\nsecond"
    assert "text" not in read.to_wire()  # a property, not a field
