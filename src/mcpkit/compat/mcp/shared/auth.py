"""``mcp.shared.auth`` on mcpkit: the OAuth models an authorization server provider and its
clients exchange (RFC 6749 token answers, RFC 7591 client metadata and registrations)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    AnyHttpUrl,
    AnyUrl,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

__all__ = [
    "AuthorizationCodeResult",
    "InvalidRedirectUriError",
    "InvalidScopeError",
    "OAuthClientInformationFull",
    "OAuthClientMetadata",
    "OAuthMetadata",
    "OAuthToken",
    "ProtectedResourceMetadata",
]

#: The RFC 7523 JWT bearer grant type.
JWT_BEARER_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"


class OAuthToken(BaseModel):
    """A token endpoint's success answer (RFC 6749 s5.1)."""

    access_token: str
    token_type: Literal["Bearer"] = "Bearer"
    expires_in: int | None = None
    scope: str | None = None
    refresh_token: str | None = None

    @field_validator("token_type", mode="before")
    @classmethod
    def _title_case(cls, value: Any) -> Any:
        return value.title() if isinstance(value, str) else value


class InvalidScopeError(Exception):
    """A scope the client was not registered with."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidRedirectUriError(Exception):
    """A redirect URI the client did not register (or none where one is needed)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _blank_url(value: Any) -> Any:
    return None if value == "" else value


class _ClientMetadataBase(BaseModel):
    model_config = ConfigDict(url_preserve_empty_path=True)

    response_types: list[str] = ["code"]
    scope: str | None = None
    client_name: str | None = None
    client_uri: AnyHttpUrl | None = None
    logo_uri: AnyHttpUrl | None = None
    contacts: list[str] | None = None
    tos_uri: AnyHttpUrl | None = None
    policy_uri: AnyHttpUrl | None = None
    jwks_uri: AnyHttpUrl | None = None
    jwks: Any | None = None
    software_id: str | None = None
    software_version: str | None = None

    _blank_urls = field_validator(
        "client_uri", "logo_uri", "tos_uri", "policy_uri", "jwks_uri", mode="before"
    )(_blank_url)


class OAuthClientMetadata(_ClientMetadataBase):
    """What a client sends to register (RFC 7591 s2)."""

    redirect_uris: list[AnyUrl] | None = Field(..., min_length=1)
    token_endpoint_auth_method: (
        Literal["none", "client_secret_post", "client_secret_basic", "private_key_jwt"] | None
    ) = None
    grant_types: list[str] = ["authorization_code", "refresh_token"]
    application_type: Literal["web", "native"] = "native"


class OAuthClientInformationFull(_ClientMetadataBase):
    """A registered client: its metadata and credentials (RFC 7591 s3.2.1)."""

    redirect_uris: list[AnyUrl] | None = None
    token_endpoint_auth_method: str | None = None
    grant_types: list[str] = ["authorization_code", "refresh_token"]
    application_type: str | None = None
    client_id: str
    client_secret: str | None = None
    client_id_issued_at: int | None = None
    client_secret_expires_at: int | None = None
    issuer: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _placeholders_absent(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if v is not None and v != ""}
        return data

    def validate_scope(self, requested_scope: str | None) -> list[str] | None:
        """The scopes asked for, each of which the client registered (None: none asked)."""
        if requested_scope is None:
            return None
        wanted = requested_scope.split(" ")
        allowed = [] if self.scope is None else self.scope.split(" ")
        for scope in wanted:
            if scope not in allowed:
                raise InvalidScopeError(f"Client was not registered with scope {scope}")
        return wanted

    def validate_redirect_uri(self, redirect_uri: AnyUrl | None) -> AnyUrl:
        """The redirect URI to use: the one given if registered, else the only one."""
        if redirect_uri is not None:
            if not self.redirect_uris or redirect_uri not in self.redirect_uris:
                raise InvalidRedirectUriError(
                    f"Redirect URI '{redirect_uri}' not registered for client"
                )
            return redirect_uri
        if self.redirect_uris and len(self.redirect_uris) == 1:
            return self.redirect_uris[0]
        raise InvalidRedirectUriError(
            "redirect_uri must be specified unless the client has exactly one registered URI"
        )


class AuthorizationCodeResult(BaseModel):
    """The parameters of an authorization redirect a client's callback received (``iss``:
    the RFC 9207 issuer, when the authorization server sends it)."""

    code: str
    state: str | None = None
    iss: str | None = None


class OAuthMetadata(BaseModel):
    """An authorization server's metadata (RFC 8414 s2)."""

    model_config = ConfigDict(url_preserve_empty_path=True)

    issuer: AnyHttpUrl
    authorization_endpoint: AnyHttpUrl
    token_endpoint: AnyHttpUrl
    registration_endpoint: AnyHttpUrl | None = None
    scopes_supported: list[str] | None = None
    response_types_supported: list[str] = ["code"]
    response_modes_supported: list[str] | None = None
    grant_types_supported: list[str] | None = None
    token_endpoint_auth_methods_supported: list[str] | None = None
    token_endpoint_auth_signing_alg_values_supported: list[str] | None = None
    service_documentation: AnyHttpUrl | None = None
    ui_locales_supported: list[str] | None = None
    op_policy_uri: AnyHttpUrl | None = None
    op_tos_uri: AnyHttpUrl | None = None
    revocation_endpoint: AnyHttpUrl | None = None
    revocation_endpoint_auth_methods_supported: list[str] | None = None
    revocation_endpoint_auth_signing_alg_values_supported: list[str] | None = None
    introspection_endpoint: AnyHttpUrl | None = None
    introspection_endpoint_auth_methods_supported: list[str] | None = None
    introspection_endpoint_auth_signing_alg_values_supported: list[str] | None = None
    code_challenge_methods_supported: list[str] | None = None
    client_id_metadata_document_supported: bool | None = None
    authorization_response_iss_parameter_supported: bool | None = None
    authorization_grant_profiles_supported: list[str] | None = None


class ProtectedResourceMetadata(BaseModel):
    """A protected resource's metadata (RFC 9728 s2); MCP tokens go in the header only."""

    model_config = ConfigDict(url_preserve_empty_path=True)

    resource: AnyHttpUrl
    authorization_servers: list[AnyHttpUrl] = Field(..., min_length=1)
    jwks_uri: AnyHttpUrl | None = None
    scopes_supported: list[str] | None = None
    bearer_methods_supported: list[str] | None = Field(default=["header"])
    resource_signing_alg_values_supported: list[str] | None = None
    resource_name: str | None = None
    resource_documentation: AnyHttpUrl | None = None
    resource_policy_uri: AnyHttpUrl | None = None
    resource_tos_uri: AnyHttpUrl | None = None
    tls_client_certificate_bound_access_tokens: bool | None = None
    authorization_details_types_supported: list[str] | None = None
    dpop_signing_alg_values_supported: list[str] | None = None
    dpop_bound_access_tokens_required: bool | None = None
