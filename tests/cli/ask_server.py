"""A server for the CLI tests that asks the client: a form elicitation with every field kind,
a URL elicitation, a sampling request and a prompt. Every message it sends and receives is checked
against the official schema; problems are written to the file named by $WIRE_ERRORS."""

from __future__ import annotations

import asyncio
import atexit
import os
import sys
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mcpkit import Context, Server
from tests.wire import WireChecker

app = Server("ask", version="0.1")


class Signup(BaseModel):
    name: str = Field(description="Your name")
    age: int = Field(ge=0, le=150)
    color: Literal["red", "green", "blue"] = "red"
    newsletter: bool = False
    nickname: str | None = None


@app.tool()
async def signup(ctx: Context) -> str:
    """Ask the user to sign up (a form with every field kind)."""
    answer = await ctx.elicit("Please sign up", Signup)
    if answer.accepted and answer.data is not None:
        d = answer.data
        return (
            f"signed up {d.name}, {d.age}, {d.color}, newsletter={d.newsletter}, nick={d.nickname}"
        )
    return f"user chose {answer.action}"


@app.tool()
async def visit(ctx: Context) -> str:
    """Ask the user to open a URL."""
    answer = await ctx.elicit_url("Please log in", "https://example.com/login", "elic-1")
    return f"url elicitation: {answer.action}"


@app.tool()
async def ask_llm(question: str, ctx: Context) -> str:
    """Ask the client's LLM."""
    result = await ctx.sample(question, max_tokens=50, system_prompt="Be brief.")
    return "llm said: " + getattr(result.content, "text", "")


@app.prompt()
def greet(name: str, times: str = "1") -> str:
    """Greet someone (prompt arguments are strings on the wire)."""
    return f"hello {name} x{times}"


if __name__ == "__main__":
    checker = WireChecker("2025-11-25")

    def report() -> None:
        target = os.environ.get("WIRE_ERRORS")
        if target:
            Path(target).write_text("\n".join(checker.errors))

    atexit.register(report)
    asyncio.run(app.run_stdio(tracer=checker))
