"""The official Inspector's CLI (``--app-info``) reads the UI metadata mcpkit serves."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.conftest import ROOT, server_env
from tests.interop.conftest import NodePeer


def app_info(ts_peer: NodePeer, server: Path, *extra: str) -> list[dict[str, object]]:
    done = ts_peer.run(
        ts_peer.inspector_cli,
        "--cli",
        sys.executable,
        str(server),
        "--method",
        "tools/list",
        "--app-info",
        *extra,
        env={**ts_peer.env(), **server_env()},
        cwd=str(ROOT),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def test_the_inspector_reports_the_example_apps_ui(ts_peer: NodePeer) -> None:
    example = ROOT / "examples" / "weather_app" / "server.py"
    # Without declaring MCP Apps, the Inspector gets only the model's tool.
    assert app_info(ts_peer, example) == [
        {
            "hasApp": True,
            "toolName": "forecast",
            "resourceUri": "ui://weather/view",
            "prefersBorder": True,
            "resourceMimeType": "text/html;profile=mcp-app",
        }
    ]
    declared = app_info(ts_peer, example, "--advertise-apps")
    assert [(i["toolName"], i.get("visibility")) for i in declared] == [
        ("forecast", None),
        ("refresh_forecast", ["app"]),
    ]


def test_the_inspector_reports_csp_permissions_and_domain(ts_peer: NodePeer) -> None:
    server = ROOT / "tests" / "apps" / "app_server.py"
    info = {i["toolName"]: i for i in app_info(ts_peer, server, "--advertise-apps")}
    assert {name for name, i in info.items() if i["hasApp"]} == {"show", "refresh", "summarize"}
    assert info["plain"]["hasApp"] is False
    show = info["show"]
    assert show["resourceUri"] == "ui://apps/dashboard"
    assert show["csp"] == {
        "connectDomains": ["https://api.example.com", "wss://live.example.com"],
        "resourceDomains": ["https://*.cdn.example.com"],
    }
    assert show["permissions"] == {"geolocation": {}, "clipboardWrite": {}}
    assert show["domain"] == "a904794854a047f6.claudemcpcontent.com"
    assert show["prefersBorder"] is False
    assert info["summarize"]["visibility"] == ["model"]
