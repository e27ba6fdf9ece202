"""A 2.x ``MCPServer`` with an opt-in extension (``MCPServer(extensions=[...])``): the
extension contributes a tool stamped with its ``_meta`` and advertises its settings under
``capabilities.extensions``. Runs unchanged on ``mcp`` 2.x and on mcpkit
(``python -m mcpkit.compat``)."""

from mcp.server import MCPServer
from mcp.server.mcpserver import Extension, ToolBinding


def weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


class WeatherExtension(Extension):
    identifier = "com.example/weather"

    def settings(self) -> dict:
        return {"units": ["metric", "imperial"]}

    def tools(self):
        return [ToolBinding(weather, meta={"com.example/weather": {"cached": True}})]


mcp = MCPServer("extended", extensions=[WeatherExtension()])


@mcp.tool()
def ping() -> str:
    """Answer pong."""
    return "pong"


if __name__ == "__main__":
    mcp.run()
