"""mcpkit: the Model Context Protocol for Python."""
