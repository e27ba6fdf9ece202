"""A server for the CLI tests: what a tool does with a declined sampling request decides the
exit code (a result with isError is a tool error; error -1 is the user's answer only when a
request was in fact declined)."""

from __future__ import annotations

from mcpkit import Context, McpError, Server, ToolError

app = Server("decline", version="0.1", mask_errors=False)  # the test reads the failure


@app.tool()
async def ask_or_fail(ctx: Context) -> str:
    """Ask the client's LLM; a declined request becomes a tool error (isError)."""
    try:
        await ctx.sample("hi", max_tokens=10)
    except McpError as exc:
        raise ToolError(f"cannot go on without an answer ({exc.message})") from exc
    return "answered"


@app.tool()
def minus_one() -> str:
    """Fail with error -1 without asking anything."""
    raise McpError(-1, "not a decline")


if __name__ == "__main__":
    app.run()
