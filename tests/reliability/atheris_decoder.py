"""Coverage-guided fuzzing of the message decoder with atheris (libFuzzer).

Each input is a byte stream as a peer would write it to stdio: the line framer splits it
(with a small size limit, so oversize handling is reached), a server session decodes and
answers every line, and the SSE decoder parses the same bytes. Any exception, or an answer
that is not a valid JSON-RPC response, is a finding.

    .venv/bin/python tests/reliability/atheris_decoder.py -runs=4000 -seed=1 \
        -dict=tests/reliability/jsonrpc.dict -max_len=512                    # the CI run
    .venv/bin/python tests/reliability/atheris_decoder.py -max_total_time=600 \
        -dict=tests/reliability/jsonrpc.dict -max_len=4096 corpus/           # by hand

(libFuzzer flags; a corpus folder keeps what it learnt between runs.)
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import atheris
import orjson

sys.path[:0] = [
    str(Path(__file__).resolve().parents[2]),
    str(Path(__file__).resolve().parents[2] / "src"),
]

with atheris.instrument_imports(include=["mcpkit"]):
    from mcpkit.jsonrpc import is_valid_id
    from mcpkit.transports.base import Transport
    from mcpkit.transports.http.sse import SSEDecoder
    from mcpkit.transports.stdio import LineFramer, _oversize_reply
    from tests.reliability.strategies import fuzz_server

CODES = {-32700, -32600, -32601, -32602, -32603, -32002}


class Capture(Transport):
    """Keeps what the session writes."""

    def __init__(self) -> None:
        self.written: list[Any] = []

    async def start(self, sink: Any) -> None:
        self.sink = sink

    def write(self, message: Any, related_request_id: Any = None) -> None:
        self.written.append(message)

    async def close(self) -> None:
        self.sink.connection_lost(None)


LOOP = asyncio.new_event_loop()
APP = fuzz_server()
INIT = (
    b'{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":'
    b'"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}\n'
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
)


def check(message: Any) -> None:
    assert type(message) is dict and message.get("jsonrpc") == "2.0", message
    if "method" in message:
        return  # a notification or a request of the server's own
    assert ("result" in message) != ("error" in message), message
    assert message["id"] is None or is_valid_id(message["id"]), message
    if "error" in message:
        assert message["error"]["code"] in CODES, message


async def one(data: bytes) -> None:
    transport = Capture()
    session = APP.session(transport)
    await session.start()
    framer = LineFramer(session, 256, _oversize_reply(transport, session, 256))
    framer.feed(INIT)
    framer.feed(data)
    framer.feed(b'\n{"jsonrpc":"2.0","id":"last","method":"ping"}\n')
    for _ in range(30):
        await asyncio.sleep(0)
    for message in transport.written:
        check(message)
    assert {"jsonrpc": "2.0", "id": "last", "result": {}} in transport.written
    await session.close()


def test_one_input(data: bytes) -> None:
    LOOP.run_until_complete(one(data))
    decoder = SSEDecoder(1024)
    cut = data[0] % (len(data) + 1) if data else 0
    for part in (data[:cut], data[cut:]):
        try:
            events = decoder.feed(part)
        except ValueError:
            break
        for event in events:
            if event.event == "message" and event.data.startswith("{"):
                try:
                    orjson.loads(event.data)
                except orjson.JSONDecodeError:
                    pass


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
