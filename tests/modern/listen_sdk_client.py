"""The official Python SDK's client (2026-07-28 mode) listening to an mcpkit server over
stdio; prints one JSON report. Runs in the peer venv (.cache/peers/py), never in mcpkit's:

    .cache/peers/py/bin/python tests/modern/listen_sdk_client.py -- COMMAND [ARG ...]

Two listens at once, one for tool-list changes and one for prompt-list changes and updates
of ``test://watched``; then the tools of tests/modern/listen_app.py change the lists and
the resource. The report: ``{"protocolVersion", "honored": {"tools", "prompts"}, "tools":
[events], "prompts": [events], "listed": [tool names after the change]}``; events are
``ToolsListChanged``, ``PromptsListChanged`` or ``ResourceUpdated:<uri>``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.subscriptions import ResourceUpdated, Subscription


def name(event: Any) -> str:
    if isinstance(event, ResourceUpdated):
        return f"ResourceUpdated:{event.uri}"
    return type(event).__name__


async def next_event(sub: Subscription) -> str:
    return name(await asyncio.wait_for(anext(sub), 10))


async def main(command: list[str]) -> dict[str, Any]:
    target = StdioServerParameters(command=command[0], args=command[1:])
    report: dict[str, Any] = {"tools": [], "prompts": []}
    async with Client(target, mode="2026-07-28") as client:
        report["protocolVersion"] = client.protocol_version
        async with (
            client.listen(tools_list_changed=True) as tools,
            client.listen(
                prompts_list_changed=True, resource_subscriptions=["test://watched"]
            ) as prompts,
        ):
            report["honored"] = {
                "tools": tools.honored.model_dump(mode="json", by_alias=True, exclude_none=True),
                "prompts": prompts.honored.model_dump(
                    mode="json", by_alias=True, exclude_none=True
                ),
            }
            await client.call_tool("add_tool", {"name": "from_sdk"})  # a registration
            report["tools"].append(await next_event(tools))
            await client.call_tool("add_prompt", {"name": "from_sdk"})
            report["prompts"].append(await next_event(prompts))
            await client.call_tool("touch", {"uri": "test://watched"})
            report["prompts"].append(await next_event(prompts))
            await client.call_tool("announce", {"kind": "tools"})  # an announcement
            # The tools listen's next event: had it got the prompt change, it would be first.
            report["tools"].append(await next_event(tools))
            listed = await client.list_tools()
            report["listed"] = [tool.name for tool in listed.tools]
    return report


if __name__ == "__main__":
    argv = sys.argv[1:]
    if not argv or argv[0] != "--" or len(argv) < 2:
        raise SystemExit("usage: listen_sdk_client.py -- COMMAND [ARG ...]")
    print(json.dumps(asyncio.run(main(argv[1:]))))
