"""``fastmcp.client.auth`` on mcpkit: :class:`BearerAuth` (a fixed token) and :class:`OAuth`
(fastmcp's browser flow on :class:`mcpkit.auth.OAuthClientAuth`)."""

from mcpkit.compat.fastmcp.client.auth.bearer import BearerAuth
from mcpkit.compat.fastmcp.client.auth.oauth import OAuth

__all__ = ["BearerAuth", "OAuth"]
