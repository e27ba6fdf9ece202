"""The large payload every benchmark server offers: 1 MiB of text, the same bytes everywhere.

``LARGE_TEXT`` is 16,384 lines of 64 ASCII characters (a 6-digit line number, a space, a
sentence with two double quotes, a newline), so JSON encoding has quotes and newlines to
escape, as a real text file has. Served as the resource ``bench://large`` (``text/plain``)
and as the result of the tool ``large`` (no arguments, one text block).
``payload.mjs`` builds the same text for the TypeScript servers.
"""

from __future__ import annotations

LARGE_URI = "bench://large"
LARGE_TOOL = "large"
LINE_BODY = 'the quick brown fox jumps over the "lazy" dog: 012345678'
LINES = 16_384
LARGE_TEXT = "".join(f"{i:06d} {LINE_BODY}\n" for i in range(LINES))
assert len(LARGE_TEXT) == 1 << 20
