"""``fastmcp.experimental`` on mcpkit: its transforms (:mod:`.transforms`)."""
