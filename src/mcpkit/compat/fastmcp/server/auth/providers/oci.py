"""``fastmcp.server.auth.providers.oci`` on mcpkit: :class:`OCIProvider` (fastmcp's OIDC
proxy to an OCI IAM identity domain, served by mcpkit's OAuth proxy)."""

from __future__ import annotations

from typing import Any

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth.oidc_proxy import OIDCProxy
from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

__all__ = ["OCIProvider"]


class OCIProvider(OIDCProxy):
    """fastmcp's OCI IAM login: the identity domain's discovery document at
    ``config_url``, its access tokens checked against its keys (``openid`` required by
    default)."""

    def __init__(
        self,
        *,
        config_url: AnyHttpUrl | str,
        client_id: str,
        client_secret: str,
        base_url: AnyHttpUrl | str,
        required_scopes: list[str] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(
            config_url=config_url,
            client_id=client_id,
            client_secret=client_secret,
            base_url=base_url,
            required_scopes=(
                parse_scopes(required_scopes) if required_scopes is not None else ["openid"]
            ),
            **options,
        )
