"""Matching a URI against a parsed URI template in time linear in the URI's length.

A template is matched as a sequence of :class:`Step` s: a literal, or an expression (its
operator's leading character, if any, then a run of characters outside a small excluded
set; an operator expression may be absent altogether). The answer is the one a
backtracking regex gives (runs greedy, optional steps preferring to be present), without
its cost: such a regex takes quadratic time or worse on templates like ``{a}.{b}`` and a
long URI that almost fits.

Most templates are *deterministic*: what may follow each run is never a character the run
could take (``x://{id}/posts{?page}``), so one forward scan decides everything
(:func:`scan`). The others (``{a}.{b}``, ``{+path}{.ext}``) go through :func:`solve`: from
the last step back, the positions each step can start at and still end the match at the
URI's end (an integer with one byte per position, computed with whole-integer shifts,
masks and one addition per run), then one pass forward taking at each step the longest
choice from which the rest still matches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Step", "deterministic", "scan", "solve"]


@dataclass(frozen=True, slots=True)
class Step:
    """``literal``, then for an expression (``excluded`` not None) a run of characters none
    of which is in ``excluded`` (``""``: any character). ``optional``: the whole step may be
    absent. ``part``: the index of the expression in the template (-1 for a literal)."""

    literal: str
    excluded: str | None
    optional: bool
    part: int


_stops: dict[str, re.Pattern[str]] = {}


def _stop_pattern(excluded: str) -> re.Pattern[str]:
    pattern = _stops.get(excluded)
    if pattern is None:
        pattern = _stops[excluded] = re.compile("[" + re.escape(excluded) + "]")
    return pattern


def _run_end(uri: str, start: int, excluded: str) -> int:
    """The end of the longest run from ``start`` (the first excluded character, or the end)."""
    if not excluded:
        return len(uri)
    found = _stop_pattern(excluded).search(uri, start)
    return len(uri) if found is None else found.start()


def deterministic(steps: tuple[Step, ...]) -> bool:
    """True when no run can take a character that could start what follows it, and no
    optional step's leading character could start what follows when it is absent: then the
    first choice at each step is the only one that can succeed."""
    follow: set[str] | None = set()  # first characters after the current step; None: unbounded
    for step in reversed(steps):
        if step.excluded is not None:
            if follow is None:
                return False
            if not follow <= set(step.excluded):  # "" excludes nothing: only the end may follow
                return False
            if step.optional and step.literal in follow:
                return False
        if not step.literal:  # a run that may be empty, or start with almost any character
            follow = None
        elif not step.optional:
            follow = {step.literal[0]}
        elif follow is not None:  # present (its leading character) or absent (what follows)
            follow = {step.literal[0], *follow}
    return True


def scan(steps: tuple[Step, ...], uri: str) -> list[tuple[int, str | None]] | None:
    """Match deterministic ``steps`` (see :func:`deterministic`) in one forward pass."""
    spans: list[tuple[int, str | None]] = []
    p = 0
    for step in steps:
        literal = step.literal
        if not uri.startswith(literal, p):
            if step.optional:
                spans.append((step.part, None))
                continue
            return None
        p += len(literal)
        excluded = step.excluded
        if excluded is not None:
            end = _run_end(uri, p, excluded)
            spans.append((step.part, uri[p:end]))
            p = end
    return spans if p == len(uri) else None


class _Masks:
    """Per-position predicates of one URI as integers holding one byte per position, in
    *reversed* order: position ``p`` (0 to ``len(uri)``, before character ``p``) is byte
    ``len(uri) - p`` of the little-endian integer. Reversed, a run's reach is one carry
    chain of an addition; ``to_bytes(..., "big")`` gives the bytes back in URI order."""

    # "?" becomes NUL and NUL a non-ASCII character; then every non-ASCII character is
    # encoded as "?": byte 0 means "?" and byte "?" means "no ASCII character".
    _SWAP = {ord("?"): "\0", 0: "\ufffd"}

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self.size = len(uri)
        self.reversed = uri.translate(self._SWAP).encode("ascii", "replace")[::-1]
        self._cache: dict[tuple[str, bool], int] = {}

    @staticmethod
    def _byte(char: str) -> int | None:
        if char == "?":
            return 0
        return None if char == "\0" or not char.isascii() else ord(char)

    def _of(self, chars: str, allowed: bool) -> int:
        mask = self._cache.get((chars, allowed))
        if mask is not None:
            return mask
        if allowed:  # 0xFF where the character is not in ``chars`` (a carry runs through)
            table = bytearray(b"\xff") * 256
            for char in chars:
                code = self._byte(char)
                if code is not None:
                    table[code] = 0
            table[ord("?")] = 0xFF  # a non-ASCII character (or NUL) is never excluded
        else:  # 1 where the character is ``chars`` (one character)
            table = bytearray(256)
            code = self._byte(chars)
            if code is not None:
                table[code] = 1
        mask = int.from_bytes(self.reversed.translate(table), "little") << 8
        if not allowed and self._byte(chars) is None:  # NUL or non-ASCII: rare, one by one
            p = self.uri.find(chars)
            while p >= 0:
                mask |= 1 << (8 * (self.size - p))
                p = self.uri.find(chars, p + 1)
        self._cache[(chars, allowed)] = mask
        return mask

    def equal(self, char: str) -> int:
        """Positions holding ``char`` (byte 1)."""
        return self._of(char, False)

    def allowed(self, excluded: str) -> int:
        """Positions holding a character not in ``excluded`` (byte 0xFF)."""
        return self._of(excluded, True)


_ONES = bytes([0] + [1] * 255)  # translate: any nonzero byte -> 1


def _run_reach(after: int, allowed: int, size: int) -> int:
    """Positions ``p`` from which a run of allowed characters reaches a position ``q >= p``
    set in ``after``. Reversed, that is: from each ``q``, up through allowed positions; one
    addition carries 1 from above each ``q`` through the 0xFF bytes of ``allowed``."""
    carried = allowed + (after << 8)
    filled = ((carried ^ allowed) & allowed).to_bytes(size + 1, "little").translate(_ONES)
    return int.from_bytes(filled, "little") | after


def _literal_reach(after: int, masks: _Masks, literal: str) -> int:
    """Positions ``p`` where ``literal`` starts and ``after`` has ``p + len(literal)``."""
    out = after << (8 * len(literal))
    for k, char in enumerate(literal):
        if not out:
            break
        out &= masks.equal(char) << (8 * k)
    return out


def solve(steps: tuple[Step, ...], uri: str) -> list[tuple[int, str | None]] | None:
    """Match any ``steps``: ``(part, text)`` of each expression (text None when absent)."""
    n = len(uri)
    masks = _Masks(uri)
    reach = [0] * (len(steps) + 1)
    reach[len(steps)] = 1  # position n: byte 0 reversed
    for i in range(len(steps) - 1, 0, -1):  # the first step is decided going forward
        step = steps[i]
        after = reach[i + 1]
        excluded = step.excluded
        if excluded is None:
            here = _literal_reach(after, masks, step.literal)
        else:
            run = _run_reach(after, masks.allowed(excluded), n)
            here = _literal_reach(run, masks, step.literal)
            if step.optional:
                here |= after
        reach[i] = here
    spans: list[tuple[int, str | None]] = []
    p = 0
    for i, step in enumerate(steps):
        ends = reach[i + 1].to_bytes(n + 1, "big")  # in URI order
        literal = step.literal
        excluded = step.excluded
        if uri.startswith(literal, p):
            q = p + len(literal)
            if excluded is None:
                if ends[q]:
                    p = q
                    continue
            else:
                last = ends.rfind(1, q, _run_end(uri, q, excluded) + 1)
                if last >= 0:
                    spans.append((step.part, uri[q:last]))
                    p = last
                    continue
        if step.optional and ends[p]:
            spans.append((step.part, None))
            continue
        return None  # only at the first step: every later one starts where it can succeed
    return spans
