"""The official receipts snippet's server and client extension, the claimed shape met at
the session level: ``client.session.call_tool`` raises ``UnexpectedClaimedResult`` carrying
the claim's model, or returns it with ``allow_claimed=True``; ``client.call_tool`` finishes
it (2.x's ``mcp.client``)."""

import asyncio
import runpy
from pathlib import Path

from mcp import Client
from mcp.client import UnexpectedClaimedResult

SNIPPET = Path(__file__).resolve().parent.parent / "examples" / "official_v2_extensions"
receipts = runpy.run_path(str(SNIPPET / "tutorial006.py"))


async def main() -> None:
    async with Client(receipts["mcp"], extensions=[receipts["Receipts"]()]) as client:
        try:
            await client.session.call_tool("buy", {"item": "lamp"})
        except UnexpectedClaimedResult as exc:
            print("unexpected", type(exc.result).__name__, exc.result.receipt_token)
        claimed = await client.session.call_tool("buy", {"item": "lamp"}, allow_claimed=True)
        print("claimed", type(claimed).__name__, claimed.result_type, claimed.receipt_token)
        plain = await client.session.call_tool("redeem", {"token": "r-1"})
        print("plain", plain.content)
        print("finished", (await client.call_tool("buy", {"item": "lamp"})).content)


asyncio.run(main())
