"""``fastmcp.utilities.authorization`` on mcpkit: fastmcp's authorization checks.

A component registered with ``auth=require_scopes(...)`` (or a list of them) is served with
mcpkit's per-component scopes (:mod:`mcpkit.server.scopes`): a caller whose token lacks one
of the scopes does not see it listed and is answered as for a component that does not
exist, as fastmcp does; over stdio every component is visible, as in fastmcp. Other checks
(``require_roles``, ``restrict_tag``, a function of your own) given as a component's
``auth`` raise NotImplementedError: an authorization rule is never dropped silently.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "AuthCheck",
    "AuthContext",
    "component_scopes",
    "require_roles",
    "require_scopes",
    "restrict_tag",
    "run_auth_checks",
]


@dataclass
class AuthContext:
    """What a check is given: the request's token (None without one) and the component."""

    token: Any
    component: Any

    @property
    def tool(self) -> Any:
        """The component (fastmcp's older name)."""
        return self.component


AuthCheck = Callable[[AuthContext], bool] | Callable[[AuthContext], Awaitable[bool]]


class RequireScopes:
    """The check of :func:`require_scopes`: the token holds every one of the scopes."""

    def __init__(self, scopes: tuple[str, ...]) -> None:
        self.required_scopes: frozenset[str] = frozenset(scopes)
        self.scopes = list(dict.fromkeys(scopes))

    def __call__(self, ctx: AuthContext) -> bool:
        return ctx.token is not None and self.required_scopes <= set(ctx.token.scopes)


class RequireRoles:
    """The check of :func:`require_roles` (roles read from the token's claims)."""

    def __init__(self, roles: tuple[str, ...], extract: Callable[[dict[str, Any]], Any]) -> None:
        self.required_roles: frozenset[str] = frozenset(roles)
        self._extract = extract

    def __call__(self, ctx: AuthContext) -> bool:
        if ctx.token is None:
            return False
        try:
            found = self._extract(ctx.token.claims)
        except (KeyError, IndexError, TypeError):
            return False
        granted = {found} if isinstance(found, str) else set(found)
        return self.required_roles <= granted


class RestrictTag:
    """The check of :func:`restrict_tag`: the scopes, for components with the tag."""

    def __init__(self, tag: str, scopes: list[str]) -> None:
        self.tag = tag
        self.required_scopes: frozenset[str] = frozenset(scopes)

    def __call__(self, ctx: AuthContext) -> bool:
        if self.tag not in (getattr(ctx.component, "tags", None) or ()):
            return True
        return ctx.token is not None and self.required_scopes <= set(ctx.token.scopes)


def require_scopes(*scopes: str) -> RequireScopes:
    """Require every one of ``scopes``."""
    return RequireScopes(scopes)


def require_roles(
    *roles: str, extract: Callable[[dict[str, Any]], Iterable[str]] | None = None
) -> RequireRoles:
    """Require every one of ``roles`` (``extract`` reads them from the claims; by default
    the ``roles`` claim)."""
    return RequireRoles(roles, extract or (lambda claims: claims["roles"]))


def restrict_tag(tag: str, *, scopes: list[str]) -> RestrictTag:
    """Require ``scopes`` for the components tagged ``tag``."""
    return RestrictTag(tag, scopes)


async def run_auth_checks(checks: AuthCheck | list[AuthCheck], ctx: AuthContext) -> bool:
    """Whether every check admits ``ctx`` (sync or async checks, the first refusal wins)."""
    for check in checks if isinstance(checks, list) else [checks]:
        result = check(ctx)
        if inspect.isawaitable(result):
            result = await result
        if not result:
            return False
    return True


def component_scopes(auth: Any) -> list[str] | None:
    """The scopes a component's ``auth=`` requires, for mcpkit's per-component scopes
    (None: no check); NotImplementedError for a check other than :func:`require_scopes`."""
    if auth is None:
        return None
    checks = auth if isinstance(auth, list) else [auth]
    scopes: list[str] = []
    for check in checks:
        if not isinstance(check, RequireScopes):
            raise NotImplementedError(
                f"auth={check!r} on a component is not supported on mcpkit: only "
                "require_scopes(...) is (mcpkit serves it as the component's scopes=); "
                "for other rules register the component with scopes=[...] on a native "
                "mcpkit Server, or check ctx.auth in the function (docs/authorization.md)"
            )
        scopes.extend(s for s in check.scopes if s not in scopes)
    return scopes or None
