"""The protobuf wire format: one message's fields as ``(number, wire type, value)``.

protobuf.dev "Encoding": a field is a varint key ``number << 3 | wire type``; wire type 0 is a varint,
1 eight little-endian bytes, 2 a varint length and that many bytes, 5 four bytes. Groups (3, 4) are
not used by go-to-protobuf and are refused.
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["WireError", "fields", "read_varint"]


class WireError(ValueError):
    """The bytes are not a well-formed protobuf message."""


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """The varint at ``pos`` and the position after it."""
    value = shift = 0
    while True:
        if pos >= len(data):
            raise WireError("unexpected end of a varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise WireError("varint longer than 10 bytes")


def fields(data: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """Each field of one message in order: varints as ``int``, everything else as ``bytes``."""
    pos = 0
    while pos < len(data):
        key, pos = read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise WireError("field number 0")
        if wire == 0:
            value, pos = read_varint(data, pos)
            yield number, wire, value
            continue
        if wire == 2:
            size, pos = read_varint(data, pos)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
        else:
            raise WireError(f"unsupported wire type {wire}")
        if pos + size > len(data):
            raise WireError("a field runs past the end of the message")
        yield number, wire, data[pos:pos + size]
        pos += size
