"""A v1beta1 topology assignment (``domains``) in v1beta2's compact slices, as Kueue encodes it.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/util/tas/tas_assignment.go`` (``V1Beta2From``,
``compactSliceEncoding``, ``fillSingleCompactSliceValues``), used by
``apis/kueue/v1beta1/workload_conversion.go``. The domains become slices of at most 100,000 domains;
in each slice a level whose values are all equal is ``universal``, otherwise ``individual`` roots
with the longest common ``prefix`` and ``suffix`` taken out (never overlapping); equal pod counts
are one ``universal`` count.

Not modelled: with ``TASAssignmentsEncodingByHostnamePrefix`` (beta, on) upstream also splits
domains whose lowest level is ``kubernetes.io/hostname`` into runs by reusable hostname prefixes and
keeps the shorter JSON of the two encodings; kbatch always writes the single-run form (the same
domains, decoded back identically). :func:`slices_to_domains` decodes (the down conversion, and the
TopologyUngater's reading of an admission).
"""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_DOMAINS_PER_SLICE", "domains_to_slices", "slices_to_domains"]

MAX_DOMAINS_PER_SLICE = 100_000


def _common_prefix(values: list[str]) -> str:
    prefix = values[0]
    for s in values[1:]:
        n = 0
        while n < min(len(prefix), len(s)) and prefix[n] == s[n]:
            n += 1
        prefix = prefix[:n]
    return prefix


def _level_values(values: list[str]) -> dict[str, Any]:
    """``fillSingleCompactSliceValues`` (byte-wise in Go; kbatch compares characters)."""
    prefix = _common_prefix(values)
    if len(prefix) == max(len(s) for s in values):
        return {"universal": prefix}
    suffix = _common_prefix([s[::-1] for s in values])[::-1]
    shortest = min(len(s) for s in values)
    if len(prefix) + len(suffix) > shortest:
        prefix = prefix[: shortest - len(suffix)]
    individual: dict[str, Any] = {}
    if prefix:
        individual["prefix"] = prefix
    if suffix:
        individual["suffix"] = suffix
    individual["roots"] = [s[len(prefix) : len(s) - len(suffix)] for s in values]
    return {"individual": individual}


def _slice(levels: list[str], domains: list[dict[str, Any]]) -> dict[str, Any]:
    """``compactSliceEncoding`` of one run of domains."""
    per_level = []
    for i in range(len(levels)):
        per_level.append(_level_values([(d.get("values") or [""] * len(levels))[i] for d in domains]))
    counts = [d.get("count", 0) for d in domains]
    pod_counts = {"universal": counts[0]} if len(set(counts)) == 1 else {"individual": counts}
    return {"domainCount": len(domains), "valuesPerLevel": per_level, "podCounts": pod_counts}


def domains_to_slices(ta: dict[str, Any]) -> dict[str, Any]:
    """A v1beta1 ``topologyAssignment`` as v1beta2's (``levels`` and ``slices``)."""
    levels = ta.get("levels") or []
    domains = ta.get("domains") or []
    chunks = [domains[i : i + MAX_DOMAINS_PER_SLICE] for i in range(0, len(domains), MAX_DOMAINS_PER_SLICE)]
    return {"levels": levels, "slices": [_slice(levels, chunk) for chunk in chunks]}


def slices_to_domains(ta: dict[str, Any]) -> dict[str, Any]:
    """v1beta2 ``slices`` decoded into v1beta1 ``domains`` (prefixes, suffixes, universals expanded)."""
    levels = ta.get("levels") or []
    domains: list[dict[str, Any]] = []
    for s in ta.get("slices") or []:
        n = s.get("domainCount") or 0
        per_level = s.get("valuesPerLevel") or []
        counts = s.get("podCounts") or {}
        for j in range(n):
            values = []
            for level in per_level:
                if level.get("universal") is not None:
                    values.append(level["universal"])
                else:
                    ind = level.get("individual") or {}
                    roots = ind.get("roots") or []
                    values.append(
                        f"{ind.get('prefix') or ''}{roots[j] if j < len(roots) else ''}"
                        f"{ind.get('suffix') or ''}"
                    )
            indiv = counts.get("individual")
            count = counts.get("universal") if indiv is None else (indiv[j] if j < len(indiv) else 0)
            domains.append({"values": values, "count": count})
    return {"levels": levels, "domains": domains}
