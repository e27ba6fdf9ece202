"""fastmcp's Client on servers it starts: a script given as a ``Path`` and a one-server
``mcpServers`` configuration. Prints what it saw."""

import asyncio
import sys
from pathlib import Path

from fastmcp import Client
from fastmcp.client import PythonStdioTransport

SERVER = Path(__file__).resolve().parent / "echo_server.py"


async def show(client):
    async with client:
        print("server:", client.server_info.name, client.is_connected())
        print("tools:", [t.name for t in await client.list_tools()])
        print("templates:", [t.uri_template for t in await client.list_resource_templates()])
        result = await client.call_tool("echo_tool", {"text": "hi"})
        print("call:", result.data, result.content[0].text)
        print("read:", [c.text for c in await client.read_resource("echo://abc")])
        prompt = await client.get_prompt("echo", {"text": "x"})
        print("prompt:", [(m.role, m.content.text) for m in prompt.messages])


async def main():
    await show(Client(SERVER))
    await show(Client({"mcpServers": {"echo": {"command": sys.executable, "args": [str(SERVER)]}}}))
    await show(Client(PythonStdioTransport(SERVER)))


if __name__ == "__main__":
    asyncio.run(main())
