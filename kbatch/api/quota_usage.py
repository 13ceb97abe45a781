"""What an object counts against a ResourceQuota, and whether a quota covers it: pure functions.

Upstream (semantics only): kubernetes ``pkg/quota/v1/evaluator/core/pods.go`` (``PodUsageFunc``,
``podComputeUsageHelper``, ``podMatchesScopeFunc``, ``Constraints``, ``QuotaV1Pod``),
``staging/src/k8s.io/apiserver/pkg/quota/v1/generic/evaluator.go`` (object counts
``count/<resource>.<group>``, which match no scope), ``pkg/quota/v1/evaluator/core/registry.go``
(the legacy names ``configmaps``, ``services``, ``persistentvolumeclaims``, ``resourcequotas``) and
``pkg/quota/v1/install/update_mode.go`` (kinds never charged, such as events). Shared by the
``ResourceQuota`` admission plugin and the ``resourcequota`` controller. docs/quota.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta

from kbatch.api.core_v1 import Container, Pod, ResourceQuota, ScopedResourceSelectorRequirement
from kbatch.api.meta import Resource
from kbatch.api.quantity import Quantity
from kbatch.api.strategies.core.pod import pod_qos_class
from kbatch.api.validation import is_extended_resource_name

__all__ = [
    "IGNORED",
    "count_name",
    "counts_for_quota",
    "covers",
    "group_resources",
    "matching_resources",
    "missing_requests",
    "pod_counts",
    "pod_totals",
    "scope_requirements",
    "selected",
    "usage",
]

Usage = dict[str, Quantity]
ONE = Quantity(1)
IGNORED = frozenset({"events", "events.events.k8s.io", "bindings", "componentstatuses"})
_LEGACY = frozenset({"configmaps", "services", "persistentvolumeclaims", "resourcequotas", "secrets",
                     "replicationcontrollers"})
_POD_NAMES = frozenset({"pods", "count/pods", "cpu", "memory", "ephemeral-storage", "requests.cpu",
                        "requests.memory", "requests.ephemeral-storage", "limits.cpu", "limits.memory",
                        "limits.ephemeral-storage"})
_VALIDATED = ("cpu", "limits.cpu", "limits.memory", "memory", "requests.cpu", "requests.memory")
_TERMINAL = ("Succeeded", "Failed")


def group_resources(names: Iterable[str]) -> list[str]:
    """The kinds (as ``group_resource``) whose evaluators account some of these quota names, sorted."""
    out = set()
    for name in names:
        if _pod_name(name):
            out.add("pods")
        elif name.startswith("count/"):
            out.add(name[len("count/"):])
        elif name in _LEGACY:
            out.add(name)
    return sorted(out)


def count_name(group_resource: str) -> str:
    """``count/jobs.batch``, ``count/pods``."""
    return f"count/{group_resource}"


def _pod_name(name: str) -> bool:
    if name in _POD_NAMES or name.startswith(("hugepages-", "requests.hugepages-")):
        return True
    return name.startswith("requests.") and is_extended_resource_name(name[len("requests."):])


def matching_resources(group_resource: str, names: Iterable[str]) -> list[str]:
    """The quota resource names, among ``names``, the kind's evaluator accounts (sorted)."""
    if group_resource == "pods":
        return sorted(n for n in names if _pod_name(n))
    own = {count_name(group_resource), group_resource if group_resource in _LEGACY else ""}
    return sorted(n for n in names if n in own)


def scope_requirements(rq: ResourceQuota) -> list[ScopedResourceSelectorRequirement]:
    """``GetScopeSelectorsFromQuota``: each scope as an ``Exists``, then the selector's expressions."""
    spec = rq.spec
    if spec is None:
        return []
    out = [ScopedResourceSelectorRequirement(scope_name=s, operator="Exists") for s in spec.scopes or ()]
    if spec.scope_selector is not None:
        out += spec.scope_selector.match_expressions or []
    return out


def _pod_matches(req: ScopedResourceSelectorRequirement, pod: Pod) -> bool:
    scope, spec = req.scope_name, pod.spec
    terminating = spec.active_deadline_seconds is not None and spec.active_deadline_seconds >= 0
    if scope in ("Terminating", "NotTerminating"):
        return terminating == (scope == "Terminating")
    if scope in ("BestEffort", "NotBestEffort"):
        return (pod_qos_class(spec) == "BestEffort") == (scope == "BestEffort")
    if scope == "PriorityClass":
        if req.operator == "Exists":
            return bool(spec.priority_class_name)
        # podMatchesSelector: the label set {PriorityClass: <the pod's class name>}, key always present
        if req.operator in ("In", "NotIn"):
            return ((spec.priority_class_name or "") in (req.values or [])) == (req.operator == "In")
        return req.operator == "Exists"
    if scope == "CrossNamespacePodAffinity":
        return _cross_namespace_affinity(pod)
    return False


def _cross_namespace_affinity(pod: Pod) -> bool:
    affinity = pod.spec.affinity
    terms: list = []  # type: ignore[type-arg]
    for part in (affinity.pod_affinity, affinity.pod_anti_affinity) if affinity else ():
        if part is not None:
            terms += part.required_during_scheduling_ignored_during_execution or []
            preferred = part.preferred_during_scheduling_ignored_during_execution or []
            terms += [w.pod_affinity_term for w in preferred]
    return any(t.namespaces or t.namespace_selector is not None for t in terms)


