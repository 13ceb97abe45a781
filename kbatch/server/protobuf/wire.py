"""The protobuf wire format: one message's fields as ``(number, wire type, value)``, and the encoding
of varints and fields (the OpenAPI v2 document kbatch serves in protobuf, and tests).

protobuf.dev "Encoding": a field is a varint key ``number << 3 | wire type``; wire type 0 is a varint,
1 eight little-endian bytes, 2 a varint length and that many bytes, 5 four bytes. Groups (3, 4) are
not used by go-to-protobuf and are refused.
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["WireError", "encode_field", "encode_varint", "fields", "read_varint"]


class WireError(ValueError):
    """The bytes are not a well-formed protobuf message."""


def encode_varint(value: int) -> bytes:
    """A non-negative integer as a varint (seven bits a byte, low bits first)."""
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def encode_field(number: int, payload: bytes | int) -> bytes:
    """One field: an ``int`` as a varint (wire type 0, negative ones as 64-bit two's complement),
    ``bytes`` length-delimited (wire type 2)."""
    if isinstance(payload, int):
        return encode_varint(number << 3) + encode_varint(payload & ((1 << 64) - 1))
    return encode_varint(number << 3 | 2) + encode_varint(len(payload)) + payload


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
