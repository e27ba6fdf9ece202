"""An MCP App: a forecast tool whose results a host shows in an interactive view.

``forecast`` is for the model (and the app); ``refresh_forecast`` only for the app (hidden
from clients that do not declare MCP Apps). The view is ``view.html`` next to this file,
served as ``ui://weather/view``; it asks the host to allow no network origins at all.

Run it: ``mcpkit run examples/weather_app/server.py`` (stdio) or with ``-t http``.
"""

import random
from pathlib import Path

from pydantic import BaseModel

from mcpkit import Server

app = Server("weather-app", version="1.0.0")

app.add_ui(
    "ui://weather/view",
    Path(__file__).with_name("view.html"),
    name="weather_view",
    description="Today's weather for a city, with a refresh button",
    prefers_border=True,
)


class Forecast(BaseModel):
    city: str
    temperature: int
    summary: str


def _forecast(city: str) -> Forecast:
    return Forecast(city=city, temperature=random.randint(12, 24), summary="clear skies")


@app.tool(ui="ui://weather/view", annotations={"readOnlyHint": True})
def forecast(city: str) -> Forecast:
    """Today's weather for a city (shown in the weather view by hosts with MCP Apps; a
    text-only client reads the JSON text of the result)."""
    return _forecast(city)


@app.tool(ui="ui://weather/view", visibility=["app"])
def refresh_forecast(city: str) -> Forecast:
    """Fetch the weather again (called by the view's Refresh button)."""
    return _forecast(city)


if __name__ == "__main__":
    app.run()
