"""The Timeout value object: its checks, and the same meaning in the session's request(),
Client(timeout=...) and each call's timeout=..."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit import RequestTimeout, Timeout
from mcpkit.timeouts import resolve

SLOW = {"name": "sleep", "arguments": {"steps": 6, "delay": 0.1}}  # 0.6 s, progress every 0.1 s


def test_fields_checks_and_resolve() -> None:
    t = Timeout(5, max_total=30)
    assert (t.timeout, t.max_total, t.reset_on_progress) == (5.0, 30.0, True)
    assert t == Timeout(5.0, max_total=30.0) and repr(t) == "Timeout(5, max_total=30)"
    assert repr(Timeout(None, reset_on_progress=False)) == "Timeout(None, reset_on_progress=False)"
    with pytest.raises(ValueError, match="negative"):
        Timeout(-1)
    with pytest.raises(TypeError, match="seconds"):
        Timeout(True)
    with pytest.raises(TypeError, match="seconds"):
        Timeout(1, max_total="2")  # type: ignore[arg-type]
    # a number replaces only the per-wait seconds; a Timeout replaces everything
    assert resolve(2, t) == Timeout(2, max_total=30)
    assert resolve(None, t) == Timeout(None, max_total=30)
    assert resolve(Timeout(1), t) == Timeout(1)
    with pytest.raises(AttributeError):
        t.timeout = 3  # type: ignore[misc]


async def test_session_request_takes_a_timeout(connect: Any) -> None:
    from tests.test_session import CLIENT_INFO, text_of

    pair = await connect()
    await pair.client.initialize(CLIENT_INFO)

    def request(timeout: Any) -> Any:
        return pair.client.request("tools/call", SLOW, timeout=timeout, on_progress=lambda *a: None)

    assert text_of(await request(Timeout(0.3))) == "slept 6"  # progress restarts it
    assert text_of(await request(0.3)) == "slept 6"  # a plain float as before
    with pytest.raises(RequestTimeout):
        await request(Timeout(0.3, max_total=0.35))
    with pytest.raises(RequestTimeout):
        await request(Timeout(0.3, reset_on_progress=False))
    with pytest.raises(RequestTimeout):
        await request(Timeout(None, max_total=0.35))


@pytest.mark.parametrize("kind", ["memory"])
async def test_client_and_call_take_a_timeout(feature: Any) -> None:
    slow = {"steps": 6, "delay": 0.1}  # 0.6 s with progress every 0.1 s
    c = await feature(timeout=Timeout(0.3, max_total=0.4))
    assert c.timeout == Timeout(0.3, max_total=0.4)
    with pytest.raises(RequestTimeout):  # the client's total cap holds
        await c.call_tool("slow", slow)
    # a number replaces only the per-wait seconds: the client's cap still holds
    with pytest.raises(RequestTimeout):
        await c.call_tool("slow", slow, timeout=0.5)
    # a Timeout replaces them all
    assert (await c.call_tool("slow", slow, timeout=Timeout(0.3))).text == "done"
    with pytest.raises(RequestTimeout):
        await c.call_tool("slow", slow, timeout=Timeout(0.3, reset_on_progress=False))
    # the keywords of one setting keep working
    loose = await feature(timeout=0.3)
    assert loose.timeout == Timeout(0.3)
    assert (await loose.call_tool("slow", slow)).text == "done"
    with pytest.raises(RequestTimeout):
        await loose.call_tool("slow", slow, max_total_timeout=0.4)
    capped = await feature(timeout=Timeout(0.3, max_total=0.4, reset_on_progress=True))
    assert capped.timeout == Timeout(0.3, max_total=0.4)
