"""The server the dev loop's tests drive (copied into a temporary folder, so a test can
edit it and watch the dev server restart it)."""

import asyncio
import os
import sys
from typing import Literal

from pydantic import BaseModel

from mcpkit import Context, Server

app = Server("dev-sample", version="0.1.0", instructions="A server for mcpkit dev's tests.")

app.add_ui(
    "ui://sample/view",
    """<!doctype html><html><head><title>sample view</title></head><body>
<p id="status">waiting</p><button id="go">Ask the host</button>
<script>
let next = 1;
const pending = {};
function request(method, params) {
  const id = next++;
  window.parent.postMessage({jsonrpc: "2.0", id, method, params}, "*");
  return new Promise((resolve) => { pending[id] = resolve; });
}
window.addEventListener("message", (event) => {
  const msg = event.data;
  if (msg.id !== undefined && pending[msg.id]) { pending[msg.id](msg); delete pending[msg.id]; }
  if (msg.method === "ui/notifications/tool-result") {
    document.getElementById("status").textContent =
      "result: " + msg.params.structuredContent.total;
  }
});
request("ui/initialize", {protocolVersion: "2026-01-26", appInfo: {name: "sample", version: "1"},
                          appCapabilities: {}}).then(() => {
  window.parent.postMessage({jsonrpc: "2.0", method: "ui/notifications/initialized"}, "*");
});
document.getElementById("go").addEventListener("click", async () => {
  const answer = await request("tools/call", {name: "add", arguments: {a: 40, b: 2}});
  const total = answer.result.structuredContent.total;
  document.getElementById("status").textContent = "app got " + total;
  await request("ui/message", {role: "user", content: [{type: "text", text: "sum is 42"}]});
});
</script></body></html>""",
    name="sample_view",
)


class Total(BaseModel):
    total: int


@app.tool(ui="ui://sample/view")
def add(a: int, b: int) -> Total:
    """Add two integers (shown in the sample view)."""
    return Total(total=a + b)


@app.tool()
def echo(
    text: str, times: int = 1, loud: bool = False, mood: Literal["calm", "busy"] = "calm"
) -> str:
    """Repeat a text."""
    out = " ".join([text] * times)
    return f"{out.upper() if loud else out} ({mood})"


@app.tool()
async def count(steps: int, ctx: Context) -> str:
    """Count with progress and a log line per step."""
    for step in range(1, steps + 1):
        await ctx.info(f"step {step}")
        await ctx.progress(step, steps, f"step {step} of {steps}")
    return f"counted to {steps}"


@app.tool(task_support="optional")
async def long_job(steps: int, ctx: Context) -> str:
    """A job to run as a task."""
    for step in range(1, steps + 1):
        await asyncio.sleep(0.05)
        await ctx.progress(step, total=steps)
    return f"done after {steps} steps"


@app.tool()
def crash() -> str:
    """End the server process (as a bug would)."""
    sys.stderr.write("boom: the server is going down\n")
    sys.stderr.flush()
    os._exit(3)


class Contact(BaseModel):
    name: str
    color: Literal["red", "green", "blue"] = "red"


@app.tool()
async def ask_user(ctx: Context) -> str:
    """Ask the user for a name (elicitation)."""
    answer = await ctx.elicit("Who are you?", Contact)
    if answer.accepted and answer.data is not None:
        return f"hello {answer.data.name} ({answer.data.color})"
    return f"user chose {answer.action}"


@app.tool()
async def ask_llm(question: str, ctx: Context) -> str:
    """Ask the client's model (sampling)."""
    result = await ctx.sample(question, max_tokens=50)
    return "model said: " + getattr(result.content, "text", "")


@app.resource("sample://readme", mime_type="text/plain")
def readme() -> str:
    """A text resource."""
    return "read me"


@app.resource("sample://city/{city}", mime_type="application/json")
def city(city: str) -> dict[str, str]:
    """A city (a resource template)."""
    return {"city": city}


@app.completion(resource_template="sample://city/{city}", argument="city")
def complete_city(value: str) -> list[str]:
    return [c for c in ("Oslo", "Osaka", "Ottawa") if c.lower().startswith(value.lower())]


@app.prompt()
def greet(name: str, language: Literal["english", "norwegian"] = "english") -> str:
    """Greet someone."""
    return f"Say hello to {name} in {language}."


@app.completion(prompt="greet", argument="name")
def complete_name(value: str) -> list[str]:
    return [n for n in ("Ada", "Alan", "Grace") if n.lower().startswith(value.lower())]
