"""Names and identities the server assigns: generateName suffixes and uids, from the seeded rng.

Upstream: ``staging/src/k8s.io/apiserver/pkg/storage/names/generate.go`` (5 random characters from
an alphabet without vowels or confusable characters, base truncated so the name fits 63 characters)
and the uid filled by ``rest.FillObjectMetaSystemFields``.
"""

from __future__ import annotations

import random

__all__ = ["GENERATE_ALPHABET", "generate_name", "new_uid"]

GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_MAX_NAME_LENGTH = 63
_RANDOM_LENGTH = 5
_MAX_BASE_LENGTH = _MAX_NAME_LENGTH - _RANDOM_LENGTH


def generate_name(base: str, rng: random.Random) -> str:
    base = base[:_MAX_BASE_LENGTH]
    return base + "".join(rng.choice(GENERATE_ALPHABET) for _ in range(_RANDOM_LENGTH))


# RFC 4122 version 4: the version nibble is 4, the variant bits are 10 (as uuid.UUID(version=4) sets them)
_UID_CLEAR = ~((0xF000 << 64) | (0xC000 << 48))
_UID_SET = (0x4000 << 64) | (0x8000 << 48)


def new_uid(rng: random.Random) -> str:
    """A version-4 uuid from 128 bits of ``rng``: the text ``str(uuid.UUID(int=bits, version=4))`` gives,
    formatted directly (~0.7 µs instead of ~1.9 µs; one per create)."""
    h = "%032x" % ((rng.getrandbits(128) & _UID_CLEAR) | _UID_SET)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
