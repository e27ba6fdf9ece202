"""The version of mcpkit: one place, imported by whatever reports it (no module needs the
package root for it)."""

__version__ = "0.1.0"
