"""Two workers of a low-level 2.x ``Server`` with a ``RequestStateBoundary`` appended by
hand, built with the same ``RequestStateSecurity(keys=[...])``: a multi round-trip tool's
first round answered by one worker, the retry by the other (each its own process, over
Streamable HTTP), with the official client 2.x run by hand. On mcp 2.x and on mcpkit the
second worker opens the ``requestState`` the first sealed (mcpkit's own sealing layer
under it is keyed from the same secrets, not per process) and finishes the call; a
tampered token is refused alike (-32602 ``Invalid or expired requestState``); a worker
given other keys refuses the state too."""

from __future__ import annotations

from pathlib import Path

from tests.compat.recorded import run_both

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
# sys.argv[1] is the path of a log this server keeps none of
security = RequestStateSecurity(keys=[sys.argv[2].encode()])
server.middleware.append(RequestStateBoundary(security, default_audience=server.name))
app = server.streamable_http_app()
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[3]), log_level="warning")
"""

CLIENT = """\
import sys

import anyio

from mcp import Client
from mcp.types import ElicitResult, InputRequiredResult


async def retry(url, mode, state):
    answer = {"confirm": ElicitResult(action="accept", content={"confirm": True})}
    async with Client(url, mode=mode) as client:
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
    first, second, stranger, mode = sys.argv[1:5]
    async with Client(first, mode=mode) as a:
        round1 = await a.session.call_tool("deploy", {"env": "prod"}, allow_input_required=True)
    assert isinstance(round1, InputRequiredResult), round1
    print(sorted(round1.input_requests or {}))
    print(await retry(second, mode, round1.request_state))
    print(await retry(second, mode, round1.request_state[:-4] + "AAAA"))
    print(await retry(stranger, mode, round1.request_state))


anyio.run(main)
"""

KEY = "a-deployment-secret-of-32-bytes!"
OTHER = "another-secret-of-thirty-2-bytes"


def test_lowlevel_workers_sharing_keys_accept_each_others_state(tmp_path: Path) -> None:
    printed = run_both(
        tmp_path,
        SERVER,
        CLIENT,
        "2026-07-28",
        servers=[[KEY], [KEY], [OTHER]],
        on_mcpkit="server",
    )
    assert printed["theirs"][0] == (
        "['confirm']\n"
        "deployed to prod (env=prod)\n"
        "-32602 Invalid or expired requestState\n"
        "-32602 Invalid or expired requestState\n"
    )
    assert printed["ours"][0] == printed["theirs"][0]
