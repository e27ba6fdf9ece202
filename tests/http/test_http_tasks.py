"""Tasks over Streamable HTTP: a task's messages travel on the waiting ``tasks/result`` stream.

A task outlives the POST that created it, so what it sends (progress, logs, elicitation) has
no request stream of its own. While the requestor blocks on ``tasks/result`` the receiver
routes those messages onto that POST's SSE stream (the spec's suggested approach), ahead of
the final result; they never go to the standalone GET stream then.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import orjson

from mcpkit import Context, Server
from mcpkit.client import Client
from mcpkit.server.tasks import RELATED_TASK, MemoryTaskStore, TaskManager
from mcpkit.transports.http import running
from tests.http import raw


class SignallingStore(MemoryTaskStore):
    """Sets :attr:`waiting` once a ``tasks/result`` blocks (its waiter is registered)."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = asyncio.Event()

    async def wait(self, task_id: str, poll_interval: float) -> None:
        self.waiting.set()
        await super().wait(task_id, poll_interval)


def make_app(store: MemoryTaskStore, gate_on_waiter: bool) -> Server:
    app = Server("http-tasks", tasks=TaskManager(store))

    @app.tool(task_support="optional")
    async def asks(ctx: Context) -> str:
        """Progress, a log line and an elicitation, all for the task."""
        if gate_on_waiter:
            assert isinstance(store, SignallingStore)
            await store.waiting.wait()
        await ctx.progress(1, 2, "asking")
        await ctx.info("about to ask")
        answer = await ctx.elicit(
            "Name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        await ctx.progress(2, 2, "answered")
        return f"hello {answer.content['name'] if answer.content else '?'}"

    return app


async def post_json(http: httpx.AsyncClient, url: str, sid: str, message: Any) -> Any:
    """POST a request, read its one response whether JSON or SSE."""
    async with http.stream("POST", url, json=message, headers=raw.headers(sid)) as r:
        assert r.status_code == 200
        if r.headers["content-type"].startswith("application/json"):
            return orjson.loads(await r.aread())
        return raw.messages(await raw.read_events(r))[-1]


async def test_task_messages_travel_on_the_waiting_tasks_result_stream(wire: Any) -> None:
    store = SignallingStore()
    app = make_app(store, gate_on_waiter=True)
    asgi = app.http_app()
    async with running(asgi) as base, httpx.AsyncClient(timeout=10) as http:
        url = base + "/mcp"
        init = raw.init_message()
        init["params"]["capabilities"] = {"elicitation": {"form": {}}}
        r = await http.post(url, json=init, headers=raw.headers())
        sid = r.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await http.post(url, json=note, headers=raw.headers(sid))).status_code == 202

        call = raw.tool_call(1, "asks", progress=True)
        call["params"]["task"] = {"ttl": 60_000}
        created = await post_json(http, url, sid, call)
        task_id = created["result"]["task"]["taskId"]
        assert created["result"]["task"]["status"] == "working"

        wait = {"jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": {"taskId": task_id}}
        async with http.stream("POST", url, json=wait, headers=raw.headers(sid)) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            chunks = stream.aiter_bytes()
            decoder = raw.SSEDecoder()

            async def until_elicitation() -> list[Any]:
                got: list[Any] = []
                async for chunk in chunks:
                    for event in decoder.feed(chunk):
                        if event.data:
                            got.append(orjson.loads(event.data))
                            if got[-1].get("method") == "elicitation/create":
                                return got
                raise AssertionError(f"the stream ended first: {got}")

            before = await until_elicitation()
            # Progress and the log line came first, on this stream, tied to the task.
            methods = [m.get("method") for m in before]
            assert methods == [
                "notifications/progress",
                "notifications/message",
                "elicitation/create",
            ]
            for m in before:
                assert m["params"]["_meta"][RELATED_TASK] == {"taskId": task_id}
            assert before[0]["params"]["progressToken"] == "p1"
            elicitation = before[-1]
            # The answer is a plain POST of a JSON-RPC response: 202, no body.
            answer = {
                "jsonrpc": "2.0",
                "id": elicitation["id"],
                "result": {"action": "accept", "content": {"name": "Ada"}},
            }
            r = await http.post(url, json=answer, headers=raw.headers(sid))
            assert r.status_code == 202 and r.content == b""
            after = [
                orjson.loads(e.data)
                async for chunk in chunks
                for e in decoder.feed(chunk)
                if e.data
            ]
        # More progress, then the result closes the stream.
        assert [m.get("method") for m in after[:-1]] == ["notifications/progress"]
        final = after[-1]
        assert final["id"] == 2
        assert final["result"]["content"][0]["text"] == "hello Ada"
        assert final["result"]["_meta"][RELATED_TASK] == {"taskId": task_id}

        # Nothing of the task went to the standalone stream: only unrelated status updates.
        transport = asgi.sessions[sid]
        standalone = asgi.event_store.replay(sid, transport._standalone.key, 0)
        assert standalone is not None
        sent_there = [orjson.loads(data).get("method") for _, data in standalone]
        assert set(sent_there) <= {"notifications/tasks/status"}
        assert sent_there  # input_required, working, completed were announced there


async def test_client_completes_an_eliciting_task_over_http(wire: Any) -> None:
    """The high-level client as requestor: the task's elicitation reaches it (on the GET
    stream, or the tasks/result stream it opens on ``input_required``) and the task ends."""
    app = make_app(MemoryTaskStore(), gate_on_waiter=False)
    seen: list[str] = []

    def answer(params: Any, ctx: Any) -> dict[str, Any]:
        seen.append(params.meta.model_dump(by_alias=True)[RELATED_TASK]["taskId"])
        return {"action": "accept", "content": {"name": "Grace"}}

    async with running(app.http_app()) as base:
        # The 2025-11-25 tasks (the same endpoint serves 2026-07-28 too, which Client's
        # default era would pick).
        async with Client(
            base + "/mcp", tracer=wire(), elicitation_handler=answer, era="legacy"
        ) as client:
            task = await client.call_tool_as_task("asks", {})
            final = await client.wait_task(task.task_id, timeout=10)
            assert final.status == "completed"
            result = await client.get_task_result(task.task_id, timeout=10)
            assert result.content[0].text == "hello Grace"  # type: ignore[union-attr]
            assert seen == [task.task_id]
