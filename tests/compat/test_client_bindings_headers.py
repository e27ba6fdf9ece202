"""The official client 2.x's ``NotificationBinding`` and its ``Mcp-Name`` header, on
mcpkit's compat client: the same client script run by mcp 2.x and unchanged on mcpkit
against the same server (an mcp 2.x server over Streamable HTTP, which records the MCP
headers of each POST it receives), on 2026-07-28 and on the handshake era.

- a ``ClientExtension`` whose ``notifications()`` binds a vendor notification gets its
  params validated by the binding's model, in order; params the model refuses are dropped;
  a binding of a notification the revision defines (``notifications/message``) is never
  delivered;
- ``client.session.send_request(request, ResultType)`` of a request type declaring
  ``name_param`` sends that params value as the ``Mcp-Name`` header (base64-wrapped when
  it is not plain ASCII), as the SDK's client does; the requests of the protocol carry
  theirs as before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.compat.recorded import run_both

SERVER = """\
import json, sys
from typing import Any

import uvicorn
from pydantic import BaseModel

import mcp.types as types
from mcp.server.mcpserver import Context, MCPServer

LOG = sys.argv[1]
mcp = MCPServer("Receipts")


class Vendor(BaseModel):
    method: str
    params: dict[str, Any]


@mcp.tool()
async def buy(item: str, ctx: Context) -> str:
    for n in (0, 1, "not a number", 2):
        note = Vendor(method="notifications/receipts", params={"item": item, "n": n})
        await ctx.session.send_notification(note, related_request_id=ctx.request_id)
    await ctx.info("bought")
    return "bought " + item


class LookupParams(types.RequestParams):
    name: str


class LookupResult(types.Result):
    found: str


async def lookup(ctx: Any, params: LookupParams) -> LookupResult:
    return LookupResult(found="found " + params.name)


mcp._lowlevel_server.add_request_handler("acme/lookup", LookupParams, lookup)
app = mcp.streamable_http_app()
KEYS = ("mcp-method", "mcp-name", "mcp-protocol-version")


async def recording(scope, receive, send):
    if scope["type"] == "http" and scope["method"] == "POST":
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        with open(LOG, "a") as log:
            log.write(json.dumps({k: headers[k] for k in KEYS if k in headers}) + "\\n")
    await app(scope, receive, send)


uvicorn.run(recording, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""

CLIENT = """\
import sys
from typing import Any, ClassVar, Literal

import anyio
from pydantic import BaseModel

import mcp.types as types
from mcp import Client
from mcp.client import ClientExtension, NotificationBinding


class Receipt(BaseModel):
    item: str
    n: int


class Receipts(ClientExtension):
    identifier = "com.example/receipts"

    def __init__(self) -> None:
        self.seen: list[Any] = []
        self.arrived = anyio.Event()

    def notifications(self):
        return [
            NotificationBinding(
                method="notifications/receipts", params_type=Receipt, handler=self.on_receipt
            ),
            NotificationBinding(
                method="notifications/message", params_type=BaseModel, handler=self.on_log
            ),
        ]

    async def on_receipt(self, params: Receipt) -> None:
        self.seen.append((type(params).__name__, params.item, params.n))
        if len(self.seen) == 3:
            self.arrived.set()

    async def on_log(self, params: Any) -> None:
        self.seen.append("a core notification reached a binding")


class LookupParams(types.RequestParams):
    name: str


class LookupRequest(types.Request[LookupParams, Literal["acme/lookup"]]):
    method: Literal["acme/lookup"] = "acme/lookup"
    params: LookupParams
    name_param: ClassVar[str | None] = "name"


class LookupResult(types.Result):
    found: str


async def main() -> None:
    url, mode = sys.argv[1:3]
    receipts = Receipts()
    async with Client(url, mode=mode, extensions=[receipts]) as client:
        for name in ("plain", "h\\u00e9llo w\\u00f6rld"):
            request = LookupRequest(params=LookupParams(name=name))
            print((await client.session.send_request(request, LookupResult)).found)
        result = await client.call_tool("buy", {"item": "tea"})
        print(result.content[0].text)
        with anyio.fail_after(10):
            await receipts.arrived.wait()
        await anyio.sleep(0.2)  # anything that would follow
    print(receipts.seen)


anyio.run(main)
"""


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
def test_bindings_and_name_header_as_the_sdk(mode: str, tmp_path: Path) -> None:
    seen = {}
    for side, (out, posts) in run_both(tmp_path, SERVER, CLIENT, mode).items():
        # the exchanges each client makes to connect (and close) are its own: the requests
        # the script sends are compared
        wanted = [p for p in posts if p.get("mcp-method") in ("acme/lookup", "tools/call")]
        if mode == "legacy":
            wanted = [p for p in posts if "mcp-name" in p]
        seen[side] = out, wanted
    assert seen["ours"] == seen["theirs"]
    out, headers = seen["theirs"]
    assert out.splitlines() == [
        "found plain",
        "found h\u00e9llo w\u00f6rld",
        "bought tea",
        "[('Receipt', 'tea', 0), ('Receipt', 'tea', 1), ('Receipt', 'tea', 2)]",
    ]
    names = [h["mcp-name"] for h in headers]
    assert names[:2] == ["plain", "=?base64?aMOpbGxvIHfDtnJsZA==?="]
