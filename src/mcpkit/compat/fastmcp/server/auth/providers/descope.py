"""``fastmcp.server.auth.providers.descope`` on mcpkit: :class:`DescopeProvider`, a
resource server for a Descope project's tokens (served)."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlparse, urlsplit

from pydantic import AnyHttpUrl

from mcpkit.asgi_types import Scope, Send
from mcpkit.compat.fastmcp.server.auth.auth import RemoteAuthProvider, Route, TokenVerifier
from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier
from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

__all__ = ["DescopeProvider"]

_OPENID = "/.well-known/openid-configuration"
_OAUTH = "/.well-known/oauth-authorization-server"


def _parse_config_url(config_url: str) -> tuple[str, str, str, str]:
    """The Descope base URL, project ID, issuer URL and discovery URL of ``config_url``
    (a project's or an MCP server's discovery document)."""
    openid = config_url.rstrip("/")
    if not openid.endswith(_OPENID):
        openid += _OPENID
    issuer = openid[: -len(_OPENID)]
    parsed = urlparse(issuer)
    parts = parsed.path.strip("/").split("/")
    project = ""
    if "agentic" in parts:
        index = parts.index("agentic") + 1
        project = parts[index] if index < len(parts) else ""
    elif "apps" in parts:
        index = parts.index("apps") + 1
        project = parts[index] if index < len(parts) else ""
        if project == "agentic":
            project = ""
    if not project:
        raise ValueError(f"Could not extract project_id from config_url: {issuer}")
    return f"{parsed.scheme}://{parsed.netloc}".rstrip("/"), project, issuer, openid


async def _discover_scopes(openid_url: str) -> list[str] | None:
    """The ``scopes_supported`` of the discovery document (None when it cannot be read)."""
    import httpx

    try:
        async with httpx.AsyncClient() as client:
            response = await client.get(openid_url, timeout=10.0)
            response.raise_for_status()
        scopes = response.json().get("scopes_supported")
    except Exception:
        return None
    if isinstance(scopes, list):
        parsed = [scope for scope in scopes if isinstance(scope, str)]
        if not scopes or parsed:
            return parsed
    return None


class _DescopeJWTVerifier(JWTVerifier):
    """A project's tokens under any of its issuers: the project's, an MCP server's
    (``.../apps/agentic/<project>/<server>``) or a tenant's (``.../apps/<project>/<tenant>``)."""

    def __init__(self, *, descope_base_url: str, project_id: str, **options: Any) -> None:
        super().__init__(**options)
        self.project_issuer = f"{descope_base_url}/v1/apps/{project_id}"
        self.agentic_issuer = f"{descope_base_url}/v1/apps/agentic/{project_id}"

    def _validate_issuer(self, issuer: Any) -> bool:
        if super()._validate_issuer(issuer):
            return True
        if not isinstance(issuer, str):
            return False
        for prefix in (self.agentic_issuer, self.project_issuer):
            if issuer.startswith(prefix + "/"):
                segment = issuer[len(prefix) + 1 :].strip("/")
                if segment and "/" not in segment:
                    return True
        return False


class DescopeProvider(RemoteAuthProvider):
    """Tokens of a Descope project (JWTs of its keys, audience the project ID, any issuer
    of the project), Descope's authorization server metadata forwarded; the scopes
    advertised read from the discovery document when none are given."""

    def __init__(
        self,
        *,
        base_url: AnyHttpUrl | str,
        config_url: AnyHttpUrl | str | None = None,
        project_id: str | None = None,
        descope_base_url: AnyHttpUrl | str | None = None,
        required_scopes: list[str] | None = None,
        scopes_supported: list[str] | None = None,
        resource_name: str | None = None,
        resource_documentation: AnyHttpUrl | None = None,
        token_verifier: TokenVerifier | None = None,
    ) -> None:
        required = parse_scopes(required_scopes) if required_scopes is not None else None
        supported = parse_scopes(scopes_supported) if scopes_supported is not None else None
        if config_url is not None:
            self.descope_base_url, self.project_id, issuer_url, self.openid_configuration_url = (
                _parse_config_url(str(config_url))
            )
        elif project_id is not None and descope_base_url is not None:
            self.project_id = project_id
            base = str(descope_base_url).rstrip("/")
            if not base.startswith(("http://", "https://")):
                base = "https://" + base
            self.descope_base_url = base
            issuer_url = f"{base}/v1/apps/{project_id}"
            self.openid_configuration_url = issuer_url + _OPENID
        else:
            raise ValueError(
                "Either config_url (new API) or both project_id and descope_base_url "
                "(old API) must be provided"
            )
        self.oauth_authorization_server_metadata_url = self.openid_configuration_url.replace(
            _OPENID, _OAUTH
        )
        own_scopes = token_verifier.scopes_supported if token_verifier is not None else []
        self._discovery = supported is None and required is None and not own_scopes
        self._discovered: list[str] | None = None
        self._scopes_discovered = False
        self._lock = asyncio.Lock()
        if token_verifier is None:
            token_verifier = _DescopeJWTVerifier(
                descope_base_url=self.descope_base_url,
                project_id=self.project_id,
                jwks_uri=f"{self.descope_base_url}/{self.project_id}/.well-known/jwks.json",
                issuer=f"{self.descope_base_url}/v1/apps/{self.project_id}",
                algorithm="RS256",
                audience=self.project_id,
                required_scopes=required,
            )
        super().__init__(
            token_verifier=token_verifier,
            authorization_servers=[AnyHttpUrl(issuer_url)],
            base_url=str(base_url).rstrip("/"),
            scopes_supported=supported,
            resource_name=resource_name,
            resource_documentation=resource_documentation,
            required_scopes=required,
        )

    async def _scopes(self) -> list[str] | None:
        """The discovered scopes (kept once read; None, and asked again, on failure)."""
        if self._scopes_discovered:
            return self._discovered
        async with self._lock:
            if not self._scopes_discovered:
                scopes = await _discover_scopes(self.openid_configuration_url)
                if scopes is None:
                    return None
                self._discovered, self._scopes_discovered = scopes, True
            return self._discovered

    def routes(self, mcp_path: str) -> dict[str, Route]:
        """Descope's authorization server metadata, forwarded (the project's as a
        fallback); with scope discovery, the protected resource metadata with them."""
        from mcpkit.auth.server import PRM_WELL_KNOWN
        from mcpkit.compat.fastmcp.server.auth._resource import respond_json

        urls = [self.oauth_authorization_server_metadata_url]
        project = f"{self.descope_base_url}/v1/apps/{self.project_id}{_OAUTH}"
        if project != urls[0]:
            urls.append(project)
        found = self.forwarded_metadata(urls, "Descope")
        document = self.protected_resource(mcp_path)
        if not self._discovery or document is None:
            return found

        async def protected_resource(scope: Scope, send: Send) -> None:
            if scope["method"] not in ("GET", "OPTIONS"):
                await respond_json(send, 405, {"detail": "Method Not Allowed"})
                return
            doc = dict(document)
            doc.pop("scopes_supported", None)
            scopes = await self._scopes()
            if scopes is not None:
                doc = {"resource": doc.pop("resource"), **doc, "scopes_supported": scopes}
            body = json.dumps(doc, separators=(",", ":")).encode()
            cache = b"public, max-age=3600" if self._scopes_discovered else b"no-store"
            headers = [
                (b"content-length", str(len(body)).encode()),
                (b"content-type", b"application/json"),
                (b"cache-control", cache),
            ]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        path = PRM_WELL_KNOWN + urlsplit(document["resource"]).path.rstrip("/")
        return {**found, path: protected_resource}
