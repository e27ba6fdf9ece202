"""Hypothesis strategies for JSON-RPC messages: valid ones, near misses and garbage."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import strategies as st

from mcpkit import Server

#: Methods a server knows, plus a few it does not.
METHODS = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
    "tasks/get",
    "no/such/method",
    "",
]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
valid_ids = st.integers(min_value=-(2**53), max_value=2**53) | st.text(max_size=16)
any_ids = (
    valid_ids
    | st.none()
    | st.booleans()
    | st.floats(allow_nan=False)
    | st.lists(scalars, max_size=2)
)
methods = st.sampled_from(METHODS) | st.text(max_size=20)
params = (
    st.none()
    | st.fixed_dictionaries(
        {},
        optional={
            "name": st.sampled_from(["echo", "fail", "missing"]) | json_values,
            "arguments": st.dictionaries(st.sampled_from(["text", "x"]), json_values, max_size=2)
            | json_values,
            "uri": st.sampled_from(["mem://doc/a", "mem://nope"]) | json_values,
            "requestId": any_ids,
            "protocolVersion": st.sampled_from(["2025-11-25", "1999-01-01"]) | json_values,
            "capabilities": json_values,
            "clientInfo": json_values,
            "level": st.sampled_from(["info", "debug", "nope"]) | json_values,
            "_meta": json_values,
        },
    )
    | json_values
)

#: Dicts shaped like JSON-RPC messages, each member present or not, right or wrong.
message_dicts: st.SearchStrategy[dict[str, Any]] = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.just("2.0") | st.sampled_from(["1.0", "2", 2.0]) | json_values,
        "id": any_ids,
        "method": methods | json_values,
        "params": params,
        "result": json_values,
        "error": json_values,
    },
)

#: Well-formed requests (the spec's shape) with any method and params.
requests: st.SearchStrategy[dict[str, Any]] = st.builds(
    lambda rid, method, p: {"jsonrpc": "2.0", "id": rid, "method": method, "params": p},
    valid_ids,
    methods,
    st.dictionaries(st.text(max_size=8), json_values, max_size=3),
)


def _mutate(data: bytes, cut: int, flip: int, byte: int) -> bytes:
    if not data:
        return bytes([byte])
    out = bytearray(data[: max(1, cut % (len(data) + 1))])
    if out:
        out[flip % len(out)] = byte
    return bytes(out)


#: Bytes on the wire: encodings of the above, mutated encodings, and random bytes.
wire_bytes: st.SearchStrategy[bytes] = st.one_of(
    message_dicts.map(orjson.dumps),
    json_values.map(orjson.dumps),
    st.builds(
        _mutate,
        message_dicts.map(orjson.dumps),
        st.integers(0, 400),
        st.integers(0, 400),
        st.integers(0, 255),
    ),
    st.binary(min_size=1, max_size=64),
)


def fuzz_server() -> Server:
    """A small server whose every tool answers at once (fuzzed calls never wait)."""
    app = Server("fuzz")

    @app.tool()
    async def echo(text: str) -> str:
        return text

    @app.tool()
    async def fail(text: str) -> str:
        raise ValueError(text)

    @app.resource("mem://doc/{name}")
    async def doc(name: str) -> str:
        return name

    @app.prompt()
    async def greet(name: str) -> str:
        return f"Hello, {name}"

    return app