def covers(rq: ResourceQuota, group_resource: str, obj: Resource) -> bool:
    """``Matches``: the quota's ``status.hard`` names a resource the kind accounts, and every scope
    selects the object (object counts match no scope)."""
    hard = rq.status.hard if rq.status else None
    if not hard or not matching_resources(group_resource, hard):
        return False
    return selected(rq, obj)


def selected(rq: ResourceQuota, obj: Resource) -> bool:
    """Every scope of the quota selects ``obj`` (true without scopes; object counts match none)."""
    reqs = scope_requirements(rq)
    if not reqs:
        return True
    if not isinstance(obj, Pod):
        return False
    return all(_pod_matches(r, obj) for r in reqs)


def missing_requests(required: Iterable[str], pod: Pod) -> str:
    """``Constraints``: with cpu or memory quota'd, every container must state them; the
    ``must specify ...`` text, empty when nothing is missing."""
    wanted = set(required).intersection(_VALIDATED)
    if not wanted:
        return ""
    missing: dict[str, set[str]] = {}
    for c in [*pod.spec.containers, *(pod.spec.init_containers or ())]:
        have = set(_compute(_requests(c), _limits(c)))
        for name in wanted - have:
            missing.setdefault(name, set()).add(c.name)
    parts = [f"{name} for: {','.join(sorted(missing[name]))}" for name in sorted(missing)]
    return f"must specify {'; '.join(parts)}" if parts else ""


def _requests(c: Container) -> Mapping[str, Quantity]:
    return (c.resources.requests if c.resources else None) or {}


def _limits(c: Container) -> Mapping[str, Quantity]:
    return (c.resources.limits if c.resources else None) or {}


def _compute(requests: Mapping[str, Quantity], limits: Mapping[str, Quantity]) -> Usage:
    """``podComputeUsageHelper``."""
    out: Usage = {"pods": ONE}
    for name in ("cpu", "memory", "ephemeral-storage"):
        if name in requests:
            out[name] = out[f"requests.{name}"] = requests[name]
        if name in limits:
            out[f"limits.{name}"] = limits[name]
    for name, value in requests.items():
        if name.startswith("hugepages-"):
            out[name] = out[f"requests.{name}"] = value
        elif is_extended_resource_name(name):
            out[f"requests.{name}"] = value
    return out


def _add(into: Usage, amounts: Mapping[str, Quantity]) -> None:
    for name, value in amounts.items():
        into[name] = into[name].add(value) if name in into else value


def _max(into: Usage, amounts: Mapping[str, Quantity]) -> None:
    for name, value in amounts.items():
        if name not in into or value.cmp(into[name]) > 0:
            into[name] = value


def pod_totals(pod: Pod, limits: bool, *, overhead: bool = True) -> Usage:
    """``PodRequests`` / ``PodLimits``: containers and sidecars summed, the init containers' peak,
    pod-level resources replacing cpu/memory/hugepages, overhead on top (limits: where set).
    ``overhead=False``: without it, as the LimitRanger's own ``podRequests`` / ``podLimits``
    (``plugin/pkg/admission/limitranger/admission.go``) sum a pod.

    The scheduler's :func:`kbatch.api.pod_resources.pod_requests` is the same rule over ints; it stays
    separate because quota must keep exact ``Quantity`` values (``status.used`` keeps their format)
    and the scheduler's hot path must not pay for them. tests/api/test_pod_request_aggregations_agree.py
    holds the two to one answer."""
    get = _limits if limits else _requests
    total: Usage = {}
    for c in pod.spec.containers:
        _add(total, get(c))
    sidecars: Usage = {}
    peak: Usage = {}
    for c in pod.spec.init_containers or ():
        if c.restart_policy == "Always":
            _add(total, get(c))
            _add(sidecars, get(c))
            running = dict(sidecars)
        else:
            running = dict(sidecars)
            _add(running, get(c))
        _max(peak, running)
    _max(total, peak)
    level = pod.spec.resources
    stated = (level.limits if limits else level.requests) if level is not None else None
    for name, value in (stated or {}).items():
        if name in ("cpu", "memory") or name.startswith("hugepages-"):
            total[name] = value
    for name, value in ((pod.spec.overhead if overhead else None) or {}).items():
        if not limits or name in total:
            _add(total, {name: value})
    return total


def counts_for_quota(pod: Pod, now: datetime) -> bool:
    """``QuotaV1Pod``: not terminal, and not past its deletion grace period."""
    if pod.status is not None and pod.status.phase in _TERMINAL:
        return False
    meta = pod.metadata
    deleted, grace = meta.deletion_timestamp, meta.deletion_grace_period_seconds
    return deleted is None or grace is None or now < deleted + timedelta(seconds=grace)


def pod_counts(pod: Pod, now: datetime) -> Usage:
    """``PodUsageFunc``: ``count/pods`` always; compute resources and ``pods`` while it counts."""
    out: Usage = {"count/pods": ONE}
    if counts_for_quota(pod, now):
        _add(out, _compute(pod_totals(pod, False), pod_totals(pod, True)))
    return out


def usage(group_resource: str, obj: Resource, now: datetime) -> Usage:
    """What ``obj`` uses of every quota resource it is accounted in."""
    if isinstance(obj, Pod):
        return pod_counts(obj, now)
    out: Usage = {count_name(group_resource): ONE}
    if group_resource in _LEGACY:
        out[group_resource] = ONE
    return out
