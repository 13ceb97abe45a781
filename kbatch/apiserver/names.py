"""Names and identities the server assigns: generateName suffixes and uids, from the seeded rng.

Upstream: ``staging/src/k8s.io/apiserver/pkg/storage/names/generate.go`` (5 random characters from
an alphabet without vowels or confusable characters, base truncated so the name fits 63 characters)
and the uid filled by ``rest.FillObjectMetaSystemFields``.
"""

from __future__ import annotations

import random
import uuid

__all__ = ["GENERATE_ALPHABET", "generate_name", "new_uid"]

GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_MAX_NAME_LENGTH = 63
_RANDOM_LENGTH = 5
_MAX_BASE_LENGTH = _MAX_NAME_LENGTH - _RANDOM_LENGTH


def generate_name(base: str, rng: random.Random) -> str:
    base = base[:_MAX_BASE_LENGTH]
    return base + "".join(rng.choice(GENERATE_ALPHABET) for _ in range(_RANDOM_LENGTH))


def new_uid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))
