"""Two workers of a low-level 2.x ``Server`` with a ``RequestStateBoundary`` appended by
hand, built with the same ``RequestStateSecurity(keys=[...])``: a multi round-trip tool's
first round answered by one worker, the retry by the other (each its own process, over
Streamable HTTP), with the official client 2.x run by hand. On mcp 2.x and on mcpkit the
second worker opens the ``requestState`` the first sealed (mcpkit's own sealing layer
under it is keyed from the same secrets, not per process) and finishes the call; a
tampered token is refused alike (-32602 ``Invalid or expired requestState``); a worker
given other keys refuses the state too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.compat.driving import warmed
from tests.compat.test_compat import free_port, serve
from tests.compat.test_unchanged import peer

SERVER = """\
import sys
from typing import Any

import uvicorn

import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity

CONFIRM: types.ElicitRequestedSchema = {
    "type": "object",
    "properties": {"confirm": {"type": "boolean"}},
    "required": ["confirm"],
}


async def list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    schema = {"type": "object", "properties": {"env": {"type": "string"}}, "required": ["env"]}
    return types.ListToolsResult(tools=[types.Tool(name="deploy", input_schema=schema)])


async def call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult:
    env = (params.arguments or {})["env"]
    responses = params.input_responses
    if responses is None or "confirm" not in responses:
        ask = types.ElicitRequest(
            params=types.ElicitRequestFormParams(
                message=f"Deploy to {env}?", requested_schema=CONFIRM
            )
        )
        state = "env=" + env
        return types.InputRequiredResult(input_requests={"confirm": ask}, request_state=state)
    answer = responses["confirm"]
    text = f"deployed to {env} ({params.request_state})"
    if not (isinstance(answer, types.ElicitResult) and (answer.content or {}).get("confirm")):
        text = "cancelled"
    return types.CallToolResult(content=[types.TextContent(text=text)])


server = Server("deployer", on_list_tools=list_tools, on_call_tool=call_tool)
security = RequestStateSecurity(keys=[sys.argv[1].encode()])
server.middleware.append(RequestStateBoundary(security, default_audience=server.name))
app = server.streamable_http_app()
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""

CLIENT = """\
import sys

import anyio

from mcp import Client
from mcp.types import ElicitResult, InputRequiredResult


async def retry(url, state):
    answer = {"confirm": ElicitResult(action="accept", content={"confirm": True})}
    async with Client(url, mode="2026-07-28") as client:
        try:
            done = await client.session.call_tool(
                "deploy", {"env": "prod"}, input_responses=answer, request_state=state,
                allow_input_required=True,
            )
        except Exception as exc:  # the client raises the error answer
            error = getattr(exc, "error", exc)
            return f"{getattr(error, 'code', None)} {getattr(error, 'message', None)}"
        return done.content[0].text


async def main() -> None:
    first, second, stranger = sys.argv[1:4]
    async with Client(first, mode="2026-07-28") as a:
        round1 = await a.session.call_tool("deploy", {"env": "prod"}, allow_input_required=True)
    assert isinstance(round1, InputRequiredResult), round1
    print(sorted(round1.input_requests or {}))
    print(await retry(second, round1.request_state))
    print(await retry(second, round1.request_state[:-4] + "AAAA"))
    print(await retry(stranger, round1.request_state))


anyio.run(main)
"""

KEY = "a-deployment-secret-of-32-bytes!"
OTHER = "another-secret-of-thirty-2-bytes"


def test_lowlevel_workers_sharing_keys_accept_each_others_state(tmp_path: Path) -> None:
    server = tmp_path / "server.py"
    server.write_text(SERVER)
    client = tmp_path / "client.py"
    client.write_text(CLIENT)
    sides = {
        "theirs": [str(peer("mcp2")), str(server)],
        "ours": [sys.executable, "-m", "mcpkit.compat", str(server)],
    }
    printed = {}
    for side, argv in sides.items():
        workers = [(free_port(), KEY), (free_port(), KEY), (free_port(), OTHER)]
        procs = [serve([*argv, key], port) for port, key in workers]
        try:
            done = subprocess.run(
                warmed(
                    [str(peer("mcp2")), str(client)]
                    + [f"http://127.0.0.1:{port}/mcp" for port, _ in workers]
                ),
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(timeout=10)
        printed[side] = done.stdout, done.stderr[-3000:]
    assert printed["theirs"][0] == (
        "['confirm']\n"
        "deployed to prod (env=prod)\n"
        "-32602 Invalid or expired requestState\n"
        "-32602 Invalid or expired requestState\n"
    ), printed["theirs"][1]
    assert printed["ours"][0] == printed["theirs"][0], printed["ours"][1]
