"""A low-level server built on the session engine alone, for the protocol-core tests.

Run as a script it serves on stdio; tests also register the same handlers on an in-memory
session (``install``).
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS
from mcpkit.session import RequestContext, ServerSession

CAPABILITIES = {"tools": {}, "logging": {}}


async def tools_call(params: dict[str, Any] | None, ctx: RequestContext) -> dict[str, Any]:
    if not isinstance(params, dict) or not isinstance(params.get("name"), str):
        raise McpError(INVALID_PARAMS, "tools/call: 'name' must be a string")
    name = params["name"]
    args = params.get("arguments") or {}
    if name == "echo":
        text = args.get("text")
        if not isinstance(text, str):
            raise McpError(INVALID_PARAMS, "echo: argument 'text' must be a string")
        return {"content": [{"type": "text", "text": text}]}
    if name == "sleep":
        steps = int(args.get("steps", 1))
        delay = float(args.get("delay", 0.05))
        for i in range(steps):
            await asyncio.sleep(delay)
            await ctx.progress(i + 1, steps, f"step {i + 1}")
        return {"content": [{"type": "text", "text": f"slept {steps}"}]}
    if name == "bad_progress":
        await ctx.progress(2, None)
        try:
            await ctx.progress(1, None)
        except ValueError as exc:
            return {"content": [{"type": "text", "text": f"refused: {exc}"}]}
        return {"content": [{"type": "text", "text": "accepted"}]}
    if name == "sample":
        result = await ctx.request(
            "sampling/createMessage",
            {
                "messages": [{"role": "user", "content": {"type": "text", "text": args["q"]}}],
                "maxTokens": 10,
            },
        )
        return {"content": [{"type": "text", "text": result["content"]["text"]}]}
    if name == "force_sample":
        # Pretend the client declared sampling, to see the client refuse what it did not.
        ctx.session.lifecycle.peer_capabilities["sampling"] = {}
        result = await ctx.request(
            "sampling/createMessage",
            {
                "messages": [{"role": "user", "content": {"type": "text", "text": "x"}}],
                "maxTokens": 10,
            },
            timeout=5,
        )
        return {"content": [{"type": "text", "text": str(result)}]}
    if name == "ping_client":
        await ctx.session.ping(timeout=5)
        return {"content": [{"type": "text", "text": "pong"}]}
    if name == "roots":
        result = await ctx.request("roots/list", timeout=float(args.get("timeout", 5)))
        return {"content": [{"type": "text", "text": str(len(result["roots"]))}]}
    if name == "print":
        print("this must not reach stdout")
        os.write(1, b"nor this\n")
        return {"content": [{"type": "text", "text": "printed"}]}
    if name == "crash":
        sys.stderr.write("fatal: the server is going down\n")
        sys.stderr.flush()
        os._exit(3)
    if name == "fail":
        raise RuntimeError("secret internal detail")
    if name == "unencodable":
        return {"content": [{"type": "text", "text": "x"}], "bad": object()}
    raise McpError(INVALID_PARAMS, f"Unknown tool: {name}")


async def resources_list(params: dict[str, Any] | None, ctx: RequestContext) -> dict[str, Any]:
    return {"resources": []}


def install(session: ServerSession) -> None:
    session.set_request_handler("tools/call", tools_call)
    # Registered but not declared in CAPABILITIES: the engine must still answer -32601.
    session.set_request_handler("resources/list", resources_list)


def make_session(transport: Any, **kwargs: Any) -> ServerSession:
    session = ServerSession(
        transport,
        server_info={"name": "core-test", "version": "1.0.0"},
        capabilities=CAPABILITIES,
        instructions="A server for testing the protocol core.",
        **kwargs,
    )
    install(session)
    return session


async def main() -> None:
    from mcpkit.transports.stdio import StdioServerTransport

    max_size = int(os.environ.get("MAX_MESSAGE_SIZE", 4 * 1024 * 1024))
    max_in_flight = int(os.environ.get("MAX_IN_FLIGHT", 256))
    session = make_session(
        StdioServerTransport(max_message_size=max_size), max_in_flight=max_in_flight
    )
    await session.start()
    await session.wait_closed()


if __name__ == "__main__":
    asyncio.run(main())
