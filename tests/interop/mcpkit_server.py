"""mcpkit's example server (examples/server_everything.py) for the official clients to drive,
plus one tool that changes the tool list (for a ``subscriptions/listen`` to see), over stdio
or Streamable HTTP. Only mcpkit's public API.

    python tests/interop/mcpkit_server.py                        # stdio
    python tests/interop/mcpkit_server.py http PORT [LOG_FILE]   # http://127.0.0.1:PORT/mcp

Over HTTP, LOG_FILE records every JSON-RPC message of the conversation in the format of
``peers/tee.py`` (``{"dir": "c2s"|"s2c", "msg": ...}``: request bodies, and the JSON or SSE
``data:`` of the responses), for :func:`tests.interop.conftest.check_recorded`.
"""

from __future__ import annotations

import json
import runpy
import sys
import threading
from pathlib import Path
from typing import Any

from mcpkit import Server

ROOT = Path(__file__).resolve().parents[2]
app: Server = runpy.run_path(str(ROOT / "examples" / "server_everything.py"))["app"]


def _extra() -> str:
    """Added to the tool list by ``add_extra_tool``."""
    return "extra"


@app.tool()
def add_extra_tool() -> str:
    """Add a tool named ``extra`` (clients listening for tool-list changes hear of it)."""
    app.add_tool(_extra, name="extra")
    return "added the tool 'extra'"


class Recorder:
    """ASGI middleware appending each JSON-RPC message of each exchange to a log file."""

    def __init__(self, inner: Any, path: str) -> None:
        self.inner = inner
        self.log = open(path, "a", encoding="utf-8")
        self.lock = threading.Lock()

    def write(self, direction: str, body: bytes, content_type: str) -> None:
        text = body.decode("utf-8", "replace")
        if "text/event-stream" in content_type:
            payloads = [
                "\n".join(
                    line[5:].lstrip(" ") for line in event.splitlines() if line.startswith("data:")
                )
                for event in text.replace("\r\n", "\n").split("\n\n")
            ]
        else:
            payloads = [text]
        for payload in payloads:
            if not payload.strip():
                continue
            try:
                parsed = json.loads(payload)
            except ValueError:
                entry = {"dir": direction, "raw": payload}
            else:
                items = parsed if isinstance(parsed, list) else [parsed]
                for item in items:
                    self.append({"dir": direction, "msg": item})
                continue
            self.append(entry)

    def append(self, entry: dict[str, Any]) -> None:
        with self.lock:
            self.log.write(json.dumps(entry) + "\n")
            self.log.flush()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.inner(scope, receive, send)
            return
        request = bytearray()
        content_type = ""
        pending = bytearray()

        async def recv() -> Any:
            message = await receive()
            if message["type"] == "http.request":
                request.extend(message.get("body", b""))
                if not message.get("more_body") and request:
                    self.write("c2s", bytes(request), "application/json")
            return message

        async def snd(message: Any) -> None:
            nonlocal content_type
            if message["type"] == "http.response.start":
                for name, value in message.get("headers", []):
                    if name.lower() == b"content-type":
                        content_type = value.decode("latin-1")
            elif message["type"] == "http.response.body":
                pending.extend(message.get("body", b""))
                if "text/event-stream" in content_type:
                    # SSE: log each complete event as it goes (streams may stay open).
                    text = bytes(pending).replace(b"\r\n", b"\n")
                    cut = text.rfind(b"\n\n")
                    if cut >= 0:
                        self.write("s2c", text[: cut + 2], content_type)
                        del pending[:]
                        pending.extend(text[cut + 2 :])
                elif not message.get("more_body") and pending:
                    self.write("s2c", bytes(pending), content_type)
                    del pending[:]
            await send(message)

        await self.inner(scope, recv, snd)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        from mcpkit.transports.http import run

        port = int(sys.argv[2])
        asgi: Any = app.http_app()
        if len(sys.argv) > 3:
            asgi = Recorder(asgi, sys.argv[3])
        run(asgi, host="127.0.0.1", port=port, log_level="warning")
    else:
        app.run("stdio")


if __name__ == "__main__":
    main()
