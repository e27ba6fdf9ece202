"""``fastmcp.server.auth.providers.huggingface`` on mcpkit: fastmcp's Hugging Face classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["HuggingFaceProvider", "HuggingFaceTokenVerifier"]

HuggingFaceProvider = unsupported("HuggingFaceProvider", __name__, "mcpkit.auth.OAuthProxy")
HuggingFaceTokenVerifier = unsupported(
    "HuggingFaceTokenVerifier", __name__, "mcpkit.auth.ResourceServer with a verifier of your own"
)
