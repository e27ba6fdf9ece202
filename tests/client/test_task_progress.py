"""Progress of task-augmented requests: the ``progressToken`` of a task-augmented
``tools/call`` stays valid for the task's whole lifetime (tasks spec, "Task Progress
Notifications"), so the client keeps delivering progress after the ``CreateTaskResult``
until it sees the task terminal. In memory and over stdio, all traffic schema-checked."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

from mcpkit import McpError
from mcpkit.client import Client, ClientHooks, StdioOptions
from mcpkit.session import ClientSession, ServerSession
from mcpkit.tasks import RELATED_TASK
from mcpkit.transports import MemoryTransport
from tests.client.task_progress_server import make_app
from tests.conftest import ROOT, server_env
from tests.wire import WireChecker

Progress = tuple[float, float | None, str | None]


@asynccontextmanager
async def open_client(
    kind: str, wire: Callable[..., WireChecker], **kwargs: Any
) -> AsyncIterator[Client]:
    if kind == "stdio":
        argv = [sys.executable, "-m", "tests.client.task_progress_server"]
        async with Client(
            argv,
            connection=StdioOptions(env=server_env(), cwd=str(ROOT)),
            tracer=wire(),
            era="legacy",
            **kwargs,
        ) as c:
            yield c
        return
    app = make_app()
    a, b = MemoryTransport.pair()
    async with app.running():
        server = app.session(b, tracer=wire())
        await server.start()
        try:
            async with Client(a, tracer=wire(), era="legacy", **kwargs) as c:
                yield c
        finally:
            await server.close()


def listening(c: Client) -> int:
    """How many progress listeners the client's session still holds."""
    return len(c.session._progress_listeners)


async def test_task_progress_is_delivered_until_the_task_is_terminal(
    kind: str, wire: Callable[..., WireChecker]
) -> None:
    seen: list[Progress] = []
    async with open_client(kind, wire) as c:
        task = await c.call_tool_as_task("steps", on_progress=lambda *p: seen.append(p))
        assert seen == []  # the tool has not started reporting yet
        token = c._tracer.sent("tools/call")[0]["params"]["_meta"]["progressToken"]  # type: ignore[attr-defined]
        assert isinstance(token, str)
        assert listening(c) == 1
        await c.call_tool("release")  # the CreateTaskResult has long arrived
        final = await c.wait_task(task.task_id)
        assert final.status == "completed"
        assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
        notes = c._tracer.received("notifications/progress")  # type: ignore[attr-defined]
        assert [n["params"]["progressToken"] for n in notes] == [token] * 3
        assert all(n["params"]["_meta"][RELATED_TASK] == {"taskId": task.task_id} for n in notes)
        assert listening(c) == 0  # terminal: the token is released


async def test_client_wide_progress_hook_serves_task_calls(
    wire: Callable[..., WireChecker],
) -> None:
    seen: list[Progress] = []
    async with open_client(
        "memory", wire, hooks=ClientHooks(on_progress=lambda *p: seen.append(p))
    ) as c:
        task = await c.call_tool_as_task("steps")
        await c.call_tool("release")
        result = await c.get_task_result(task.task_id)  # blocks until terminal
        assert result.content[0].text == "done"  # type: ignore[union-attr]
        assert [p[0] for p in seen] == [1, 2, 3]
        assert listening(c) == 0


async def test_cancelled_task_stops_its_progress(wire: Callable[..., WireChecker]) -> None:
    seen: list[Progress] = []
    async with open_client("memory", wire) as c:
        task = await c.call_tool_as_task("stuck", on_progress=lambda *p: seen.append(p))
        await c.call_tool("release")
        while not seen:  # woken by each status poll; the tool reports one step then hangs
            await c.get_task(task.task_id)
        assert seen == [(1, 2, None)]
        assert (await c.cancel_task(task.task_id)).status == "cancelled"
        assert listening(c) == 0


async def test_status_notification_ends_progress(wire: Callable[..., WireChecker]) -> None:
    statuses: list[str] = []
    async with open_client(
        "memory", wire, hooks=ClientHooks(on_task_status=lambda t: statuses.append(t.status))
    ) as c:
        task = await c.call_tool_as_task("steps", on_progress=lambda *p: None)
        await c.call_tool("release")
        # tasks/result answers after the server announced the final status
        await c.session.request("tasks/result", {"taskId": task.task_id})
        assert statuses[-1] == "completed"
        assert listening(c) == 0


