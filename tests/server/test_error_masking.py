"""Exception text from user code does not reach the client by default: an unexpected
exception in a tool, resource or prompt answers a generic message naming it and an error id
that the server log has with the exception; ``ToolError`` and ``McpError`` raised on purpose
pass through; ``mask_errors=False`` / ``MCPKIT_MASK_ERRORS=0`` / ``debug`` show details."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest

from mcpkit import Client, McpError, Server, ToolError
from tests.server.helpers import call, connected, text

SECRET = "password=hunter2 at db.internal:5432"
ERROR_ID = re.compile(r"\(error id ([0-9a-f]{12})\)")


def make_app(**options: Any) -> Server:
    app = Server("masking", **options)

    @app.tool()
    def crash() -> str:
        raise RuntimeError(SECRET)

    @app.tool()
    async def refuse(city: str) -> str:
        raise ToolError(f"no forecast for {city}")

    @app.tool()
    def protocol() -> str:
        raise McpError(-32602, "bad city", {"city": "x"})

    @app.tool()
    def unsendable() -> object:
        class Opaque:
            def __repr__(self) -> str:
                return SECRET

        return {"value": Opaque()}

    @app.resource("secret://config")
    def config() -> str:
        raise OSError(SECRET)

    @app.resource("secret://refused")
    def refused() -> str:
        raise ToolError("not for you")

    @app.prompt()
    def summary() -> str:
        raise KeyError(SECRET)

    return app


def logged_ids(caplog: pytest.LogCaptureFixture) -> dict[str, logging.LogRecord]:
    return {
        found.group(1): r
        for r in caplog.records
        if (found := re.search(r"error id ([0-9a-f]{12})", r.getMessage()))
    }


async def test_unexpected_exceptions_are_masked_and_logged_with_an_id(
    wire: Any, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MCPKIT_MASK_ERRORS", raising=False)
    caplog.set_level(logging.ERROR, "mcpkit")
    app = make_app()
    assert app.mask_errors
    async with connected(app, wire) as (client, _):
        answers = [await call(client, "crash"), await call(client, "unsendable")]
        errors = []
        for method, params in (
            ("resources/read", {"uri": "secret://config"}),
            ("prompts/get", {"name": "summary"}),
        ):
            with pytest.raises(McpError) as info:
                await client.request(method, params, timeout=10)
            assert info.value.code == -32603 and info.value.data is None
            errors.append(info.value.message)
    shown = [text(a) for a in answers] + errors
    assert all(a["isError"] for a in answers)
    assert shown[0].startswith("Error executing tool 'crash' (error id ")
    assert shown[1].startswith("Tool 'unsendable' returned a value that cannot be sent (error id")
    assert shown[2].startswith("Error reading resource secret://config (error id ")
    assert shown[3].startswith("Error rendering prompt 'summary' (error id ")
    logged = logged_ids(caplog)
    for message in shown:
        assert "hunter2" not in message and "Traceback" not in message
        found = ERROR_ID.search(message)
        assert found is not None, message
        record = logged[found.group(1)]  # the id the client got is in the server log
        assert record.exc_info is not None  # with the exception and its traceback
    assert SECRET in str(logged[ERROR_ID.search(shown[0]).group(1)].exc_info[1])  # type: ignore[union-attr,index]


async def test_errors_raised_on_purpose_pass_through(wire: Any) -> None:
    app = make_app()
    async with connected(app, wire) as (client, _):
        refused = await call(client, "refuse", {"city": "Oslo"})
        assert refused["isError"] is True
        assert text(refused) == "Error executing tool 'refuse': no forecast for Oslo"
        with pytest.raises(McpError) as info:
            await call(client, "protocol")
        assert (info.value.code, info.value.message, info.value.data) == (
            -32602,
            "bad city",
            {"city": "x"},
        )
        with pytest.raises(McpError) as info:
            await client.request("resources/read", {"uri": "secret://refused"}, timeout=10)
        assert info.value.message == "Error reading resource secret://refused: not for you"


@pytest.mark.parametrize("how", ["argument", "env", "debug", "attribute"])
async def test_one_setting_shows_details_in_development(
    how: str, wire: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MCPKIT_MASK_ERRORS", raising=False)
    if how == "env":
        monkeypatch.setenv("MCPKIT_MASK_ERRORS", "0")
    app = make_app(
        **(
            {"mask_errors": False}
            if how == "argument"
            else {"debug": True}
            if how == "debug"
            else {}
        )
    )
    if how == "attribute":
        app.mask_errors = False
    assert not app.mask_errors
    async with connected(app, wire) as (client, _):
        crashed = await call(client, "crash")
        assert text(crashed).startswith(f"Error executing tool 'crash': {SECRET}")
        assert ("Traceback" in text(crashed)) == (how == "debug")
        with pytest.raises(McpError) as info:
            await client.request("resources/read", {"uri": "secret://config"}, timeout=10)
        assert info.value.message == f"Error reading resource secret://config: {SECRET}"


def test_the_environment_can_insist_on_masking(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPKIT_MASK_ERRORS", "1")
    assert Server("x", debug=True).mask_errors  # debug tracebacks, but no details sent
    assert not Server("x", mask_errors=False).mask_errors  # the argument wins
    monkeypatch.setenv("MCPKIT_MASK_ERRORS", "maybe")
    with pytest.raises(ValueError, match="MCPKIT_MASK_ERRORS"):
        Server("x")


async def test_a_handler_failure_outside_user_functions_is_masked_too(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MCPKIT_MASK_ERRORS", raising=False)
    caplog.set_level(logging.ERROR, "mcpkit")
    app = Server("raw")

    @app.request_handler("vendor/broken")
    async def broken(params: Any, ctx: Any) -> Any:
        raise RuntimeError(SECRET)

    async with Client(app) as c:
        with pytest.raises(McpError) as info:
            await c.request("vendor/broken", {}, timeout=10)
    assert info.value.code == -32603 and "hunter2" not in info.value.message
    found = ERROR_ID.search(info.value.message)
    assert found is not None and found.group(1) in logged_ids(caplog)
