"""``kubectl create secret tls``: a ``kubernetes.io/tls`` Secret from a PEM certificate and its key
(k8s.io/kubectl ``pkg/cmd/create/create_secret_tls.go``), checked as Go's ``tls.X509KeyPair`` checks
them (``crypto/tls/tls.go``), with its messages.

The certificate input must hold a ``CERTIFICATE`` block (the first one is parsed as X.509); the key
input a block whose type is ``PRIVATE KEY`` or ends in `` PRIVATE KEY`` (PKCS #1, PKCS #8 or SEC 1);
the key must be the certificate's: the same algorithm and public key. PEM blocks are found as Go's
``pem.Decode`` finds them (text around them ignored, a block whose body is not base64 skipped).
The certificate's DER structure is checked as Go's ``x509.ParseCertificate`` checks it, with its
messages (:mod:`kbatch.cli.generators.x509_der`); the rest of the parsing is the ``cryptography``
package's (already kbatch's, for service-account tokens), whose failures are reported as
``x509: malformed certificate``.
"""

from __future__ import annotations

import base64
import binascii
import re

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa, x25519

from kbatch.cli.generators import GeneratorError, Obj
from kbatch.cli.generators.data import secret_object
from kbatch.cli.generators.x509_der import TRAILING, certificate_error

__all__ = ["tls_secret"]

# the keys Go's tls.parsePrivateKey returns (PKCS #1, PKCS #8 with RSA, ECDSA, Ed25519 or X25519,
# SEC 1) and those X509KeyPair checks a certificate's against
_GO_PRIVATE = (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey, ed25519.Ed25519PrivateKey,
               x25519.X25519PrivateKey)
_GO_PUBLIC = (rsa.RSAPublicKey, ec.EllipticCurvePublicKey, ed25519.Ed25519PublicKey)
_BLOCK = re.compile(rb"-----BEGIN ([^\r\n]*?)-----\r?\n(.*?)-----END \1-----", re.S)


def _blocks(data: bytes) -> list[tuple[str, bytes]]:
    """The PEM blocks of ``data`` as (type, DER bytes), in order; headers (``Key: value`` lines up to
    a blank line) dropped; a body that is not base64 is no block."""
    out = []
    for match in _BLOCK.finditer(data):
        body = match.group(2)
        if b":" in body.split(b"\n", 1)[0]:
            body = body.split(b"\n\n", 1)[-1] if b"\n\n" in body else b""
        try:
            der = base64.b64decode(b"".join(body.split()), validate=True)
        except (binascii.Error, ValueError):
            continue
        out.append((match.group(1).decode("latin-1"), der))
    return out


def _certificate(data: bytes) -> bytes:
    blocks = _blocks(data)
    certs = [der for kind, der in blocks if kind == "CERTIFICATE"]
    if certs:
        return certs[0]
    skipped = [kind for kind, _ in blocks]
    if not skipped:
        raise GeneratorError("tls: failed to find any PEM data in certificate input")
    if len(skipped) == 1 and skipped[0].endswith("PRIVATE KEY"):
        raise GeneratorError("tls: failed to find certificate PEM data in certificate input, but did find a "
                             "private key; PEM inputs may have been switched")
    raise GeneratorError('tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping '
                         f"PEM blocks of the following types: [{' '.join(skipped)}]")


def _key(data: bytes) -> bytes:
    skipped = []
    for kind, der in _blocks(data):
        if kind == "PRIVATE KEY" or kind.endswith(" PRIVATE KEY"):
            return der
        skipped.append(kind)
    if not skipped:
        raise GeneratorError("tls: failed to find any PEM data in key input")
    if skipped == ["CERTIFICATE"]:
        raise GeneratorError("tls: found a certificate rather than a key in the PEM for the private key")
    raise GeneratorError('tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after '
                         f"skipping PEM blocks of the following types: [{' '.join(skipped)}]")


def check_key_pair(cert_pem: bytes, key_pem: bytes) -> None:
    """``tls.X509KeyPair``'s checks; a :class:`GeneratorError` with its message when one fails."""
    cert_der, key_der = _certificate(cert_pem), _key(key_pem)
    error, own = certificate_error(cert_der)
    if error is not None and error != TRAILING:
        raise GeneratorError(error)
    try:
        public = x509.load_der_x509_certificate(own).public_key()
    except ValueError:
        raise GeneratorError("x509: malformed certificate") from None
    if error is not None:
        raise GeneratorError(error)
    try:
        private = serialization.load_der_private_key(key_der, password=None)
    except (ValueError, TypeError):  # TypeError: an encrypted key, which Go cannot parse either
        raise GeneratorError("tls: failed to parse private key") from None
    if not isinstance(private, _GO_PRIVATE):  # Go's parsePrivateKey knows no DSA, Ed448, X448 key
        raise GeneratorError("tls: failed to parse private key")
    if not isinstance(public, _GO_PUBLIC):  # X509KeyPair's switch on the certificate's key
        raise GeneratorError("tls: unknown public key algorithm")
    if type(private.public_key()) is not type(public):
        raise GeneratorError("tls: private key type does not match public key type")
    raw = (serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    if private.public_key().public_bytes(*raw) != public.public_bytes(*raw):
        raise GeneratorError("tls: private key does not match public key")


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as err:
        reason = {2: "no such file or directory", 13: "permission denied",
                  21: "is a directory"}.get(err.errno or 0, err.strerror)
        raise GeneratorError(f"Cannot read file {path}, open {path}: {reason}") from None


def tls_secret(name: str, ns: str | None, cert: str, key: str) -> Obj:
    """``createSecretTLS``: both paths required, both files read, the pair checked."""
    if not cert or not key:
        raise GeneratorError("key and cert must be specified")
    cert_pem, key_pem = _read(cert), _read(key)
    check_key_pair(cert_pem, key_pem)
    data = {"tls.crt": base64.b64encode(cert_pem).decode(), "tls.key": base64.b64encode(key_pem).decode()}
    return secret_object(name, ns, data, "kubernetes.io/tls")
