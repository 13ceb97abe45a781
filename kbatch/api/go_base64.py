"""Go's ``base64.StdEncoding.Decode``, for the ``[]byte`` fields a JSON body carries as base64
(Secret ``data``, ConfigMap ``binaryData``).

Go reads the text's bytes four at a time: ``\\r`` and ``\\n`` anywhere are skipped, ``=`` pads the
last quantum (two after two symbols, one after three), and anything else, or missing or misplaced
padding, or bytes after the padding, is a ``CorruptInputError`` naming a byte offset: ``illegal base64
data at input byte N``. StdEncoding is not strict: unused trailing bits need not be zero. Python's
``b64decode(validate=True)`` refuses the newlines and names no offset.
"""

from __future__ import annotations

import base64

__all__ = ["CorruptInputError", "std_decode"]

_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_SYMBOLS = frozenset(_ALPHABET)
_NEWLINES = frozenset(b"\r\n")
_PAD = ord("=")


class CorruptInputError(ValueError):
    """Go's ``base64.CorruptInputError``: the offset of the first byte that does not decode."""

    def __init__(self, offset: int) -> None:
        super().__init__(f"illegal base64 data at input byte {offset}")
        self.offset = offset


def _skip_newlines(src: bytes, i: int) -> int:
    while i < len(src) and src[i] in _NEWLINES:
        i += 1
    return i


def _after_padding(src: bytes, i: int, symbols: int) -> int:
    """The offset past a quantum's padding (its first ``=`` at ``i - 1``), or the error."""
    if symbols < 2:
        raise CorruptInputError(i - 1)
    if symbols == 2:  # a second "=" must follow, newlines aside
        i = _skip_newlines(src, i)
        if i == len(src):
            raise CorruptInputError(len(src))
        if src[i] != _PAD:
            raise CorruptInputError(i - 1)
        i += 1
    i = _skip_newlines(src, i)
    if i < len(src):
        raise CorruptInputError(i)  # bytes after the padding
    return i


def _symbols(src: bytes) -> bytes:
    """The base64 symbols of ``src`` once its newlines and padding are checked as Go checks them."""
    out, i, quantum = bytearray(), 0, 0
    while i < len(src):
        byte = src[i]
        i += 1
        if byte in _SYMBOLS:
            out.append(byte)
            quantum = (quantum + 1) % 4
        elif byte in _NEWLINES:
            continue
        elif byte != _PAD:
            raise CorruptInputError(i - 1)
        else:
            _after_padding(src, i, quantum)
            return bytes(out)
    if quantum:  # StdEncoding pads: an unpadded short last quantum is corrupt (Go: si - j)
        raise CorruptInputError(len(src) - quantum)
    return bytes(out)


def std_decode(text: str) -> bytes:
    """The bytes ``text`` encodes, as ``base64.StdEncoding.DecodeString``; raises
    :class:`CorruptInputError` where Go does, with Go's offset."""
    symbols = _symbols(text.encode())
    pad = b"=" * (-len(symbols) % 4)
    return base64.b64decode(symbols + pad)  # non-strict: trailing bits need not be zero
