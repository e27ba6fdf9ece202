"""Shared scaffolding the auth/hosting stories import (not teaching surface)."""
