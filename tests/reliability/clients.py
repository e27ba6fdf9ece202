"""Low-level client sessions for the reliability suite, counting the notifications they get."""

from __future__ import annotations

import asyncio
from typing import Any

from mcpkit.session import ClientSession
from mcpkit.transports import StdioClientTransport
from mcpkit.transports.http import StreamableHTTPClientTransport
from tests.reliability.procs import ROOT, env, stdio_command

CLIENT_INFO = {"name": "reliability", "version": "1"}


class Logs(list[int]):
    """The ``i`` of each log notification received; :attr:`complete` set at ``expected``."""

    def __init__(self) -> None:
        super().__init__()
        self.expected = 0
        self.complete = asyncio.Event()

    def expect(self, count: int) -> None:
        self.clear()
        self.expected = count
        self.complete.clear()
        if count == 0:
            self.complete.set()

    def __call__(self, params: Any) -> None:
        self.append(params["data"]["i"])
        if len(self) >= self.expected:
            self.complete.set()


async def open_session(target: str, **transport_kw: Any) -> tuple[ClientSession, Logs]:
    """A started, initialized session: ``target`` is ``"stdio"`` or a URL."""
    transport: Any
    if target == "stdio":
        cmd = stdio_command()
        transport = StdioClientTransport(cmd[0], cmd[1:], env=env(), cwd=str(ROOT), **transport_kw)
    else:
        transport_kw.setdefault("sse_read_timeout", 30)
        transport = StreamableHTTPClientTransport(target, **transport_kw)
    client = ClientSession(transport)
    logs = Logs()
    client.set_notification_handler("notifications/message", logs)
    await client.start()
    await client.initialize(CLIENT_INFO, {}, timeout=20)
    return client, logs


async def call(client: ClientSession, name: str, timeout: float = 60, **arguments: Any) -> Any:
    return await client.request(
        "tools/call", {"name": name, "arguments": arguments}, timeout=timeout
    )
