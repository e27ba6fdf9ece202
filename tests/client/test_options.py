"""Client's option objects: the signature stays short, and the old keywords still work."""

from __future__ import annotations

import asyncio
import inspect
import os
import warnings
from typing import Any

import pytest

from mcpkit import Client, Server, Timeout
from mcpkit.client import (
    CacheOptions,
    ClientHooks,
    Elicitation,
    HttpOptions,
    ProtocolOptions,
    Sampling,
    StdioOptions,
)
from mcpkit.client.cache import MemoryResponseCache


def test_the_constructor_takes_at_most_twenty_parameters() -> None:
    params = [p for p in inspect.signature(Client.__init__).parameters if p != "self"]
    assert len(params) <= 20, params


def _llm(params: Any, ctx: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}


def _ask(params: Any, ctx: Any) -> str:
    return "decline"


def _server() -> Server[Any]:
    app: Server[Any] = Server("opts")

    @app.tool()
    def hello() -> str:
        return "hello"

    return app


def test_each_old_keyword_warns_with_its_new_spelling_and_lands_in_its_object() -> None:
    changed = print
    with pytest.warns(DeprecationWarning) as caught:
        c = Client(
            "server.py",
            sampling_handler=_llm,
            sampling_tools=True,
            sampling_context=True,
            elicitation_handler=_ask,
            elicitation_modes=("url",),
            on_list_changed=changed,
            auto_refresh=True,
            on_progress=changed,
            timeout=5,
            max_total_timeout=30,
            reset_timeout_on_progress=False,
            env={"A": "1"},
            cwd="/tmp",
            probe_timeout=0.5,
            protocol_version="2025-06-18",
            extensions={"io.example/x": {}},
            max_input_rounds=3,
            validate_output=False,
            cache_principal="alice",
        )
    assert len(caught) == 1
    message = str(caught[0].message)
    assert caught[0].filename == __file__  # points at the caller
    for spelled in (
        "sampling_tools= is now sampling_handler=Sampling(handler, tools=...)",
        "elicitation_modes= is now elicitation_handler=Elicitation(handler, modes=...)",
        "on_list_changed= is now hooks=ClientHooks(on_list_changed=...)",
        "max_total_timeout= is now timeout=Timeout(..., max_total=...)",
        "env= is now connection=StdioOptions(env=...)",
        "protocol_version= is now protocol=ProtocolOptions(version=...)",
        "cache_principal= is now cache=CacheOptions(principal=...)",
    ):
        assert spelled in message
    assert c.timeout == Timeout(5, max_total=30, reset_on_progress=False)
    assert c.stdio == StdioOptions(env={"A": "1"}, cwd="/tmp", probe_timeout=0.5)
    assert c.probe_timeout == 0.5 and c.max_input_rounds == 3 and not c.validate_output
    assert c.auto_refresh and c._principal == "alice"
    assert c._handlers.sampling_cap == {"tools": {}, "context": {}}
    assert c._handlers.elicitation_modes == ("url",)
    assert c._opening.protocol_version == "2025-06-18"
    assert c._handlers.capabilities()["extensions"] == {"io.example/x": {}}


def test_the_new_spelling_is_the_same_client_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = Client(
            "server.py",
            sampling_handler=Sampling(_llm, tools=True, context=True),
            elicitation_handler=Elicitation(_ask, modes=("url",)),
            hooks=ClientHooks(on_list_changed=print, auto_refresh=True, on_progress=print),
            timeout=Timeout(5, max_total=30, reset_on_progress=False),
            connection=StdioOptions(env={"A": "1"}, cwd="/tmp", probe_timeout=0.5),
            protocol=ProtocolOptions(
                version="2025-06-18",
                extensions={"io.example/x": {}},
                max_input_rounds=3,
                validate_output=False,
            ),
            cache=CacheOptions(principal="alice"),
        )
    assert c.timeout == Timeout(5, max_total=30, reset_on_progress=False)
    assert c.probe_timeout == 0.5 and c.max_input_rounds == 3 and not c.validate_output
    assert c.auto_refresh and c._principal == "alice"
    assert isinstance(c.cache, MemoryResponseCache)
    assert c._handlers.sampling_cap == {"tools": {}, "context": {}}
    assert c._handlers.elicitation_modes == ("url",)
    assert c._handlers.capabilities()["extensions"] == {"io.example/x": {}}


def test_cache_options_and_http_options() -> None:
    store = MemoryResponseCache()
    assert Client("x.py", cache=CacheOptions(store=store)).cache is store
    assert Client("x.py", cache=CacheOptions(store=None)).cache is None
    assert Client("x.py", cache=False).cache is None
    c = Client("http://127.0.0.1:9/mcp", connection=HttpOptions({"default_retry_ms": 5}))
    assert c._http_options == {"default_retry_ms": 5}
    with pytest.warns(DeprecationWarning, match=r"connection=HttpOptions\(options=...\)"):
        old = Client("http://127.0.0.1:9/mcp", http_options={"default_retry_ms": 5})
    assert old._http_options == {"default_retry_ms": 5}


def test_a_setting_given_twice_or_an_unknown_keyword_is_refused() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        Client("x.py", colour="blue")
    with pytest.raises(TypeError, match="env given twice"), pytest.warns(DeprecationWarning):
        Client("x.py", connection=StdioOptions(env={"A": "1"}), env={"B": "2"})
    with pytest.raises(TypeError, match="give them in the Timeout"):
        with pytest.warns(DeprecationWarning):
            Client("x.py", timeout=Timeout(1), max_total_timeout=5)
    with pytest.raises(TypeError, match="on_log given twice"):
        Client("x.py", on_log=print, hooks=ClientHooks(on_log=print))
    with pytest.raises(TypeError, match="not a StdioOptions"), pytest.warns(DeprecationWarning):
        Client("x.py", connection=HttpOptions(), env={"B": "2"})


async def test_deprecated_hooks_still_fire() -> None:
    app = _server()
    changed: asyncio.Queue[str] = asyncio.Queue()
    with pytest.warns(DeprecationWarning, match="on_list_changed"):
        client = Client(app, on_list_changed=changed.put_nowait, era="legacy")
    async with client:
        assert (await client.call_tool("hello")).text == "hello"
        app.disable_tool("hello")
        assert await asyncio.wait_for(changed.get(), 10) == "tools"


def test_from_config_passes_the_new_spelling() -> None:
    config = {"mcpServers": {"s": {"command": "python", "args": ["s.py"], "cwd": os.getcwd()}}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = Client.from_config(config, "s", hooks=ClientHooks(auto_refresh=True))
    assert c.auto_refresh
