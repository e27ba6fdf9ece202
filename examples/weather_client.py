"""A client for examples/weather.py: list, call with progress, read, prompt."""

import asyncio
from pathlib import Path

from mcpkit import Client

HERE = Path(__file__).parent


async def main() -> None:
    # weather.py runs with this interpreter over stdio; or Client("http://127.0.0.1:8000/mcp")
    async with Client(str(HERE / "weather.py")) as c:
        print([t.name for t in await c.list_tools()])
        result = await c.call_tool(
            "forecast",
            {"city": "Oslo"},
            on_progress=lambda p, total, msg: print(f"  {p}/{total} {msg}"),
        )
        print(result.structured_content)
        page = await c.read_resource("weather://Oslo/current")
        print(page.contents[0].text)
        prompt = await c.get_prompt("plan_trip", {"city": "Oslo"})
        print(prompt.messages[0].content.text)


asyncio.run(main())
