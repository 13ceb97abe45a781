"""Go's ``strconv.Quote`` (what ``%q`` prints), for the messages kbatch writes in Go's words.

Go keeps printable runes as they are and escapes the rest: the C escapes (``\\a \\b \\f \\n \\r
\\t \\v``), a backslash and a double quote; other ASCII control bytes and DEL as ``\\xNN``;
non-printable runes as ``\\uNNNN`` or ``\\UNNNNNNNN``. "Printable" is ``unicode.IsPrint``: letters,
marks, numbers, punctuation, symbols and the ASCII space, which is what Python's
``str.isprintable`` accepts too (both refuse other spaces, format and control characters).
``json.dumps``, which kbatch used before, escapes every non-ASCII rune and names ``\\a``/``\\v``
differently: ``"mé"`` came out ``"m\\u00e9"``. ``go_quote_list`` is ``%q`` of a ``[]string``:
each element quoted, space-separated, in brackets.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["go_quote", "go_quote_list"]

_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
            "\\": "\\\\", '"': '\\"'}


def _escape(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    if ch.isprintable():
        return ch
    code = ord(ch)
    if code < 0x80:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def go_quote(text: str) -> str:
    """``strconv.Quote(text)``: ``go_quote('a"b') == '"a\\\\"b"'``, ``go_quote("mé") == '"mé"'``."""
    if text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return '"' + "".join(_escape(ch) for ch in text) + '"'


def go_quote_list(values: Iterable[str]) -> str:
    """``fmt.Sprintf("%q", []string{...})``: ``go_quote_list(["a", 'b"']) == '["a" "b\\""]'``."""
    return "[" + " ".join(go_quote(v) for v in values) + "]"
