"""A server slow to start (as one loading a model): it sleeps ``SLOW_SECONDS`` before it
serves stdio, its stdin unread meanwhile."""

import os
import time

from mcpkit import Server

time.sleep(float(os.environ.get("SLOW_SECONDS", "0")))

app = Server("slow")


@app.tool()
def ready() -> str:
    """Say it is ready."""
    return "ready"


if __name__ == "__main__":
    app.run()
