"""A server with a tool that does something irreversible, and a factory; what each call
did is written to the file named by ``$SIDE_EFFECTS``."""

import os

from mcpkit import Server

app = Server("side")


def _record(what: str) -> None:
    with open(os.environ["SIDE_EFFECTS"], "a") as f:
        f.write(what + "\n")


@app.tool()
def reset_database() -> str:
    """Delete every row."""
    _record("reset_database ran")
    return "reset"


def helper():  # type: ignore[no-untyped-def]
    _record("helper ran")


def make_server() -> Server:
    """A factory: a fresh server."""
    made = Server("made")
    made.add_tool(lambda: "hi", name="hi")
    return made
