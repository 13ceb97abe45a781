"""``kubectl describe`` pages of ResourceQuota and LimitRange.

From k8s.io/kubectl 1.37 ``pkg/describe/describe.go`` ``describeQuota`` (name, namespace, the
scopes with their help texts, then Resource/Used/Hard for every ``status.hard`` resource sorted by
name, the used amount shown in the hard amount's format) and ``describeLimitRange`` /
``describeLimitRangeSpec`` (one row per item and resource; ``-`` where unset). Neither page lists
events. kbatch difference: kubectl prints a LimitRange item's resources in Go's map order (it
varies from run to run); kbatch sorts them by name.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.printing import DescribeReader, Obj, at
from kbatch.api.quantity import Quantity
from kbatch.api.tabwriter import tabwrite

__all__ = ["describe_limit_range_page", "describe_quota_page", "limit_range_page", "quota_page"]

_SCOPE_HELP = {
    "Terminating": "Matches all pods that have an active deadline. These pods have a limited lifespan on a "
                   "node before being actively terminated by the system.",
    "NotTerminating": "Matches all pods that do not have an active deadline. These pods usually include long "
                      "running pods whose container command is not expected to terminate.",
    "BestEffort": "Matches all pods that do not have resource requirements set. These pods have a best "
                  "effort quality of service.",
    "NotBestEffort": "Matches all pods that have at least one resource requirement set. These pods have a "
                     "burstable or guaranteed quality of service.",
}


def _used_in_format(used: Any, hard: Any) -> str:
    """The used amount in the hard amount's format (``resource.NewQuantity(used.Value(), format)``)."""
    u, h = Quantity(used if used is not None else 0), Quantity(hard)
    if u.format == h.format:
        return str(u)
    return str(Quantity.scaled(u.value(), 0, h.format))


def _head(obj: Obj) -> list[str]:
    meta = obj.get("metadata") or {}
    return [f"Name:\t{meta.get('name') or ''}", f"Namespace:\t{meta.get('namespace') or ''}"]


def quota_page(rq: Obj) -> str:
    lines = _head(rq)
    scopes = sorted(at(rq, "spec", "scopes") or [])
    if scopes:
        lines.append(f"Scopes:\t{', '.join(scopes)}")
        lines += [f" * {_SCOPE_HELP[s]}" for s in scopes if s in _SCOPE_HELP]
    lines += ["Resource\tUsed\tHard", "--------\t----\t----"]
    hard = at(rq, "status", "hard") or {}
    used = at(rq, "status", "used") or {}
    for name in sorted(hard):
        lines.append(f"{name}\t{_used_in_format(used.get(name), hard[name])}\t{Quantity(hard[name])}")
    return tabwrite("\n".join(lines))


def limit_range_page(lr: Obj) -> str:
    lines = [*_head(lr), "Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio",
                         "----\t--------\t---\t---\t---------------\t-------------\t-----------------------"]
    fields = ("min", "max", "defaultRequest", "default", "maxLimitRequestRatio")
    for item in at(lr, "spec", "limits") or []:
        names = sorted({n for f in fields for n in item.get(f) or {}})
        for name in names:
            cells = [str(Quantity((item.get(f) or {})[name])) if name in (item.get(f) or {}) else "-"
                     for f in fields]
            lines.append("\t".join([item.get("type", ""), name, *cells]))
    return tabwrite("\n".join(lines))


def describe_quota_page(reader: DescribeReader, rq: Obj) -> str:
    return quota_page(rq)


def describe_limit_range_page(reader: DescribeReader, lr: Obj) -> str:
    return limit_range_page(lr)
