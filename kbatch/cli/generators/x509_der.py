"""The structural checks of Go's ``x509.ParseCertificate``, in its order and with its messages, for
``kbatch create secret tls`` (kubectl reports ``tls.X509KeyPair``'s error as it is).

Go (``crypto/x509/parser.go`` ``parseCertificate``, ``ParseCertificate``) reads the DER with
``cryptobyte``: strict DER lengths (short form below 128, minimal long form of at most four bytes,
no indefinite length, no high tag numbers) and minimal INTEGER encodings. The walk here follows it
down to the subject public key: the certificate and to-be-signed SEQUENCEs, the version (``[0]``,
at most v3), the serial number (not negative), the inner and outer signature algorithm identifiers
(equal, an OBJECT IDENTIFIER first), the issuer, validity and subject SEQUENCEs (the subject's
failure is Go's "malformed issuer" too), the SubjectPublicKeyInfo with its algorithm and BIT STRING,
and nothing after the certificate ("x509: trailing data"). What Go checks inside those parts (names,
times, the key itself, extensions) is left to the ``cryptography`` parser, whose failures are
reported as ``x509: malformed certificate``.
"""

from __future__ import annotations

from typing import TypeVar

__all__ = ["TRAILING", "certificate_error"]

TRAILING = "x509: trailing data"  # ParseCertificate's last check, after all of parseCertificate's

SEQUENCE, INTEGER, BIT_STRING, OID = 0x30, 0x02, 0x03, 0x06
VERSION = 0xA0  # [0] EXPLICIT, constructed, context-specific
T = TypeVar("T")


class _Der:
    """A cursor over DER bytes (cryptobyte.String's reads: each consumes on success only)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def empty(self) -> bool:
        return self.pos >= len(self.data)

    def peek(self) -> int | None:
        return None if self.empty() else self.data[self.pos]

    def element(self, tag: int | None = None) -> tuple[int, bytes, bytes] | None:
        """(tag, whole element, contents) of the next element, if it is well formed (and of ``tag``)."""
        data, pos = self.data, self.pos
        if len(data) - pos < 2 or data[pos] & 0x1F == 0x1F or (tag is not None and data[pos] != tag):
            return None
        first = data[pos + 1]
        header = 2
        if first & 0x80 == 0:
            length = first
        else:
            count = first & 0x7F
            if count == 0 or count > 4 or len(data) - pos < 2 + count:
                return None
            length = int.from_bytes(data[pos + 2:pos + 2 + count], "big")
            if length < 128 or length >> ((count - 1) * 8) == 0:
                return None  # not the shortest form
            header += count
        end = pos + header + length
        if end > len(data):
            return None
        self.pos = end
        return data[pos], data[pos:end], data[pos + header:end]

    def read(self, tag: int) -> _Der | None:
        got = self.element(tag)
        return None if got is None else _Der(got[2])

    def integer(self) -> int | None:
        got = self.element(INTEGER)
        if got is None:
            return None
        body = got[2]
        if not body or (len(body) > 1 and ((body[0] == 0 and body[1] < 0x80)
                                          or (body[0] == 0xFF and body[1] >= 0x80))):
            return None
        return int.from_bytes(body, "big", signed=True)


def _bit_string(body: bytes) -> bool:
    """cryptobyte ``ReadASN1BitString``'s checks of a BIT STRING's contents."""
    if not body or body[0] > 7 or (len(body) == 1 and body[0] != 0):
        return False
    return body[0] == 0 or body[-1] & ((1 << body[0]) - 1) == 0


class _Malformed(Exception):
    """Go's error for the first check that fails (its message)."""


def _need(value: T | None, message: str) -> T:
    if value is None:
        raise _Malformed(message)
    return value


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise _Malformed(message)


def _algorithm(seq: bytes) -> None:
    """``parseAI``: an OBJECT IDENTIFIER, then optional parameters (any one element)."""
    der = _Der(seq)
    oid = _need(der.element(OID), "x509: malformed OID")
    _check(bool(oid[2]), "x509: malformed OID")
    if not der.empty():
        _need(der.element(), "x509: malformed parameters")


def certificate_error(der: bytes) -> tuple[str | None, bytes]:
    """(Go's error for ``der`` from the checks above, None when they pass; the certificate's own
    bytes). :data:`TRAILING` comes only when the rest passes: the caller's deeper checks go first."""
    whole = _Der(der).element(SEQUENCE)
    if whole is None:
        return "x509: malformed certificate", der
    try:
        _certificate(_Der(whole[2]))
    except _Malformed as err:
        return str(err), whole[1]
    return (TRAILING if len(whole[1]) != len(der) else None), whole[1]


def _certificate(cert: _Der) -> None:
    tbs = _need(cert.read(SEQUENCE), "x509: malformed tbs certificate")
    version = 0
    if tbs.peek() == VERSION:
        explicit = _need(tbs.read(VERSION), "x509: malformed version")
        version = _need(explicit.integer(), "x509: malformed version")
        _check(explicit.empty() and version >= 0, "x509: malformed version")
    _check(version + 1 <= 3, "x509: invalid version")
    serial = _need(tbs.integer(), "x509: malformed serial number")
    _check(serial >= 0, "x509: negative serial number")
    inner = _need(tbs.read(SEQUENCE), "x509: malformed signature algorithm identifier")
    outer = _need(cert.read(SEQUENCE), "x509: malformed algorithm identifier")
    _check(outer.data == inner.data,
          "x509: inner and outer signature algorithm identifiers don't match")
    _algorithm(inner.data)
    for what in ("issuer", "validity", "issuer"):  # Go names a malformed subject "issuer" too
        _need(tbs.read(SEQUENCE), f"x509: malformed {what}")
    spki = _need(tbs.read(SEQUENCE), "x509: malformed spki")
    _algorithm(_need(spki.read(SEQUENCE), "x509: malformed public key algorithm identifier").data)
    key = _need(spki.element(BIT_STRING), "x509: malformed subjectPublicKey")
    _check(_bit_string(key[2]), "x509: malformed subjectPublicKey")
