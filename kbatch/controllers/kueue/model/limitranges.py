"""A namespace's LimitRanges as Kueue reads them for a pending Workload (pure functions).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/util/limitrange/limitrange.go`` (``Summarize``,
``ValidatePodSpec``) and ``pkg/workload/resources.go`` (``handlePodLimitRange``,
``handleLimitsToRequests``, ``ValidateLimitRange``), ``pkg/util/resource/resource.go`` (the
``MergeResourceList*`` rules).

* :func:`summarize`: the ranges (in name order, as a List returns them) folded per limit type: the
  lowest ``max`` and ``maxLimitRequestRatio``, the highest ``min``, the first ``default`` and
  ``defaultRequest`` of each resource.
* :func:`adjust`: what ``AdjustResources`` does with it to each pod set's template: every container
  and init container gets the ``Container`` defaults for the limits and requests it leaves unset, the
  pod-level resources (when the pod sets them) the ``Pod`` defaults, then requests missing a limit's
  resource take the limit. The Workload object is not written: this is how Kueue sees it.
* :func:`violations`: ``ValidateLimitRange``'s field errors: a container's larger of request and
  limit above the ``Container`` max, its smaller one below the min; the pod's total requests
  (``PodRequests``) against the ``Pod`` max and min. A resource missing on either side is not
  compared (``GreaterKeys``).

Unlike the API server's ``LimitRanger`` (:mod:`kbatch.api.limit_ranges`), several LimitRanges are
merged into one summary first, and neither ``maxLimitRequestRatio`` nor the annotation is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kbatch.api.core_v1 import LimitRange
from kbatch.api.errors import FieldError
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.quantity import Quantity
from kbatch.controllers.kueue.model.requests import pod_spec_requests
from kbatch.controllers.scheduler.convert import quantity_map

__all__ = ["ABOVE_MAX", "BELOW_MIN", "ItemSummary", "Summary", "adjust", "summarize", "violations"]

ABOVE_MAX = "requests must not be above the limitRange max"
BELOW_MIN = "requests must not be below the limitRange min"

Resources = dict[str, Quantity]


@dataclass
class ItemSummary:
    """One limit type's folded ``LimitRangeItem``."""

    max: Resources = field(default_factory=dict)
    min: Resources = field(default_factory=dict)
    default: Resources = field(default_factory=dict)
    default_request: Resources = field(default_factory=dict)
    max_limit_request_ratio: Resources = field(default_factory=dict)


Summary = dict[str, ItemSummary]
"""Limit type (``Container``, ``Pod``, ``PersistentVolumeClaim``) → its folded item."""


def keep_first(dst: Mapping[str, Quantity] | None, src: Mapping[str, Quantity] | None) -> Resources:
    """``MergeResourceListKeepFirst``: ``dst``'s values, and ``src``'s for resources ``dst`` lacks."""
    out = dict(dst or {})
    for name, value in (src or {}).items():
        out.setdefault(name, value)
    return out


def _keep(a: Resources, b: Mapping[str, Quantity] | None, lowest: bool) -> Resources:
    """``MergeResourceListKeepMin`` / ``KeepMax``."""
    out = dict(a)
    for name, value in (b or {}).items():
        have = out.get(name)
        if have is None or (value.cmp(have) < 0 if lowest else value.cmp(have) > 0):
            out[name] = value
    return out


def summarize(ranges: Iterable[LimitRange]) -> Summary:
    """``Summarize`` (see the module docstring)."""
    out: Summary = {}
    for lr in ranges:
        for item in (lr.spec.limits if lr.spec else None) or ():
            s = out.setdefault(item.type, ItemSummary())
            s.max = _keep(s.max, item.max, lowest=True)
            s.min = _keep(s.min, item.min, lowest=False)
            s.default = keep_first(s.default, item.default)
            s.default_request = keep_first(s.default_request, item.default_request)
            s.max_limit_request_ratio = _keep(
                s.max_limit_request_ratio, item.max_limit_request_ratio, lowest=True
            )
    return out


