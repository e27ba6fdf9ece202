"""A minimal server (one tool, nothing optional) imports only what serving it needs: the
modules of features it does not use (tasks in either design, MRTR sealing, apps, sampling
and elicitation helpers, URI templates, middleware, telemetry, the client, auth, the
protocol models) load on first use. Each check runs in a fresh interpreter, so what the
test process itself imported does not count."""

from __future__ import annotations

import subprocess
import sys

import orjson
import pytest

#: Modules a server that registers one plain tool must not import, not even while serving
#: a 2025 session or a 2026-07-28 request over stdio.
OPTIONAL = (
    "mcpkit.tasks",
    "mcpkit.server.tasks",
    "mcpkit.server.tasks_extension",
    "mcpkit.sqlite_task_store",
    "mcpkit.server.request_state",
    "mcpkit.server.elicitation",
    "mcpkit.server.sampling",
    "mcpkit.server.roots",
    "mcpkit.apps",
    "mcpkit.server.uri_template",
    "mcpkit.server.middleware",
    "mcpkit.telemetry",
    "mcpkit.client",
    "mcpkit.auth",
    "mcpkit.types",
    "mcpkit.redis",
    "cryptography",
    "hmac",
    "secrets",
    "pydantic",
    "typing_extensions",
    "pathlib",
    "mimetypes",
    "hashlib",
    "jsonschema_rs",  # tools whose arguments are all primitives are checked without it
    "httpx",
    "starlette",
    "uvicorn",
)

SERVER = """
import sys

from mcpkit import Server

app = Server("minimal", version="1")


@app.tool()
async def echo(text: str) -> str:
    \"\"\"Echo the text.\"\"\"
    return text


@app.tool()
async def loaded(prefixes: str) -> str:
    \"\"\"The loaded modules among ``prefixes`` (comma-separated), and their submodules.\"\"\"
    wanted = prefixes.split(",")
    return ",".join(sorted(
        name
        for name in list(sys.modules)
        if any(name == p or name.startswith(p + ".") for p in wanted)
    ))


app.run()
"""

CLIENT_INFO = {"name": "footprint", "version": "1"}
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def loaded_after(code: str, prefixes: tuple[str, ...]) -> list[str]:
    """The modules among ``prefixes`` loaded after running ``code`` in a fresh interpreter."""
    probe = (
        f"{code}\nimport sys\nprefixes = {list(prefixes)!r}\n"
        "print(sorted(n for n in list(sys.modules) "
        "if any(n == p or n.startswith(p + '.') for p in prefixes)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    return eval(out.stdout.strip().splitlines()[-1])  # a list literal printed by the probe


def serve(messages: list[dict[str, object]]) -> list[dict[str, object]]:
    """Run the minimal server over stdio, send ``messages`` and return its responses to the
    requests among them, in order; then close its stdin, which ends it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        responses = []
        for message in messages:
            proc.stdin.write(orjson.dumps(message) + b"\n")
            proc.stdin.flush()
            if "id" in message:  # answered before the next one goes out
                responses.append(orjson.loads(proc.stdout.readline()))
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return responses


def tool_call(
    request_id: int, name: str, arguments: dict[str, object], **extra: object
) -> dict[str, object]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, **extra},
    }


def test_import_and_construction_load_no_optional_module() -> None:
    code = (
        "from mcpkit import Server\n"
        "app = Server('x')\n"
        "@app.tool()\n"
        "async def echo(text: str) -> str:\n"
        "    return text\n"
        "app.handler_table()\n"
    )
    assert loaded_after(code, OPTIONAL) == []


def test_serving_a_2025_session_loads_no_optional_module() -> None:
    responses = serve(
        [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": CLIENT_INFO,
                },
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            tool_call(3, "echo", {"text": "hi"}),
            tool_call(4, "loaded", {"prefixes": ",".join(OPTIONAL)}),
            # arguments the schema rejects: the schema engine loads and says why
            tool_call(5, "echo", {"text": 5}),
            tool_call(6, "echo", {"text": "hi", "extra": 1}),
            tool_call(7, "echo", {}),
            tool_call(8, "loaded", {"prefixes": "jsonschema_rs"}),
        ]
    )
    assert [r["id"] for r in responses] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert responses[0]["result"]["protocolVersion"] == "2025-11-25"  # type: ignore[index]
    assert {t["name"] for t in responses[1]["result"]["tools"]} == {"echo", "loaded"}  # type: ignore[index]
    assert responses[2]["result"]["content"] == [{"type": "text", "text": "hi"}]  # type: ignore[index]
    assert responses[3]["result"]["content"] == [{"type": "text", "text": ""}]  # type: ignore[index]
    for bad, expected in zip(
        responses[4:7], ("5 is not of type", "'extra'", "'text'"), strict=True
    ):
        assert bad["result"]["isError"] is True, bad  # type: ignore[index]
        assert expected in bad["result"]["content"][0]["text"], bad  # type: ignore[index]
    assert "jsonschema_rs" in responses[7]["result"]["content"][0]["text"].split(",")  # type: ignore[index]


def test_serving_2026_requests_loads_no_optional_module() -> None:
    responses = serve(
        [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "server/discover",
                "params": {"_meta": MODERN_META},
            },
            tool_call(2, "echo", {"text": "hi"}, _meta=MODERN_META),
            tool_call(3, "loaded", {"prefixes": ",".join(OPTIONAL)}, _meta=MODERN_META),
        ]
    )
    assert [r["id"] for r in responses] == [1, 2, 3]
    assert "2026-07-28" in responses[0]["result"]["supportedVersions"]  # type: ignore[index]
    assert responses[1]["result"]["content"] == [{"type": "text", "text": "hi"}]  # type: ignore[index]
    assert responses[2]["result"]["content"] == [{"type": "text", "text": ""}]  # type: ignore[index]


@pytest.mark.parametrize(
    ("use", "module"),
    [
        ("app.tool(task_support='optional')(lambda: 1)", "mcpkit.server.tasks_extension"),
        ("app.resource('file:///{name}')(lambda name: name)", "mcpkit.server.uri_template"),
        ("app.task_manager", "mcpkit.server.tasks"),
        ("app.request_state", "mcpkit.server.request_state"),
    ],
)
def test_a_feature_loads_its_module_on_first_use(use: str, module: str) -> None:
    code = f"from mcpkit import Server\napp = Server('x')\n{use}\n"
    assert module in loaded_after(code, (module,))
