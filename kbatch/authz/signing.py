"""The service-account signing key: ES256 JSON Web Signatures over token claims.

Upstream signs with the key of ``--service-account-signing-key-file`` (RS256 for an RSA key, ES256
for a P-256 one; k8s.io/kubernetes ``pkg/serviceaccount/jwt.go`` ``JWTTokenGenerator``) and names it in
the JWS header by ``kid``, the unpadded base64url SHA-256 of the public key's DER
SubjectPublicKeyInfo (``keyIDFromPublicKey``). kbatch has no key file: the P-256 private scalar is
derived from the state's seed and a secret (docs/serviceaccounts.md, "Tokens"), so the same state
signs and verifies the same way after a restart, and signatures are RFC 6979 deterministic, so a
token is a pure function of its claims. The JWS encoding and verification are PyJWT's; the curve
arithmetic is ``cryptography``'s (docs/dependencies.md).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm
from jwt.utils import der_to_raw_signature

__all__ = ["ALGORITHM", "InvalidSignature", "SigningKey", "unverified_claims"]

ALGORITHM = "ES256"
_P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


class InvalidSignature(Exception):
    """A token that is not a JWS this key signed (malformed, another key, another algorithm)."""


class _DeterministicES256(ECAlgorithm):
    """PyJWT's ES256 with RFC 6979 nonces (``cryptography``'s ``deterministic_signing``)."""

    def __init__(self) -> None:
        super().__init__(ECAlgorithm.SHA256)

    def sign(self, msg: bytes, key: Any) -> bytes:
        der = key.sign(msg, ec.ECDSA(self.hash_alg(), deterministic_signing=True))
        return der_to_raw_signature(der, key.curve)


def _jws() -> jwt.PyJWS:
    codec = jwt.PyJWS(algorithms=[])
    codec.register_algorithm(ALGORITHM, _DeterministicES256())
    return codec


class SigningKey:
    """One P-256 key pair: :meth:`sign` claims into a compact JWS, :meth:`verify` one back."""

    def __init__(self, private: ec.EllipticCurvePrivateKey) -> None:
        self._private = private
        self._public = private.public_key()
        der = self._public.public_bytes(serialization.Encoding.DER,
                                        serialization.PublicFormat.SubjectPublicKeyInfo)
        self.kid = base64.urlsafe_b64encode(hashlib.sha256(der).digest()).rstrip(b"=").decode()
        self._codec = _jws()

    @classmethod
    def derive(cls, material: bytes) -> SigningKey:
        """The key whose private scalar is SHA-256 of ``material``, reduced into [1, n-1]."""
        digest = hashlib.sha256(b"kbatch service-account signing key\x00" + material).digest()
        scalar = int.from_bytes(digest, "big") % (_P256_ORDER - 1) + 1
        return cls(ec.derive_private_key(scalar, ec.SECP256R1()))

    def sign(self, claims: Mapping[str, Any]) -> str:
        """The compact JWS of ``claims``: keys sorted and no spaces, as Go's encoding of the merged
        claim map writes them; header ``{"alg": "ES256", "kid": …}`` as go-jose's."""
        payload = json.dumps(claims, sort_keys=True, separators=(",", ":")).encode()
        return self._codec.encode(payload, self._private, algorithm=ALGORITHM,
                                  headers={"typ": None, "kid": self.kid})

    def public_jwk(self) -> dict[str, str]:
        """The public key as a JSON Web Key (RFC 7517/7518), in go-jose's field order (``use``,
        ``kty``, ``kid``, ``crv``, ``alg``, ``x``, ``y``; coordinates 32 bytes, unpadded base64url), as
        kube-apiserver's keyset lists it (``jwkFromPublicKey``: ``use: sig``)."""
        numbers = self._public.public_numbers()

        def coordinate(value: int) -> str:
            return base64.urlsafe_b64encode(value.to_bytes(32, "big")).rstrip(b"=").decode()

        return {"use": "sig", "kty": "EC", "kid": self.kid, "crv": "P-256", "alg": ALGORITHM,
                "x": coordinate(numbers.x), "y": coordinate(numbers.y)}

    def verify(self, token: str) -> dict[str, Any]:
        """The claims of a token this key signed; :class:`InvalidSignature` for anything else."""
        try:
            payload = self._codec.decode(token, self._public, algorithms=[ALGORITHM])
            claims = json.loads(payload)
        except (jwt.InvalidTokenError, ValueError, TypeError) as err:
            raise InvalidSignature(str(err)) from None
        if not isinstance(claims, dict):
            raise InvalidSignature("the payload is not a JSON object")
        return claims


def unverified_claims(token: str) -> dict[str, Any] | None:
    """The payload of a compact JWS without checking its signature, or ``None`` when ``token`` is not
    one (upstream's ``hasCorrectIssuer`` reads ``iss`` this way before choosing an authenticator)."""
    if token.strip().startswith("{"):
        return None
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        payload = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, TypeError):
        return None
    return payload if isinstance(payload, dict) else None
