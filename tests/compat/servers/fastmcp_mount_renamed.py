"""fastmcp's ``mount(..., tool_names=...)``: tools renamed, then namespaced (the title made
from the final name, an explicit one kept), the old names not served, a prompt of the same
name untouched, a key naming no tool ignored, and a rename without a namespace."""

import os

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

from fastmcp import FastMCP

mcp = FastMCP("gateway")
weather = FastMCP("weather")
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


@weather.tool
def alerts() -> list[str]:
    return []


@weather.prompt(name="forecast")
def forecast_prompt(city: str) -> str:
    return f"Brief me on {city}"


@plain.tool
def status_of(name: str) -> str:
    return f"{name}: ok"


@plain.tool
def ping() -> str:
    return "pong"


mcp.mount(
    weather,
    namespace="weather",
    tool_names={"forecast": "tomorrow", "now_conditions": "now", "missing": "x"},
)
mcp.mount(plain, tool_names={"ping": "plain_ping"})
if __name__ == "__main__":
    mcp.run()
