"""The official 1.x client driving a 1.x ``simple-task`` example over Streamable HTTP with
the experimental tasks API; prints what it saw as JSON (run by the ``mcp1`` peer).

    python tasks_v1_client.py simple|interactive URL
"""

from __future__ import annotations

import asyncio
import json
import sys
import warnings
from typing import Any

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.exceptions import McpError
from mcp.types import CallToolResult, CreateMessageResult, ElicitResult, TextContent

warnings.simplefilter("ignore", DeprecationWarning)
seen: list[Any] = []
notes: list[Any] = []


def dump(model: Any) -> Any:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


async def elicit(ctx: Any, params: Any) -> ElicitResult:
    seen.append(["elicit", dump(params)])
    return ElicitResult(action="accept", content={"confirm": True})


async def sample(ctx: Any, params: Any) -> CreateMessageResult:
    seen.append(["sample", dump(params)])
    return CreateMessageResult(
        model="mock", role="assistant", content=TextContent(type="text", text="Leaves drift")
    )


async def on_message(message: Any) -> None:
    root = getattr(message, "root", None)
    if root is not None and getattr(root, "method", "").startswith("notifications/tasks"):
        notes.append(dump(root))


async def attempt(coro: Any) -> Any:
    try:
        return dump(await coro)
    except McpError as exc:
        return {"error": dump(exc.error)}


async def polled(session: ClientSession, task_id: str, stop_at: str | None = None) -> Any:
    """The distinct states ``tasks/get`` showed until terminal (or ``stop_at``)."""
    states: list[Any] = []
    async for status in session.experimental.poll_task(task_id):
        state = [status.status, status.statusMessage]
        if not states or states[-1] != state:
            states.append(state)
        if status.status == stop_at:
            break
    return states


async def simple(session: ClientSession, out: dict[str, Any]) -> None:
    x = session.experimental
    out["plain call"] = dump(await session.call_tool("long_running_task", {}))
    created = await x.call_tool_as_task("long_running_task", {})
    out["created"] = dump(created)
    tid = created.task.taskId
    states = await polled(session, tid)
    out["states"] = [s for s in states if s != ["working", None]]
    out["result"] = dump(await x.get_task_result(tid, CallToolResult))
    out["get"] = dump(await x.get_task(tid))
    out["list"] = dump(await x.list_tasks())
    second = await x.call_tool_as_task("long_running_task", {})
    sid = second.task.taskId
    await polled(session, sid, stop_at="working")
    await asyncio.sleep(0.2)
    out["cancel"] = await attempt(x.cancel_task(sid))
    out["get cancelled"] = dump(await x.get_task(sid))
    out["cancel again"] = await attempt(x.cancel_task(sid))
    out["cancel completed"] = await attempt(x.cancel_task(tid))
    out["get unknown"] = await attempt(x.get_task("no-such-task"))
    out["result unknown"] = await attempt(x.get_task_result("no-such-task", CallToolResult))
    out["cancel unknown"] = await attempt(x.cancel_task("no-such-task"))
    out["list after"] = dump(await x.list_tasks())
    out["other session"] = await other_session(out["url"], tid)


async def other_session(url: str, task_id: str) -> Any:
    """What a second session of the same client is told about the first one's task."""
    async with (
        streamablehttp_client(url) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        x = session.experimental
        return {
            "get": await attempt(x.get_task(task_id)),
            "result": await attempt(x.get_task_result(task_id, CallToolResult)),
            "cancel": await attempt(x.cancel_task(task_id)),
            "list": dump(await x.list_tasks()),
        }


async def interactive(session: ClientSession, out: dict[str, Any]) -> None:
    x = session.experimental
    out["plain call"] = dump(await session.call_tool("confirm_delete", {"filename": "a.txt"}))
    for name, args in (("confirm_delete", {"filename": "a.txt"}), ("write_haiku", {})):
        created = await x.call_tool_as_task(name, args)
        tid = created.task.taskId
        out[f"{name} created"] = dump(created)
        out[f"{name} states"] = await polled(session, tid, stop_at="input_required")
        out[f"{name} result"] = dump(await x.get_task_result(tid, CallToolResult))
        out[f"{name} get"] = dump(await x.get_task(tid))
    waiting = await x.call_tool_as_task("confirm_delete", {"filename": "b.txt"})
    wid = waiting.task.taskId
    out["waiting states"] = await polled(session, wid, stop_at="input_required")
    out["cancel waiting"] = await attempt(x.cancel_task(wid))
    out["get cancelled"] = dump(await x.get_task(wid))
    out["list"] = dump(await x.list_tasks())


async def main(which: str, url: str) -> None:
    out: dict[str, Any] = {"url": url}
    async with (
        streamablehttp_client(url) as (read, write, _),
        ClientSession(
            read,
            write,
            elicitation_callback=elicit,
            sampling_callback=sample,
            message_handler=on_message,
        ) as session,
    ):
        init = await session.initialize()
        out["capabilities"] = dump(init.capabilities)
        out["tools"] = dump(await session.list_tools())
        await (simple if which == "simple" else interactive)(session, out)
    del out["url"]
    out["asked"] = seen
    out["notifications"] = notes
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
