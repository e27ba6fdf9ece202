"""The dev server's JSON/SSE API, over HTTP against a running dev server and the sample
server it runs as a subprocess."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from mcpkit.dev import DevServer
from mcpkit.dev.api import TOKEN_HEADER, static_file
from tests.dev.conftest import events_of


def _read(path: Path) -> str:
    return path.read_text()


def _write(path: Path, text: str) -> None:
    path.write_text(text)


def _client(dev: DevServer, token: bool = True) -> httpx.AsyncClient:
    headers = {TOKEN_HEADER: dev.token} if token else {}
    return httpx.AsyncClient(base_url=dev.base_url, headers=headers, timeout=60)


async def test_every_call_needs_the_token(dev: DevServer) -> None:
    assert dev.url.startswith("http://127.0.0.1:") and f"?token={dev.token}" in dev.url
    async with _client(dev, token=False) as http:
        for method, path in [
            ("GET", "/"),
            ("GET", "/api/state"),
            ("GET", "/api/events"),
            ("POST", "/api/tools/call"),
            ("POST", "/api/answer"),
        ]:
            response = await http.request(method, path)
            assert response.status_code == 403, path
            wrong = await http.request(method, path, params={"token": dev.token + "x"})
            assert wrong.status_code == 403, path
        page = await http.get("/", params={"token": dev.token})
        assert page.status_code == 200 and "inspector.js" in page.text
        assert "default-src 'none'" in page.headers["content-security-policy"]
        # Another Host name (a rebound DNS name) is refused even with the token.
        rebound = await http.get(
            "/api/state", params={"token": dev.token}, headers={"host": "evil.example:80"}
        )
        assert rebound.status_code == 403


async def test_state_lists_and_calls(dev: DevServer) -> None:
    async with _client(dev) as http:
        state = (await http.get("/api/state")).json()
        assert state["server"]["name"] == "dev-sample" and state["connected"]
        assert "io.modelcontextprotocol/ui" in state["capabilities"]["extensions"]
        names = {t["name"] for t in state["tools"]}
        assert names >= {"add", "echo", "count", "ask_user", "long_job"}
        assert [r["uri"] for r in state["resources"]] == ["ui://sample/view", "sample://readme"]
        assert state["templates"][0]["uriTemplate"] == "sample://city/{city}"
        assert state["prompts"][0]["name"] == "greet"

        result = (
            await http.post("/api/tools/call", json={"name": "add", "arguments": {"a": 2, "b": 3}})
        ).json()
        assert result["structuredContent"] == {"total": 5} and not result.get("isError")
        bad = await http.post("/api/tools/call", json={"name": "add", "arguments": {"a": "x"}})
        assert bad.status_code == 200 and bad.json()["isError"] is True
        missing = await http.post("/api/tools/call", json={"arguments": {}})
        assert missing.status_code == 400 and "name" in missing.json()["error"]["message"]
        unknown = await http.post("/api/tools/call", json={"name": "nope"})
        assert unknown.status_code in (200, 502)

        read = (await http.post("/api/resources/read", json={"uri": "sample://city/Oslo"})).json()
        assert '"Oslo"' in read["contents"][0]["text"]
        prompt = (
            await http.post(
                "/api/prompts/get", json={"name": "greet", "arguments": {"name": "Ada"}}
            )
        ).json()
        assert prompt["messages"][0]["content"]["text"] == "Say hello to Ada in english."
        done = await http.post(
            "/api/complete",
            json={
                "ref": {"type": "ref/prompt", "name": "greet"},
                "argument": {"name": "name", "value": "a"},
            },
        )
        assert done.json()["completion"]["values"] == ["Ada", "Alan"]
        city = await http.post(
            "/api/complete",
            json={
                "ref": {"type": "ref/resource", "uri": "sample://city/{city}"},
                "argument": {"name": "city", "value": "os"},
            },
        )
        assert city.json()["completion"]["values"] == ["Oslo", "Osaka"]

        view = (await http.post("/api/apps/view", json={"uri": "ui://sample/view"})).json()
        assert view["csp"].startswith("default-src 'none'")
        assert '<meta http-equiv="Content-Security-Policy"' in view["html"].split("<title>")[0]
        # The view's own URL serves it with that CSP as a header, without the token.
        async with httpx.AsyncClient(base_url=dev.base_url) as bare:
            served = await bare.get(view["viewUrl"])
        assert served.status_code == 200 and "<title>sample view</title>" in served.text
        assert served.headers["content-security-policy"] == view["csp"]
        assert dev.token not in served.text
        assert (await http.get("/view/unknown")).status_code == 404


async def test_progress_and_logs_reach_the_event_stream(dev: DevServer) -> None:
    async with _client(dev) as http, events_of(http, dev.token) as events:
        result = await http.post(
            "/api/tools/call", json={"name": "count", "arguments": {"steps": 3}, "callId": "c1"}
        )
        assert result.json()["content"][0]["text"] == "counted to 3"
        last = await events.wait_for("progress", callId="c1", progress=3)
        assert last["total"] == 3 and last["message"] == "step 3 of 3"
        log = await events.wait_for("log", data="step 2")
        assert log["level"] == "info"


async def test_an_elicitation_is_answered_through_the_api(dev: DevServer) -> None:
    async with _client(dev) as http, events_of(http, dev.token) as events:
        call = asyncio.create_task(http.post("/api/tools/call", json={"name": "ask_user"}))
        request = (await events.wait_for("request"))["request"]
        assert request["kind"] == "elicitation"
        assert request["params"]["message"] == "Who are you?"
        assert "name" in request["params"]["requestedSchema"]["properties"]
        listed = (await http.get("/api/pending")).json()
        assert [p["id"] for p in listed] == [request["id"]]
        unknown = await http.post(
            "/api/answer", json={"id": "nope", "result": {"action": "cancel"}}
        )
        assert unknown.status_code == 404
        answer = {"action": "accept", "content": {"name": "Ada", "color": "blue"}}
        ok = await http.post("/api/answer", json={"id": request["id"], "result": answer})
        assert ok.status_code == 200
        result = (await call).json()
        assert result["content"][0]["text"] == "hello Ada (blue)"
        await events.wait_for("answered", id=request["id"])
        assert (await http.get("/api/pending")).json() == []


async def test_sampling_is_answered_through_the_api(dev: DevServer) -> None:
    async with _client(dev) as http, events_of(http, dev.token) as events:
        call = asyncio.create_task(
            http.post("/api/tools/call", json={"name": "ask_llm", "arguments": {"question": "hi?"}})
        )
        request = (await events.wait_for("request"))["request"]
        assert request["kind"] == "sampling"
        assert request["params"]["messages"][0]["content"]["text"] == "hi?"
        reply = {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "me"}
        await http.post("/api/answer", json={"id": request["id"], "result": reply})
        assert (await call).json()["content"][0]["text"] == "model said: hello"


async def test_a_tool_runs_as_a_task_in_both_eras(dev: DevServer) -> None:
    async with _client(dev) as http, events_of(http, dev.token) as events:
        for era in ("legacy", "2026-07-28"):
            await http.post("/api/connect", json={"era": era})
            body = {"name": "long_job", "arguments": {"steps": 2}, "task": True, "callId": era}
            task = (await http.post("/api/tools/call", json=body)).json()["task"]
            assert task["tool"] == "long_job" and task["taskId"]
            done = await events.wait_for(
                "task", taskId=task["taskId"], status="completed", callId=era
            )
            assert done["result"]["content"][0]["text"] == "done after 2 steps", era
            listed = {t["taskId"]: t for t in (await http.get("/api/tasks")).json()}
            assert listed[task["taskId"]]["status"] == "completed"
            if era == "legacy":  # a 2026-07-28 task is polled: no progress stream
                await events.wait_for("progress", callId=era, progress=2)
        unknown = await http.post("/api/tasks/cancel", json={"taskId": "nope"})
        assert unknown.status_code == 404


async def test_the_modern_era_can_be_chosen(dev: DevServer) -> None:
    async with _client(dev) as http:
        state = (await http.post("/api/connect", json={"era": "2026-07-28"})).json()
        assert state["modern"] is True and state["protocolVersion"] == "2026-07-28"
        legacy = (await http.post("/api/connect", json={"era": "legacy"})).json()
        assert legacy["modern"] is False and legacy["protocolVersion"] == "2025-11-25"
        bad = await http.post("/api/connect", json={"era": "1999"})
        assert bad.status_code == 400


async def test_a_file_change_restarts_the_server_with_the_new_tool(
    dev: DevServer, sample_file: Path
) -> None:
    async with _client(dev) as http, events_of(http, dev.token) as events:
        before = (await http.get("/api/state")).json()
        _write(
            sample_file,
            _read(sample_file)
            + "\n\n@app.tool()\ndef shout(text: str) -> str:\n    return text.upper()\n",
        )
        reload = await events.wait_for("reload", reason="change")
        assert reload["generation"] > before["generation"] and reload["error"] is None
        state = (await http.get("/api/state")).json()
        assert "shout" in {t["name"] for t in state["tools"]}
        result = (
            await http.post("/api/tools/call", json={"name": "shout", "arguments": {"text": "hi"}})
        ).json()
        assert result["content"][0]["text"] == "HI"

        # A broken file is reported, and the next good save serves again.
        good = _read(sample_file)
        _write(sample_file, good + "\nthis is not python\n")
        broken = await events.wait_for("reload", generation=reload["generation"] + 1)
        assert broken["error"]
        assert (
            await http.post("/api/tools/call", json={"name": "echo", "arguments": {"text": "x"}})
        ).status_code == 503
        _write(sample_file, good)
        fixed = await events.wait_for("reload", generation=reload["generation"] + 2)
        assert fixed["error"] is None


async def test_a_crashed_server_is_reported_and_restarted(dev: DevServer) -> None:
    async with _client(dev) as http, events_of(http, dev.token) as events:
        crashed = await http.post("/api/tools/call", json={"name": "crash"})
        assert crashed.status_code == 503
        assert crashed.json()["error"]["message"] == "the server process exited with code 3"
        await events.wait_for("exited")
        state = (await http.get("/api/state")).json()
        assert state["connected"] is False and state["error"].endswith("code 3")
        assert any("boom" in line for line in state["stderr"])
        again = (await http.post("/api/restart")).json()
        assert again["connected"] is True and again["generation"] == state["generation"] + 1


def test_the_inspector_files_ship_as_package_data() -> None:
    from importlib import resources

    folder = resources.files("mcpkit.dev").joinpath("static")
    names = {p.name for p in folder.iterdir()}
    assert {"index.html", "inspector.js", "inspector.css"} <= names
    assert b"inspector.js" in static_file("index.html")
