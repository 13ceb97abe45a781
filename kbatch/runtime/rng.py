"""The control plane's seeded random source: the one place randomness comes from.

``new_rng(seed)`` builds a ``random.Random`` owned by one control plane and handed, explicitly, to
the API server (generateName suffixes, uids) and to controllers (jitter, tie-breaks). Nothing in
kbatch uses the module-level ``random`` functions, so two control planes never share a stream and
the same seed always yields the same sequence, in every process (``random.Random`` seeded with an
int does not depend on ``PYTHONHASHSEED``).

``derive(rng, label)`` gives a component its own stream without disturbing the parent's order
of draws: it is seeded from the parent seed and a label, not from a draw.
"""

from __future__ import annotations

import hashlib
import random

__all__ = ["SeededRandom", "derive", "new_rng"]


class SeededRandom(random.Random):
    """``random.Random`` that remembers its seed (so components can derive their own streams)."""

    def __init__(self, seed: int = 0) -> None:
        if not isinstance(seed, int):
            raise TypeError(f"seed must be an int, got {type(seed).__name__}")
        self.seed_value = seed
        super().__init__(seed)


def new_rng(seed: int = 0) -> SeededRandom:
    return SeededRandom(seed)


def derive(rng: random.Random, label: str) -> SeededRandom:
    """A child stream for ``label``, stable across processes (sha256, not ``hash()``)."""
    parent = getattr(rng, "seed_value", None)
    if parent is None:
        raise TypeError("derive() needs a SeededRandom (one that remembers its seed)")
    digest = hashlib.sha256(f"{parent}:{label}".encode()).digest()
    return SeededRandom(int.from_bytes(digest[:8], "big"))
