"""The reloader of ``mcpkit dev`` and ``mcpkit run --reload``: polls the modification
times of the source files next to the user's server (``.py``, and for ``mcpkit dev`` the
``.html``/``.css``/``.js``/``.json`` an app view is made of).

Polling keeps mcpkit free of a file-watching dependency; a scan of a project folder costs a
few hundred ``stat`` calls, done every ``interval`` seconds. ``exclude`` globs (matched
against the path relative to the root, and against the file's name) leave files out, such
as data the server writes next to itself.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

__all__ = ["WATCHED_SUFFIXES", "SourceWatcher"]

#: The file kinds whose change restarts the user's server.
WATCHED_SUFFIXES = (".py", ".html", ".css", ".js", ".json")
_SKIP_DIRS = frozenset(
    {"__pycache__", "node_modules", "venv", ".venv", "site-packages", "build", "dist"}
)
#: A scan stops after this many files (a folder that large is not a server's sources).
_MAX_FILES = 10_000


class SourceWatcher:
    """Polls the files under ``root`` whose names end with one of ``suffixes``, but for
    those an ``exclude`` glob matches (``"notes.json"``, ``"data/*"``, ``"*.log"``)."""

    def __init__(
        self,
        root: Path,
        suffixes: tuple[str, ...] = WATCHED_SUFFIXES,
        exclude: Sequence[str] = (),
    ) -> None:
        self.root = root
        self.suffixes = suffixes
        self.exclude = tuple(exclude)
        self._snapshot = self._scan()

    def excluded(self, path: Path) -> bool:
        """True when an ``exclude`` glob matches ``path`` (relative to the root) or its name."""
        if not self.exclude:
            return False
        try:
            relative = path.relative_to(self.root).as_posix()
        except ValueError:
            relative = path.as_posix()
        return any(
            fnmatch.fnmatch(relative, glob) or fnmatch.fnmatch(path.name, glob)
            for glob in self.exclude
        )

    def _files(self) -> Iterator[Path]:
        count = 0
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS]
            for name in files:
                if name.endswith(self.suffixes):
                    path = Path(folder) / name
                    if self.excluded(path):
                        continue
                    count += 1
                    if count > _MAX_FILES:
                        return
                    yield path

    def _scan(self) -> dict[Path, tuple[int, int]]:
        snapshot: dict[Path, tuple[int, int]] = {}
        for path in self._files():
            with contextlib.suppress(OSError):
                stat = path.stat()
                snapshot[path] = (stat.st_mtime_ns, stat.st_size)
        return snapshot

    def changed(self) -> list[Path]:
        """The files added, removed or modified since the last call (sorted)."""
        new = self._scan()
        old, self._snapshot = self._snapshot, new
        return sorted({p for p in new.keys() | old.keys() if new.get(p) != old.get(p)}, key=str)
