"""One way of calling a user's function for every feature: async functions, async callables,
sync functions (in the worker pool, off the event loop) and sync functions returning
awaitables work the same for tools, prompts, resources, templates and completions."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from mcpkit import Server
from mcpkit.server.invoke import UserFunction, is_async_callable
from mcpkit.server.offload import WorkerPool
from tests.server.helpers import call, connected, text


class AsyncCallable:
    """An object whose ``__call__`` is async."""

    def __init__(self, reply: str) -> None:
        self.reply = reply

    async def __call__(self) -> str:
        return f"{self.reply} on {threading.current_thread().name}"


async def _later(value: str) -> str:
    await asyncio.sleep(0)
    return value


def _kinds(word: str) -> dict[str, Any]:
    """One function of each kind, all answering ``word`` and the thread that ran it."""

    async def coroutine_fn() -> str:
        return f"{word} on {threading.current_thread().name}"

    def sync_fn() -> str:
        return f"{word} on {threading.current_thread().name}"

    def sync_returning_awaitable():  # type: ignore[no-untyped-def]  # no output schema
        return _later(f"{word} on {threading.current_thread().name}")

    return {
        "coroutine": coroutine_fn,
        "callable": AsyncCallable(word),
        "sync": sync_fn,
        "awaitable": sync_returning_awaitable,
    }


def _ran_in_pool(reply: str) -> bool:
    return "mcpkit-tool" in reply


@pytest.mark.parametrize("kind", ["coroutine", "callable", "sync", "awaitable"])
async def test_every_feature_calls_every_kind_of_function(wire: Any, kind: str) -> None:
    app = Server("invoke")
    app.add_tool(_kinds("tool")[kind], name="t")
    app.add_prompt(_kinds("prompt")[kind], name="p")
    app.add_resource(_kinds("resource")[kind], "mem://static", name="r")

    async def template_async(id: str) -> str:
        return f"template {id} on {threading.current_thread().name}"

    def template_sync(id: str) -> str:
        return f"template {id} on {threading.current_thread().name}"

    def template_awaitable(id: str):  # type: ignore[no-untyped-def]
        return _later(f"template {id} on {threading.current_thread().name}")

    class TemplateCallable:
        async def __call__(self, id: str) -> str:
            return f"template {id} on {threading.current_thread().name}"

    template_fns = {
        "coroutine": template_async,
        "callable": TemplateCallable(),
        "sync": template_sync,
        "awaitable": template_awaitable,
    }
    app.add_resource(template_fns[kind], "mem://item/{id}", name="item")

    async def complete_async(value: str) -> list[str]:
        return [value + "-a", threading.current_thread().name]

    def complete_sync(value: str) -> list[str]:
        return [value + "-a", threading.current_thread().name]

    def complete_awaitable(value: str):  # type: ignore[no-untyped-def]
        thread = threading.current_thread().name

        async def later() -> list[str]:
            return [value + "-a", thread]

        return later()

    class CompleteCallable:
        async def __call__(self, value: str) -> list[str]:
            return [value + "-a", threading.current_thread().name]

    complete_fns = {
        "coroutine": complete_async,
        "callable": CompleteCallable(),
        "sync": complete_sync,
        "awaitable": complete_awaitable,
    }
    app.completion(resource_template="mem://item/{id}", argument="id")(complete_fns[kind])

    in_pool = kind in ("sync", "awaitable")
    async with connected(app, wire) as (client, _):
        tool = text(await call(client, "t"))
        prompt = await client.request("prompts/get", {"name": "p"}, timeout=10)
        static = await client.request("resources/read", {"uri": "mem://static"}, timeout=10)
        item = await client.request("resources/read", {"uri": "mem://item/7"}, timeout=10)
        done = await client.request(
            "completion/complete",
            {
                "ref": {"type": "ref/resource", "uri": "mem://item/{id}"},
                "argument": {"name": "id", "value": "x"},
            },
            timeout=10,
        )

    replies = {
        "tool": tool,
        "prompt": prompt["messages"][0]["content"]["text"],
        "resource": static["contents"][0]["text"],
        "template": item["contents"][0]["text"],
        "completion": done["completion"]["values"][1],
    }
    assert replies["tool"].startswith("tool on ")
    assert replies["prompt"].startswith("prompt on ")
    assert replies["resource"].startswith("resource on ")
    assert replies["template"].startswith("template 7 on ")
    assert done["completion"]["values"][0] == "x-a"
    for feature, reply in replies.items():
        assert _ran_in_pool(reply) is in_pool, (feature, reply)


async def test_an_all_async_server_starts_no_worker_thread() -> None:
    pool = WorkerPool(2, "test-pool")

    async def fn(x: int) -> int:
        return x + 1

    assert await UserFunction(fn).call(pool, x=1) == 2
    assert not pool.started
    assert await UserFunction(lambda x: x * 2).call(pool, x=4) == 8
    assert pool.started
    pool.shutdown()
    assert not pool.started


def test_is_async_callable() -> None:
    async def a() -> None: ...

    def s() -> None: ...

    assert is_async_callable(a)
    assert is_async_callable(AsyncCallable("x"))
    assert not is_async_callable(s)
    assert not is_async_callable(len)
