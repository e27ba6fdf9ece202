"""RFC 9207 issuer identification and the RFC 8414 metadata issuer check: the spec's
decision table row by row, and that no normalisation is ever applied."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from mcpkit.auth import OAuthClientAuth, headless_authorization_handler
from mcpkit.auth.errors import IssuerMismatchError, OAuthError
from mcpkit.auth.issuer import check_authorization_response_issuer, check_metadata_issuer
from tests.auth.conftest import Env
from tests.auth.mock_as import MockAS

Make = Callable[..., Any]

ISSUER = "https://auth.example.com/tenant1"


@pytest.mark.parametrize(
    ("advertised", "iss", "accepted"),
    [
        (True, ISSUER, True),  # advertised, present, equal: proceed
        (True, None, False),  # advertised, absent: reject
        (True, "https://evil.example.com", False),  # advertised, present, different
        (False, ISSUER, True),  # not advertised, present: still compared
        (False, "https://evil.example.com", False),
        (False, None, True),  # not advertised, absent: proceed
    ],
)
def test_decision_table(advertised: bool, iss: str | None, accepted: bool) -> None:
    def check() -> None:
        check_authorization_response_issuer(
            iss, recorded_issuer=ISSUER, iss_parameter_supported=advertised
        )

    if accepted:
        check()
    else:
        with pytest.raises(IssuerMismatchError) as caught:
            check()
        assert caught.value.expected == ISSUER and caught.value.received == iss
        assert caught.value.error == "issuer_mismatch"
        assert isinstance(caught.value, OAuthError)


@pytest.mark.parametrize(
    "variant",
    [
        ISSUER + "/",  # trailing slash
        "HTTPS://auth.example.com/tenant1",  # scheme case
        "https://AUTH.example.com/tenant1",  # host case
        "https://auth.example.com:443/tenant1",  # default port
        "https://auth.example.com/%74enant1",  # percent-encoding
        "https://auth.example.com/tenant1/.",  # dot segment
        "",  # present but empty
    ],
)
@pytest.mark.parametrize("advertised", [True, False])
def test_no_normalisation(variant: str, advertised: bool) -> None:
    with pytest.raises(IssuerMismatchError):
        check_authorization_response_issuer(
            variant, recorded_issuer=ISSUER, iss_parameter_supported=advertised
        )


def test_metadata_issuer_must_be_identical() -> None:
    url = "https://auth.example.com/.well-known/oauth-authorization-server/tenant1"
    check_metadata_issuer(ISSUER, issuer=ISSUER, url=url)
    for other in (ISSUER + "/", "https://attacker.example.com", None, 42):
        with pytest.raises(IssuerMismatchError, match="refusing") as caught:
            check_metadata_issuer(other, issuer=ISSUER, url=url)
        assert caught.value.received == (other if isinstance(other, str) else None)


# -- against the mock authorization server ------------------------------------------------------

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
HEADERS = {"accept": "application/json, text/event-stream"}


async def connect(env: Env) -> httpx.Response:
    """One MCP request through OAuthClientAuth: the auth errors arrive unwrapped."""
    auth = OAuthClientAuth(env.url, authorization_handler=headless_authorization_handler())
    async with httpx.AsyncClient(auth=auth, timeout=10) as http:
        return await http.post(env.url, json=INIT, headers=HEADERS)


@pytest.mark.parametrize(
    ("mock", "received"),
    [
        (MockAS(iss_mode="wrong"), "https://evil.example.com"),  # iss-wrong-issuer
        (MockAS(iss_mode="omit"), None),  # iss-supported-missing
        (MockAS(iss_supported=False, iss_mode="wrong"), "https://evil.example.com"),  # unexpected
        (MockAS(iss_mode="slash"), "/"),  # iss-normalized: issuer + "/"
        (MockAS(prefix="/T1", iss_mode="slash"), "/"),
    ],
)
async def test_authorization_response_refused(
    oauth_env: Make, mock: MockAS, received: str | None
) -> None:
    env: Env = await oauth_env(mock)
    with pytest.raises(IssuerMismatchError) as caught:
        await connect(env)
    expected = mock.issuer
    assert caught.value.expected == expected
    assert caught.value.received == (expected + "/" if received == "/" else received)
    assert len(mock.events("authorize")) == 1  # it got as far as the authorization request
    assert mock.events("token") == []  # and never redeemed the code


async def test_case_and_port_variants_refused(oauth_env: Make) -> None:
    mock = MockAS(iss_mode="value")
    env: Env = await oauth_env(mock)
    host_port = mock.issuer.removeprefix("http://")
    host, _, port = host_port.partition(":")
    for variant in (
        "HTTP://" + host_port,
        f"http://{host}:0{port}",  # the same port, spelled differently
        mock.issuer.replace("127.0.0.1", "localhost"),
    ):
        mock.iss_value = variant
        with pytest.raises(IssuerMismatchError):
            await connect(env)
    assert mock.events("token") == []


@pytest.mark.parametrize(
    "mock",
    [
        MockAS(),  # iss-supported: advertised and right
        MockAS(iss_supported=False, iss_mode="omit"),  # iss-not-advertised
        MockAS(iss_supported=False),  # sent without advertising it: compared, equal
        MockAS(prefix="/tenant1"),
    ],
)
async def test_authorization_response_accepted(oauth_env: Make, mock: MockAS) -> None:
    env: Env = await oauth_env(mock)
    response = await connect(env)
    assert response.status_code == 200
    assert len(mock.events("token")) == 1


async def test_metadata_issuer_mismatch_uses_nothing(oauth_env: Make) -> None:
    """auth/metadata-issuer-mismatch: the document names another issuer, so none of its
    endpoints is contacted (no registration, authorization or token request)."""
    mock = MockAS(metadata_issuer="https://attacker.example.com")
    env: Env = await oauth_env(mock)
    with pytest.raises(IssuerMismatchError, match="refusing") as caught:
        await connect(env)
    assert caught.value.received == "https://attacker.example.com"
    assert caught.value.expected == mock.issuer
    assert [e["kind"] for e in mock.log] == ["metadata"]


async def test_error_response_from_another_issuer_is_not_shown(oauth_env: Make) -> None:
    mock = MockAS(authorize_error="access_denied", iss_mode="wrong")
    env: Env = await oauth_env(mock)
    with pytest.raises(IssuerMismatchError) as caught:
        await connect(env)
    assert "access_denied" not in str(caught.value) and "said no" not in str(caught.value)
    mock.iss_mode = "correct"
    with pytest.raises(OAuthError, match="access_denied") as refused:
        await connect(env)
    assert refused.value.error == "access_denied"
