"""``mcp.server.auth.settings`` on mcpkit: a server's OAuth settings (``AuthSettings``) and
what an authorization server offers besides the authorization code grant."""

from __future__ import annotations

import warnings

from pydantic import AnyHttpUrl, BaseModel, ConfigDict, Field, model_validator

__all__ = ["AuthSettings", "ClientRegistrationOptions", "RevocationOptions"]


class ClientRegistrationOptions(BaseModel):
    """Dynamic client registration (RFC 7591): served when ``enabled``; the scopes a client
    may register (``valid_scopes``) and those it gets without asking (``default_scopes``)."""

    enabled: bool = False
    client_secret_expiry_seconds: int | None = None
    valid_scopes: list[str] | None = None
    default_scopes: list[str] | None = None


class RevocationOptions(BaseModel):
    """Token revocation (RFC 7009): served when ``enabled``."""

    enabled: bool = False


class AuthSettings(BaseModel):
    """A server's OAuth settings: the authorization server issuing its tokens
    (``issuer_url``), the server's own URL as a resource (``resource_server_url``, where its
    protected resource metadata is looked up), the scopes every request needs, and when the
    server is its own authorization server, registration and revocation."""

    model_config = ConfigDict(url_preserve_empty_path=True)

    issuer_url: AnyHttpUrl
    service_documentation_url: AnyHttpUrl | None = None
    client_registration_options: ClientRegistrationOptions | None = None
    revocation_options: RevocationOptions | None = None
    required_scopes: list[str] | None = None
    identity_assertion_enabled: bool = False
    resource_server_url: AnyHttpUrl | None = Field(...)
    #: Only accept tokens the verifier reports as issued for ``resource_server_url``.
    validate_token_resource: bool | None = None

    @model_validator(mode="after")
    def _check_validate_token_resource(self) -> AuthSettings:
        if self.validate_token_resource and self.resource_server_url is None:
            raise ValueError("validate_token_resource requires resource_server_url")
        if self.validate_token_resource is None and self.resource_server_url is not None:
            warnings.warn(
                "`AuthSettings.validate_token_resource` is not set, so bearer tokens are not "
                "checked against `resource_server_url`; it will default to True in 3.0 when "
                "`resource_server_url` is set. Set it to True to have the server refuse tokens "
                "issued for another resource, or to False if your TokenVerifier validates the "
                "token's audience itself.",
                DeprecationWarning,
                stacklevel=3,
            )
        return self
