"""Machine-to-machine authorization in the compat layer, compared with the real SDKs.

SEP-990 on the official SDK's server auth: ``identity_assertion_tutorial002.py`` (the
documentation's authorization server validating ID-JAGs with ``create_auth_routes(...,
identity_assertion_enabled=True)``), ``identity_assertion_server.py`` (the snippet whose
validation is a stub failing closed) and an ``MCPServer`` that is its own authorization server
with ``AuthSettings(identity_assertion_enabled=True)``, all copied unchanged
(``examples/official_v2_m2m``, see ``examples/NOTICE``), are sent the same requests on
``mcp`` 2.x and on mcpkit by ``servers/sdk_identity_assertion.py``; every answer (status, the
headers a client reads, the body) must be equal, the minted access tokens aside.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.compat.test_compat import SERVERS
from tests.compat.test_unchanged import peer

EXAMPLES = Path(__file__).resolve().parent / "examples" / "official_v2_m2m"


def pyjwt_path(tmp_path: Path) -> str:
    """A directory holding PyJWT alone (the tutorial imports ``jwt``; mcpkit does not depend
    on it), linked from the SDK peer's installation."""
    found = subprocess.run(
        [str(peer("mcp2")), "-c", "import jwt, os; print(os.path.dirname(jwt.__file__))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (tmp_path / "jwt").symlink_to(found)
    return str(tmp_path)


def answers(command: list[str], env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """What the driver prints, each answer read as a client reads it (an access token by
    name, a tool result's absent ``isError`` as false)."""
    done = subprocess.run(
        [*command, str(Path(SERVERS) / "sdk_identity_assertion.py"), str(EXAMPLES)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = []
    for line in done.stdout.splitlines():
        answer = json.loads(line)
        body = answer["body"]
        if isinstance(body, dict) and "access_token" in body:
            body["access_token"] = "<token>"
        if isinstance(body, list):
            for message in body:
                result = message.get("result", {})
                if "content" in result:
                    result.setdefault("isError", False)
        out.append(answer)
    return out


def test_identity_assertion_grant_answers_as_the_sdk(tmp_path: Path) -> None:
    theirs = answers([str(peer("mcp2"))])
    path = os.pathsep.join([pyjwt_path(tmp_path), *sys.path])
    ours = answers([sys.executable, "-m", "mcpkit.compat"], env={**os.environ, "PYTHONPATH": path})
    assert [a["label"] for a in ours] == [a["label"] for a in theirs]
    for mine, sdk in zip(ours, theirs, strict=True):
        assert mine == sdk, mine["label"]
    by_label = {a["label"]: a for a in ours}
    # The comparison covers what matters: the grant issued, refused and advertised.
    assert by_label["tutorial002 token granted"]["status"] == 200
    assert by_label["tutorial002 token replayed"]["body"]["error"] == "invalid_grant"
    assert by_label["tutorial002 token public client"]["body"]["error"] == "unauthorized_client"
    assert by_label["disabled token granted"]["body"]["error"] == "unsupported_grant_type"
    assert by_label["snippet token"]["status"] == 500  # the stub fails closed
    profiles = by_label["mcpserver metadata"]["body"]["authorization_grant_profiles_supported"]
    assert profiles == ["urn:ietf:params:oauth:grant-profile:id-jag"]
    whoami = by_label["mcpserver mcp whoami"]["body"][0]["result"]["structuredContent"]
    assert whoami == {"result": "alice@example.com (notes:read) for http://localhost:8001/mcp"}


@pytest.mark.parametrize("enabled", [False, True])
def test_the_grant_is_advertised_only_when_enabled(enabled: bool) -> None:
    """mcpkit's metadata for a provider without and with the flag (no SDK needed)."""
    from mcpkit.compat._oauth_server import authorization_server_metadata
    from mcpkit.compat.mcp.server.auth.settings import (
        ClientRegistrationOptions,
        RevocationOptions,
    )

    doc = authorization_server_metadata(
        "https://a.example",
        "https://a.example/",
        None,
        ClientRegistrationOptions(),
        RevocationOptions(),
        enabled,
    )
    jwt_bearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    assert (jwt_bearer in doc["grant_types_supported"]) is enabled
    assert ("authorization_grant_profiles_supported" in doc) is enabled
