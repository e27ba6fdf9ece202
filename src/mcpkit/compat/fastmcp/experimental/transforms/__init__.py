"""``fastmcp.experimental.transforms`` on mcpkit: code mode (:mod:`.code_mode`)."""
