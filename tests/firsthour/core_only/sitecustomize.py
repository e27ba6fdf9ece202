"""Imported at interpreter start-up: refuses the HTTP extra's packages, as on an install
without extras (``pip install .``)."""

import sys
from importlib.abc import MetaPathFinder

BLOCKED = {"httpx", "httpcore", "uvicorn", "starlette", "h11", "sse_starlette"}


class _NotInstalled(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):  # type: ignore[no-untyped-def]
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled())
