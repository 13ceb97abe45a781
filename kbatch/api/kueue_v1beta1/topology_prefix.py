"""Hostname-prefix runs of a topology assignment (``TASAssignmentsEncodingByHostnamePrefix``).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/util/tas/tas_assignment.go``
(``reusableHostnamePrefixKeys``, ``indexHostnamePrefixes``, ``selectHostnamePrefixKeys``,
``compactDomainRuns``, ``chunkCount``) and KEP 2724 ("TASAssignmentsEncodingByHostnamePrefix").

When the lowest level is ``kubernetes.io/hostname``, each domain's hostname is given a *key*: its
longest ``-``-terminated prefix (never the whole name) that at least one other domain of the
assignment shares. Consecutive domains with the same key form one run, so each run compacts to a
slice with a long common prefix. When the runs (each cut into chunks of at most
:data:`MAX_DOMAINS_PER_SLICE`) would exceed :data:`MAX_SLICES`, shorter prefixes are tried; when
no depth fits, there are no keys and the assignment is one run. Domain order is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["MAX_DOMAINS_PER_SLICE", "MAX_SLICES", "chunk_count", "domain_runs", "prefix_keys"]

MAX_DOMAINS_PER_SLICE = 100_000  # maxDomainsPerTopologyAssignmentSlice (v1beta2 MaxItems)
MAX_SLICES = 1_000  # maxTopologyAssignmentSlices (v1beta2 Slices MaxItems)


def chunk_count(length: int, size: int) -> int:
    """``chunkCount``: fixed-size chunks needed for ``length`` items."""
    return (length + size - 1) // size


def _candidates(hostname: str) -> list[int]:
    """The end offsets of the hostname's ``-``-terminated prefixes (a trailing ``-`` excluded)."""
    return [end + 1 for end in range(len(hostname) - 1) if hostname[end] == "-"]


def _slice_count(keys: Sequence[str]) -> int:
    total, start = 0, 0
    for i in range(1, len(keys)):
        if keys[i] != keys[start]:
            total += chunk_count(i - start, MAX_DOMAINS_PER_SLICE)
            start = i
    return total + chunk_count(len(keys) - start, MAX_DOMAINS_PER_SLICE)


def prefix_keys(hostnames: Sequence[str]) -> list[str] | None:
    """``reusableHostnamePrefixKeys``: each hostname's key at the deepest prefix depth whose runs
    fit :data:`MAX_SLICES` (``""`` for a hostname with no shared prefix), or ``None`` when no depth
    fits or no hostname has a ``-``."""
    ends = [_candidates(h) for h in hostnames]
    seen: dict[str, int] = {}
    for h, offsets in zip(hostnames, ends, strict=True):
        for end in offsets:
            seen[h[:end]] = min(seen.get(h[:end], 0) + 1, 2)
    for depth in range(max((len(e) for e in ends), default=0), 0, -1):
        keys = []
        for h, offsets in zip(hostnames, ends, strict=True):
            key = ""
            for end in reversed(offsets[:depth]):
                if seen[h[:end]] >= 2:
                    key = h[:end]
                    break
            keys.append(key)
        if _slice_count(keys) <= MAX_SLICES:
            return keys
    return None


def domain_runs(count: int, keys: Sequence[str] | None) -> list[range]:
    """``compactDomainRuns``: the index ranges of consecutive domains sharing a key (one run without
    keys; none without domains)."""
    if count == 0:
        return []
    if not keys:
        return [range(count)]
    runs, start = [], 0
    for i in range(1, count):
        if keys[i] != keys[start]:
            runs.append(range(start, i))
            start = i
    runs.append(range(start, count))
    return runs
