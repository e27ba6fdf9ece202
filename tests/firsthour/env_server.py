"""A stdio server that tells the names of its environment variables."""

import os

from mcpkit import Server

app = Server("env")


@app.tool()
def names() -> list[str]:
    """The environment's variable names."""
    return sorted(os.environ)


if __name__ == "__main__":
    app.run()
