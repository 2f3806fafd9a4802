"""Text for a terminal: names that come from a file are shown, never obeyed.

A recording's preset, drive or vehicle name, or a file name, can hold control
characters: an ANSI escape (``ESC [ 2 J`` clears the screen), a carriage
return that overwrites the row before it, a bidirectional override that shows
the text backwards. Every table and message built from such names goes through
:func:`printable` (one name) or :func:`printable_lines` (a whole table, its
newlines kept), which write each such character as a Python-style escape
(``\\x1b``, ``\\r``, ``\\u202e``; a lone surrogate, which no encoding can write, as
``\\ud800``) so the reader sees exactly what the file says.
JSON output needs none of this: ``json.dumps`` escapes control characters itself.
"""

from __future__ import annotations

import unicodedata

#: Bidirectional embeddings, overrides and isolates: format characters that reorder text.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _escape(ch: str) -> str:
    code = ord(ch)
    if ch == "\t":
        return "\\t"
    if ch == "\r":
        return "\\r"
    if ch == "\n":
        return "\\n"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _unsafe(ch: str) -> bool:
    # Cc: C0 and C1 controls and DEL (ESC among them); Zl/Zp: line and paragraph separators;
    # Cs: a lone surrogate ("\ud800" is valid JSON), which no terminal encoding can write
    return ch in _BIDI or unicodedata.category(ch) in ("Cc", "Zl", "Zp", "Cs")


def printable(text: object) -> str:
    """``str(text)`` with every control character escaped, newlines included."""
    s = str(text)
    if s.isprintable() and not any(ch in _BIDI for ch in s):
        return s  # the common case: nothing to escape
    return "".join(_escape(ch) if _unsafe(ch) else ch for ch in s)


def printable_lines(text: str) -> str:
    """Like :func:`printable` for each line of ``text``; the line breaks themselves are kept."""
    return "\n".join(printable(line) for line in text.split("\n"))
