"""Workload names for jobs (``GetWorkloadNameForOwnerWithGVK``).

Upstream: kubernetes-sigs/kueue ``pkg/controller/jobframework/workload_names.go`` (v0.19.2):
``<lowercase kind>-<owner name>``, truncated to leave room for ``-`` and a 5-character hash, then
the first 5 hex digits of SHA-1 over ``kind\\ngroup\\nname\\nuid`` (``\\nextra`` appended when there is
one: an elastic job's generation, ``GenerateWorkloadNameWithExtra``, so each workload slice has its own
name). Names are at most 253 characters (63 with the ``ShortWorkloadNames`` gate).
"""

from __future__ import annotations

import hashlib

__all__ = ["name_with_hash", "workload_name"]

HASH_LENGTH = 5


def workload_name(
    owner_name: str, owner_uid: str, kind: str, group: str, short: bool = False, extra: str = ""
) -> str:
    return name_with_hash(f"{kind.lower()}-{owner_name}", owner_name, owner_uid, kind, group, short, extra)


def name_with_hash(
    prefix: str, owner_name: str, owner_uid: str, kind: str, group: str, short: bool, extra: str
) -> str:
    """``generateWorkloadNameWithHash``: ``prefix`` truncated to ``maxPrefixLength`` (253 or, with
    ``ShortWorkloadNames``, 63, less ``-`` and the hash), ``-``, the hash (``getHash``)."""
    max_prefix = (63 if short else 253) - 1 - HASH_LENGTH
    hashed = f"{kind}\n{group}\n{owner_name}\n{owner_uid}" + (f"\n{extra}" if extra else "")
    digest = hashlib.sha1(hashed.encode()).hexdigest()
    return f"{prefix[:max_prefix]}-{digest[:HASH_LENGTH]}"
