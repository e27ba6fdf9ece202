"""fastmcp's mounting: namespaced tools (titles made from the namespaced name, an explicit
one kept), prompts, resources and templates, a nested mount and one without a namespace."""

import os

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

from fastmcp import FastMCP

mcp = FastMCP("gateway")
weather = FastMCP("weather")
deep = FastMCP("deep")
plain = FastMCP("plain")


@mcp.tool
def status() -> str:
    return "up"


@weather.tool
def forecast(city: str) -> str:
    """Tomorrow's weather."""
    return f"sun in {city}"


@weather.tool(title="Current conditions")
def now_conditions() -> dict[str, int]:
    return {"temp": 21}


@weather.resource("weather://stations")
def stations() -> list[str]:
    return ["north", "south"]


@weather.resource("weather://{city}/report")
def report(city: str) -> str:
    return f"report for {city}"


@weather.prompt
def brief(city: str) -> str:
    """Ask for a weather brief."""
    return f"Brief me on {city}"


@deep.tool
def echo(text: str) -> str:
    return text


@deep.resource("notes://{name}")
def note(name: str) -> str:
    return f"note {name}"


@plain.tool
def plain_ping() -> str:
    return "pong"


weather.mount(deep, namespace="deep")
mcp.mount(weather, namespace="weather")
mcp.mount(plain)

if __name__ == "__main__":
    mcp.run()