async def test_refused_task_call_leaves_no_listener(wire: Callable[..., WireChecker]) -> None:
    async with open_client("memory", wire) as c:
        await c.list_tools()
        # pretend, so the server is asked
        c.tool_catalogue.remember(
            [{"name": "release", "execution": {"taskSupport": "optional"}}], replace=False
        )
        with pytest.raises(McpError) as err:
            await c.call_tool_as_task("release", on_progress=lambda *p: None)
        assert err.value.code == -32601
        assert listening(c) == 0


# -- the engine hook -----------------------------------------------------------------------------


async def test_session_progress_listener(wire: Callable[..., WireChecker]) -> None:
    a, b = MemoryTransport.pair()
    server = ServerSession(b, server_info={"name": "s", "version": "1"}, tracer=wire())
    client = ClientSession(a, tracer=wire())

    async def work(params: Any, ctx: Any) -> dict[str, Any]:
        for i in (1, 2):
            await ctx.progress(i)
        return {}

    server.set_request_handler("ping", work)
    await server.start()
    await client.start()
    await client.initialize({"name": "c", "version": "1"})
    seen: list[Any] = []
    release = client.listen_progress("t-1", lambda p, t, m: seen.append(("listener", p)))
    # the caller put the listener's token in its request itself
    await client.request("ping", {"_meta": {"progressToken": "t-1"}})
    assert seen == [("listener", 1), ("listener", 2)]
    # a request with its own on_progress is routed as before
    await client.request("ping", on_progress=lambda p, t, m: seen.append(("own", p)))
    assert seen[2:] == [("own", 1), ("own", 2)]
    # progress that arrives after the response still reaches the listener, until released
    await server.notify("notifications/progress", {"progressToken": "t-1", "progress": 3})
    await client.ping()  # a round trip: the notification above has been handled
    assert seen[-1] == ("listener", 3)
    release()
    await server.notify("notifications/progress", {"progressToken": "t-1", "progress": 4})
    await client.ping()
    assert seen[-1] == ("listener", 3)
    await client.close()
    await server.close()


# -- at the wire, against a scripted server -------------------------------------------------------


async def test_task_progress_at_the_wire(wire: Callable[..., WireChecker]) -> None:
    from tests.client.test_bad_server import FakePeer

    caps = {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}}
    peer = FakePeer({**INIT, "capabilities": caps})
    await peer.start()
    seen: list[Progress] = []
    async with Client(peer.client_end, tracer=wire(check_received=False), era="legacy") as c:
        call = asyncio.ensure_future(
            c.call_tool_as_task("t", on_progress=lambda *p: seen.append(p))
        )
        listing = await peer.next("tools/list")
        tool = {
            "name": "t",
            "inputSchema": {"type": "object"},
            "execution": {"taskSupport": "optional"},
        }
        peer.reply(listing["id"], {"tools": [tool]})
        request = await peer.next("tools/call")
        token = request["params"]["_meta"]["progressToken"]
        task = {"taskId": "t-1", "status": "working", "ttl": 60_000, **STAMPS}
        peer.reply(request["id"], {"task": task})
        # right behind the response, before the caller has even resumed
        progress(peer, token, 1)
        assert (await call).task_id == "t-1"
        progress(peer, token, 2)
        peer.send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/tasks/status",
                "params": {**task, "status": "completed"},
            }
        )
        progress(peer, token, 3)  # the task is over: its token is no longer listened to
        ping = asyncio.ensure_future(c.ping())
        peer.reply((await peer.next("ping"))["id"], {})
        await ping
        assert [p[0] for p in seen] == [1, 2]


INIT = {"protocolVersion": "2025-11-25", "serverInfo": {"name": "fake", "version": "0"}}
STAMPS = {"createdAt": "2025-11-25T00:00:00Z", "lastUpdatedAt": "2025-11-25T00:00:00Z"}


def progress(peer: Any, token: Any, value: float) -> None:
    params = {"progressToken": token, "progress": value}
    peer.send({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