def _resources(obj: dict[str, Any], limits: Mapping[str, Quantity], requests: Mapping[str, Quantity]) -> None:
    """Fill ``obj['resources']`` (a container's or the pod's, in wire form) with what it lacks."""
    res = dict(obj.get("resources") or {})
    have_limits = {k: Quantity.parse(str(v)) for k, v in (res.get("limits") or {}).items()}
    have_requests = {k: Quantity.parse(str(v)) for k, v in (res.get("requests") or {}).items()}
    new_limits = keep_first(have_limits, limits)
    new_requests = keep_first(keep_first(have_requests, requests), new_limits)  # handleLimitsToRequests
    if new_limits:
        res["limits"] = {k: str(v) for k, v in new_limits.items()}
    if new_requests:
        res["requests"] = {k: str(v) for k, v in new_requests.items()}
    obj["resources"] = res


def _adjust_pod(pod: dict[str, Any], summary: Summary) -> None:
    container = summary.get("Container")
    limits = container.default if container else {}
    requests = container.default_request if container else {}
    for key in ("initContainers", "containers"):
        for c in pod.get(key) or ():
            _resources(c, limits, requests)
    pod_item = summary.get("Pod")
    if pod.get("resources") is not None:
        _resources(pod, pod_item.default if pod_item else {}, pod_item.default_request if pod_item else {})


def adjust(wl: Workload, summary: Summary) -> Workload:
    """``handlePodLimitRange`` then ``handleLimitsToRequests`` on a copy of ``wl`` (``wl`` itself
    when no ``Container`` or ``Pod`` item applies: upstream's early return)."""
    if "Container" not in summary and "Pod" not in summary:
        return wl
    body = wl.to_dict()
    for ps in (body.get("spec") or {}).get("podSets") or ():
        pod = ((ps.get("template") or {}).get("spec")) or None
        if pod is not None:
            _adjust_pod(pod, summary)
    return Workload.model_validate(body)


def _greater(a: Mapping[str, int], b: Mapping[str, int]) -> list[str]:
    """``GreaterKeys``: the resources of both where ``a`` is larger, sorted."""
    return sorted(k for k, v in a.items() if k in b and v > b[k])


def _container_errors(containers: Any, item: ItemSummary, path: str) -> list[str]:
    out = []
    high, low = quantity_map(item.max), quantity_map(item.min)
    for i, c in enumerate(containers or ()):
        res = c.resources
        req = quantity_map(res.requests if res else None)
        lim = quantity_map(res.limits if res else None)
        c_max = {k: max(v, lim[k]) if k in lim else v for k, v in req.items()} | {
            k: v for k, v in lim.items() if k not in req}
        c_min = {k: min(v, lim[k]) if k in lim else v for k, v in req.items()} | {
            k: v for k, v in lim.items() if k not in req}
        if names := _greater(c_max, high):
            out.append(str(FieldError.invalid(f"{path}[{i}]", names, ABOVE_MAX)))
        if names := _greater(low, c_min):
            out.append(str(FieldError.invalid(f"{path}[{i}]", names, BELOW_MIN)))
    return out


def _pod_total(spec: Any) -> dict[str, int]:
    """``NewRequestsFromPodSpec``: ``PodRequests``, a resource some container asks zero of kept
    at zero (it is compared against a ``min``)."""
    total = pod_spec_requests(spec)
    for c in (*(spec.init_containers or ()), *(spec.containers or ())):
        for name in (c.resources.requests or {}) if c.resources else ():
            total.setdefault(name, 0)
    return total


def violations(wl: Workload, summary: Summary) -> list[str]:
    """``ValidateLimitRange`` (see the module docstring), as printed field errors."""
    out: list[str] = []
    container, pod_item = summary.get("Container"), summary.get("Pod")
    for i, ps in enumerate((wl.spec.pod_sets if wl.spec else None) or ()):
        spec = ps.template.spec if ps.template else None
        if spec is None:
            continue
        path = f"spec.podSets[{i}].template.spec"
        if container is not None:
            out += _container_errors(spec.init_containers, container, f"{path}.initContainers")
            out += _container_errors(spec.containers, container, f"{path}.containers")
        if pod_item is not None:
            total = _pod_total(spec)
            if names := _greater(total, quantity_map(pod_item.max)):
                out.append(str(FieldError.invalid(path, names, ABOVE_MAX)))
            if names := _greater(quantity_map(pod_item.min), total):
                out.append(str(FieldError.invalid(path, names, BELOW_MIN)))
    return out
