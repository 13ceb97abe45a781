"""What a namespace's LimitRanges do to a pod: defaults and constraints (pure functions).

Upstream (semantics only): kubernetes ``plugin/pkg/admission/limitranger/admission.go``
(``defaultContainerResourceRequirements``, ``mergeContainerResources``, ``PodValidateLimitFunc``,
``minConstraint``, ``maxConstraint``, ``limitRequestRatioConstraint``,
``requestLimitEnforcedValues``). The ``Pod`` item bounds the pod's totals (containers and sidecars
summed, init containers' peak: ``kbatch.api.quota_usage.pod_totals``; without ``spec.overhead``, which
the plugin's own ``podRequests`` leaves out, unlike quota and the scheduler); the ``Container`` item each
container and init container. Resource names are visited in sorted order (Go's map order is random).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kbatch.api.core_v1 import Container, LimitRange, LimitRangeItem, Pod, ResourceRequirements
from kbatch.api.quantity import Quantity
from kbatch.api.quota_usage import pod_totals

__all__ = ["ANNOTATION", "apply_defaults", "constraint_errors", "container_defaults", "pod_errors"]

ANNOTATION = "kubernetes.io/limit-ranger"
_MAX_MILLI = 2 ** 63 // 1000
_NONE = Quantity(0)


def container_defaults(ranges: Iterable[LimitRange]) -> tuple[dict[str, Quantity], dict[str, Quantity]]:
    """(default requests, default limits) of the ``Container`` items, later ranges overriding."""
    requests: dict[str, Quantity] = {}
    limits: dict[str, Quantity] = {}
    for lr in ranges:
        for item in lr.spec.limits if lr.spec else ():
            if item.type == "Container":
                requests.update(item.default_request or {})
                limits.update(item.default or {})
    return requests, limits


def _merge(c: Container, requests: Mapping[str, Quantity], limits: Mapping[str, Quantity],
           what: str) -> list[str]:
    """``mergeContainerResources``: fill what the container leaves unset; the annotation parts."""
    res = c.resources if c.resources is not None else ResourceRequirements()
    have_limits, have_requests = dict(res.limits or {}), dict(res.requests or {})
    set_limits = sorted(k for k in limits if k not in have_limits)
    set_requests = sorted(k for k in requests if k not in have_requests)
    if not set_limits and not set_requests:
        return []
    have_limits.update({k: limits[k] for k in set_limits})
    have_requests.update({k: requests[k] for k in set_requests})
    res.limits, res.requests = have_limits or None, have_requests or None
    c.resources = res
    notes = []
    if set_requests:
        notes.append(f"{', '.join(set_requests)} request for {what} {c.name}")
    if set_limits:
        notes.append(f"{', '.join(set_limits)} limit for {what} {c.name}")
    return notes


def apply_defaults(pod: Pod, ranges: Iterable[LimitRange]) -> None:
    """``PodMutateLimitFunc``: default requests/limits into every container; the annotation."""
    requests, limits = container_defaults(ranges)
    if not requests and not limits:
        return
    notes: list[str] = []
    for c in pod.spec.containers:
        notes += _merge(c, requests, limits, "container")
    for c in pod.spec.init_containers or ():
        notes += _merge(c, requests, limits, "init container")
    if notes:
        pod.metadata.annotations = {**(pod.metadata.annotations or {}),
                                    ANNOTATION: "LimitRanger plugin set: " + "; ".join(notes)}


def _values(req: Quantity | None, lim: Quantity | None, enforced: Quantity) -> tuple[int, int, int]:
    """``requestLimitEnforcedValues``: milli-units unless one would overflow."""
    r, li, e = (req or _NONE).value(), (lim or _NONE).value(), enforced.value()
    if r <= _MAX_MILLI and li <= _MAX_MILLI and e <= _MAX_MILLI:
        return (req or _NONE).milli_value(), (lim or _NONE).milli_value(), enforced.milli_value()
    return r, li, e


def _min(kind: str, name: str, enforced: Quantity, req: Quantity | None, lim: Quantity | None) -> str:
    r, li, e = _values(req, lim, enforced)
    if req is None:
        return f"minimum {name} usage per {kind} is {enforced}.  No request is specified"
    if r < e:
        return f"minimum {name} usage per {kind} is {enforced}, but request is {req}"
    if lim is not None and li < e:
        return f"minimum {name} usage per {kind} is {enforced}, but limit is {lim}"
    return ""


def _max(kind: str, name: str, enforced: Quantity, req: Quantity | None, lim: Quantity | None) -> str:
    r, li, e = _values(req, lim, enforced)
    if lim is None:
        return f"maximum {name} usage per {kind} is {enforced}.  No limit is specified"
    if li > e:
        return f"maximum {name} usage per {kind} is {enforced}, but limit is {lim}"
    if req is not None and r > e:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {req}"
    return ""


def _ratio(kind: str, name: str, enforced: Quantity, req: Quantity | None, lim: Quantity | None) -> str:
    r, li, _ = _values(req, lim, enforced)
    head = f"{name} max limit to request ratio per {kind} is {enforced}"
    if req is None or r == 0:
        return f"{head}, but no request is specified or request is 0"
    if lim is None or li == 0:
        return f"{head}, but no limit is specified or limit is 0"
    observed = shown = li / r
    allowed = float(enforced.value())
    if enforced.value() <= _MAX_MILLI:
        observed, allowed = observed * 1000, float(enforced.milli_value())
    return f"{head}, but provided ratio is {shown:f}" if observed > allowed else ""


def constraint_errors(item: LimitRangeItem, kind: str, requests: Mapping[str, Quantity],
                      limits: Mapping[str, Quantity]) -> list[str]:
    """The messages of one item's ``min``, ``max`` and ``maxLimitRequestRatio`` against these
    requests and limits (``kind``: ``Container`` or ``Pod``, as the messages say)."""
    out: list[str] = []
    for check, bounds in ((_min, item.min), (_max, item.max), (_ratio, item.max_limit_request_ratio)):
        for name in sorted(bounds or {}):
            msg = check(kind, name, (bounds or {})[name], requests.get(name), limits.get(name))
            if msg:
                out.append(msg)
    return out


def pod_errors(lr: LimitRange, pod: Pod) -> list[str]:
    """``PodValidateLimitFunc`` for one LimitRange, item by item: a ``Container`` item bounds each
    container and init container, a ``Pod`` item the pod's totals."""
    out: list[str] = []
    for item in lr.spec.limits if lr.spec else ():
        if item.type == "Container":
            for c in [*pod.spec.containers, *(pod.spec.init_containers or ())]:
                res = c.resources
                out += constraint_errors(item, "Container", (res.requests if res else None) or {},
                                         (res.limits if res else None) or {})
        elif item.type == "Pod":
            out += constraint_errors(item, "Pod", pod_totals(pod, False, overhead=False),
                                     pod_totals(pod, True, overhead=False))
    return out
