"""A low-level server (session engine + raw handlers) exercising every feature a client uses.

Run as a script it serves on stdio; tests also build it in memory with ``make_session``.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS
from mcpkit.session import RequestContext, ServerSession

CAPABILITIES = {
    "tools": {"listChanged": True},
    "resources": {"subscribe": True, "listChanged": True},
    "prompts": {"listChanged": True},
    "logging": {},
    "completions": {},
}

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"temp": {"type": "number"}, "city": {"type": "string"}},
    "required": ["temp", "city"],
}

TOOLS: list[dict[str, Any]] = [
    {
        "name": "echo",
        "description": "Echo text back",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
    {"name": "weather", "inputSchema": {"type": "object"}, "outputSchema": WEATHER_SCHEMA},
    {"name": "weather_bad", "inputSchema": {"type": "object"}, "outputSchema": WEATHER_SCHEMA},
    {"name": "weather_missing", "inputSchema": {"type": "object"}, "outputSchema": WEATHER_SCHEMA},
    {
        "name": "weather_draft7",
        "inputSchema": {"type": "object"},
        "outputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"temp": {"type": "number"}},
            "required": ["temp"],
        },
    },
    {
        "name": "weird_dialect",
        "inputSchema": {"type": "object"},
        "outputSchema": {"$schema": "https://example.com/my-dialect", "type": "object"},
    },
    {"name": "fail", "inputSchema": {"type": "object"}},
    {"name": "slow", "inputSchema": {"type": "object"}},
    {"name": "sample", "inputSchema": {"type": "object"}},
    {"name": "elicit", "inputSchema": {"type": "object"}},
    {"name": "roots", "inputSchema": {"type": "object"}},
    {"name": "log", "inputSchema": {"type": "object"}},
    {"name": "needs_auth", "inputSchema": {"type": "object"}},
    {"name": "change", "inputSchema": {"type": "object"}},
]
PAGE = 4  # tools per page, so list_tools follows several cursors

RESOURCES = [{"uri": f"mem://r/{i}", "name": f"r{i}", "mimeType": "text/plain"} for i in range(5)]
TEMPLATES = [{"uriTemplate": "mem://r/{id}", "name": "by-id"}]
PROMPTS = [
    {"name": "greet", "arguments": [{"name": "who", "required": True}, {"name": "n"}]},
    {"name": "plain"},
]


def _page(items: list[dict[str, Any]], params: dict[str, Any] | None, key: str) -> dict[str, Any]:
    cursor = (params or {}).get("cursor")
    start = int(cursor) if cursor else 0
    out: dict[str, Any] = {key: items[start : start + PAGE]}
    if start + PAGE < len(items):
        out["nextCursor"] = str(start + PAGE)
    return out


def _text(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


class FeatureServer:
    def __init__(self, session: ServerSession) -> None:
        self.session = session
        self.subscriptions: set[str] = set()
        self.level: str | None = None
        self.cancelled: list[Any] = []
        for method, handler in {
            "tools/list": self.tools_list,
            "tools/call": self.tools_call,
            "resources/list": self.resources_list,
            "resources/templates/list": self.templates_list,
            "resources/read": self.resources_read,
            "resources/subscribe": self.subscribe,
            "resources/unsubscribe": self.unsubscribe,
            "prompts/list": self.prompts_list,
            "prompts/get": self.prompts_get,
            "completion/complete": self.complete,
            "logging/setLevel": self.set_level,
        }.items():
            session.set_request_handler(method, handler)
        session.set_notification_handler("notifications/roots/list_changed", self.roots_changed)
        self.roots_changes = 0

    def roots_changed(self, params: Any) -> None:
        self.roots_changes += 1

    async def tools_list(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        return _page(TOOLS, params, "tools")

    async def tools_call(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        name = params["name"]
        args = params.get("arguments") or {}
        if name == "echo":
            return _text(args["text"])
        if name == "weather":
            return {**_text("12C in Oslo"), "structuredContent": {"temp": 12, "city": "Oslo"}}
        if name == "weather_bad":
            return {**_text("hot"), "structuredContent": {"temp": "hot", "city": "Oslo"}}
        if name == "weather_missing":
            return _text("no structure")
        if name == "weather_draft7":
            return {**_text("3"), "structuredContent": {"temp": args.get("temp", 3)}}
        if name == "weird_dialect":
            return {**_text("x"), "structuredContent": {}}
        if name == "fail":
            return {**_text("it broke"), "isError": True}
        if name == "slow":
            steps = int(args.get("steps", 3))
            for i in range(steps):
                await asyncio.sleep(float(args.get("delay", 0.01)))
                await ctx.progress(i + 1, steps, f"step {i + 1}")
            if args.get("forever"):
                await asyncio.Event().wait()
            return _text("done")
        if name == "sample":
            req: dict[str, Any] = {
                "messages": args.get("messages")
                or [{"role": "user", "content": {"type": "text", "text": args.get("q", "hi")}}],
                "maxTokens": 50,
            }
            for key in ("tools", "toolChoice", "systemPrompt", "modelPreferences"):
                if key in args:
                    req[key] = args[key]
            result = await ctx.request("sampling/createMessage", req)
            content = result["content"]
            first = content[0] if isinstance(content, list) else content
            return {**_text(str(first.get("text", first.get("type")))), "structuredContent": result}
        if name == "elicit":
            req = dict(args["request"])
            result = await ctx.request("elicitation/create", req)
            return {**_text(result["action"]), "structuredContent": result}
        if name == "roots":
            result = await ctx.request("roots/list")
            return {**_text(str(len(result["roots"]))), "structuredContent": result}
        if name == "log":
            await self.session.notify(
                "notifications/message",
                {"level": args.get("level", "info"), "logger": "feat", "data": args.get("data")},
                related_request_id=ctx.request_id,
            )
            return _text("logged")
        if name == "needs_auth":
            raise McpError(
                -32042,
                "This request requires more information.",
                {
                    "elicitations": [
                        {
                            "mode": "url",
                            "elicitationId": "el-1",
                            "url": "https://example.com/connect?x=1",
                            "message": "Authorize access",
                        }
                    ]
                },
            )
        if name == "change":
            what = args.get("what", "tools")
            await self.session.notify(f"notifications/{what}/list_changed")
            if what == "resources":
                await self.session.notify("notifications/resources/updated", {"uri": "mem://r/0"})
            if args.get("complete"):
                await self.session.notify(
                    "notifications/elicitation/complete", {"elicitationId": args["complete"]}
                )
            return _text("changed")
        raise McpError(INVALID_PARAMS, f"Unknown tool: {name}")

    async def resources_list(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        return _page(RESOURCES, params, "resources")

    async def templates_list(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        return _page(TEMPLATES, params, "resourceTemplates")

    async def resources_read(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        uri = params["uri"]
        if uri == "mem://blob":
            blob = base64.b64encode(b"\x00\x01").decode()
            return {"contents": [{"uri": uri, "blob": blob, "mimeType": "application/x"}]}
        if not uri.startswith("mem://r/"):
            raise McpError(-32002, "Resource not found", {"uri": uri})
        return {"contents": [{"uri": uri, "text": f"content of {uri}", "mimeType": "text/plain"}]}

    async def subscribe(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        self.subscriptions.add(params["uri"])
        return {}

    async def unsubscribe(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        self.subscriptions.discard(params["uri"])
        return {}

    async def prompts_list(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        return _page(PROMPTS, params, "prompts")

    async def prompts_get(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        args = params.get("arguments") or {}
        if params["name"] != "greet":
            raise McpError(INVALID_PARAMS, f"Unknown prompt: {params['name']}")
        text = f"Hello {args.get('who')} x{args.get('n', '1')}"
        return {
            "description": "A greeting",
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        }

    async def complete(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        ref = params["ref"]
        value = params["argument"]["value"]
        ctx_args = (params.get("context") or {}).get("arguments") or {}
        pool = ["alice", "alan", "bob"] if ref["type"] == "ref/prompt" else ["1", "2", "10"]
        values = [v for v in pool if v.startswith(value)]
        if ctx_args:
            values = [f"{v}@{ctx_args.get('team', '')}" for v in values]
        return {"completion": {"values": values, "total": len(values), "hasMore": False}}

    async def set_level(self, params: Any, ctx: RequestContext) -> dict[str, Any]:
        self.level = params["level"]
        return {}


def make_session(transport: Any, **kwargs: Any) -> tuple[ServerSession, FeatureServer]:
    session = ServerSession(
        transport,
        server_info={"name": "feature-test", "version": "2.0.0", "title": "Features"},
        capabilities=CAPABILITIES,
        instructions="Use the echo tool.",
        **kwargs,
    )
    return session, FeatureServer(session)


async def main() -> None:
    from mcpkit.transports.stdio import StdioServerTransport

    session, _ = make_session(StdioServerTransport())
    await session.start()
    await session.wait_closed()


if __name__ == "__main__":
    asyncio.run(main())
