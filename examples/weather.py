"""The README's quick-start server: a tool with structured output, a template, a prompt."""

from pydantic import BaseModel

from mcpkit import Context, Server

app = Server("weather", version="1.0.0", instructions="Forecasts for any city.")


class Forecast(BaseModel):
    city: str
    days: int
    summary: str


@app.tool(annotations={"readOnlyHint": True})
async def forecast(city: str, days: int = 3, *, ctx: Context) -> Forecast:
    """Forecast for a city."""
    for day in range(1, days + 1):
        await ctx.progress(day, total=days, message=f"day {day}")
    await ctx.info(f"forecast for {city} ready")
    return Forecast(city=city, days=days, summary="sunny")


@app.resource("weather://{city}/current", mime_type="text/plain")
def current(city: str) -> str:
    """Current weather in a city."""
    return f"{city}: 21°C, clear"


@app.prompt()
def plan_trip(city: str) -> str:
    """Plan a trip around the weather."""
    return f"Plan a three-day trip to {city}; check the forecast first."


if __name__ == "__main__":
    app.run()  # stdio; app.run("http", port=8000) for Streamable HTTP
