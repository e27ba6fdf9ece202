"""A small server as a new user writes it: prints before run(), then serves stdio."""

from mcpkit import Server

print("loading the weather data")

app = Server("weather")


@app.tool()
def forecast(city: str) -> str:
    """A fixed forecast."""
    return f"sunny in {city}"


if __name__ == "__main__":
    app.run()
