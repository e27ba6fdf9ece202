"""``fastmcp.server.auth.providers.oci`` on mcpkit: fastmcp's OCI IAM classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["OCIProvider"]

OCIProvider = unsupported("OCIProvider", __name__, "mcpkit.auth.OIDCProvider")
