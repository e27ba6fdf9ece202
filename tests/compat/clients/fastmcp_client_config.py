"""fastmcp's Client on an ``mcpServers`` configuration of two servers (each mounted under
its name on one router). Prints what it saw."""

import asyncio
import sys
from pathlib import Path

from fastmcp import Client

SERVER = str(Path(__file__).resolve().parent / "echo_server.py")
CONFIG = {
    "mcpServers": {
        "left": {"command": sys.executable, "args": [SERVER]},
        "right": {"command": sys.executable, "args": [SERVER]},
    }
}


async def main():
    async with Client(CONFIG) as client:
        print("server:", client.server_info.name)
        print("tools:", [t.name for t in await client.list_tools()])
        print("templates:", [t.uri_template for t in await client.list_resource_templates()])
        print("prompts:", [p.name for p in await client.list_prompts()])
        print("left:", (await client.call_tool("left_echo_tool", {"text": "hi"})).data)
        print("right:", (await client.call_tool("right_echo_tool", {"text": "ho"})).data)
        print("read:", [c.text for c in await client.read_resource("echo://right/abc")])
        prompt = await client.get_prompt("left_echo", {"text": "x"})
        print("prompt:", [(m.role, m.content.text) for m in prompt.messages])


if __name__ == "__main__":
    asyncio.run(main())
