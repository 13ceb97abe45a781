"""Workload names for jobs (``GetWorkloadNameForOwnerWithGVK``).

Upstream: kubernetes-sigs/kueue ``pkg/controller/jobframework/workload_names.go`` (v0.19.2):
``<lowercase kind>-<owner name>``, truncated to leave room for ``-`` and a 5-character hash, then
the first 5 hex digits of SHA-1 over ``kind\\ngroup\\nname\\nuid`` (``\\nextra`` appended when there is
one: an elastic job's generation, ``GenerateWorkloadNameWithExtra``, so each workload slice has its own
name). Names are at most 253 characters (63 with the ``ShortWorkloadNames`` gate).
"""

from __future__ import annotations

import hashlib

__all__ = ["workload_name"]

HASH_LENGTH = 5


def workload_name(
    owner_name: str, owner_uid: str, kind: str, group: str, short: bool = False, extra: str = ""
) -> str:
    max_prefix = (63 if short else 253) - 1 - HASH_LENGTH
    prefix = f"{kind.lower()}-{owner_name}"[:max_prefix]
    hashed = f"{kind}\n{group}\n{owner_name}\n{owner_uid}" + (f"\n{extra}" if extra else "")
    digest = hashlib.sha1(hashed.encode()).hexdigest()
    return f"{prefix}-{digest[:HASH_LENGTH]}"
