"""A v1beta1 topology assignment (``domains``) in v1beta2's compact slices, as Kueue encodes it.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/util/tas/tas_assignment.go`` (``V1Beta2From``,
``compactSliceEncoding``, ``fillSingleCompactSliceValues``, ``compactTopologyAssignmentEncoding``,
``singleCompactTopologyAssignmentEncoding``), used by ``apis/kueue/v1beta1/workload_conversion.go``
and the scheduler. In each slice a level whose values are all equal is ``universal``, otherwise
``individual`` roots with the longest common ``prefix`` and ``suffix`` taken out (never
overlapping); equal pod counts are one ``universal`` count.

With ``TASAssignmentsEncodingByHostnamePrefix`` (beta, on; ``by_hostname_prefix``) the domains are
cut into hostname-prefix runs (:mod:`.topology_prefix`), each run into slices of at most 100,000
domains; that form is kept when it has one slice or more than 100,000 domains, otherwise the one
whose JSON is shorter (the runs on a tie). Without the gate every domain goes into one slice.
:func:`slices_to_domains` decodes (the down conversion, and the TopologyUngater's reading of an
admission). The v1beta1 conversion always encodes with the gate's default (it has no gates).
"""

from __future__ import annotations

import json
from typing import Any

from kbatch.api.kueue_v1beta1.topology_prefix import MAX_DOMAINS_PER_SLICE, domain_runs, prefix_keys

__all__ = ["MAX_DOMAINS_PER_SLICE", "domains_to_slices", "hostname_prefix_slices", "slices_to_domains"]

HOSTNAME = "kubernetes.io/hostname"


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


def hostname_prefix_slices(levels: list[str], domains: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``compactTopologyAssignmentEncodingWithHostnamePrefixRuns``: a slice per run and chunk."""
    keys = None
    if len(domains) > 1 and levels and levels[-1] == HOSTNAME:
        keys = prefix_keys([(d.get("values") or [""] * len(levels))[-1] for d in domains])
    out = []
    for run in domain_runs(len(domains), keys):
        for i in range(run.start, run.stop, MAX_DOMAINS_PER_SLICE):
            out.append(_slice(levels, domains[i : min(i + MAX_DOMAINS_PER_SLICE, run.stop)]))
    return out


def _json_size(slices: list[dict[str, Any]]) -> int:
    """The bytes ``json.Marshal`` spends on the slices (the levels are common to both forms)."""
    return len(json.dumps(slices, separators=(",", ":"), ensure_ascii=False).encode())


def domains_to_slices(ta: dict[str, Any], by_hostname_prefix: bool = True) -> dict[str, Any]:
    """``V1Beta2From``: a v1beta1 ``topologyAssignment`` as v1beta2's (``levels`` and ``slices``)."""
    levels = ta.get("levels") or []
    domains = ta.get("domains") or []
    single = [_slice(levels, domains)] if domains else []
    if not by_hostname_prefix:
        return {"levels": levels, "slices": single}
    runs = hostname_prefix_slices(levels, domains)
    if len(runs) <= 1 or len(domains) > MAX_DOMAINS_PER_SLICE:
        return {"levels": levels, "slices": runs}
    return {"levels": levels, "slices": single if _json_size(single) < _json_size(runs) else runs}


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
