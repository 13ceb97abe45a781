"""Resource amounts as the scheduler computes with them: plain ``dict[str, int]`` in canonical units.

``cpu`` is in millicores; every other resource (memory, ephemeral-storage, pods, extended
resources such as ``nvidia.com/gpu``) in whole base units, rounded up. Integers keep the
arithmetic exact and fast (upstream ``framework.Resource`` does the same with int64 fields).

:func:`effective_requests` is the upstream "max rule" for init containers, including restartable
(sidecar) init containers: kubernetes/kubernetes
``staging/src/k8s.io/component-helpers/resource/helpers.go`` ``AggregateContainerRequests``.
:func:`pod_requests` is the rest of that file's ``PodRequests``: pod-level resources (KEP-2837,
PodLevelResources, beta and on by default since 1.34) replace the containers' total for each
resource they request that is supported at pod level (cpu, memory, ``hugepages-*``; others, such
as ``nvidia.com/gpu``, still come from the containers), then pod overhead is added on top.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kbatch.api.validation import is_supported_pod_level_resource

__all__ = [
    "CPU",
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "MEMORY",
    "PODS",
    "ContainerRequests",
    "Resources",
    "add_into",
    "effective_requests",
    "fits",
    "pod_requests",
    "subtract_into",
]

Resources = dict[str, int]

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"

# Used only for scoring when a container requests nothing (upstream pkg/scheduler/util
# GetNonzeroRequests: DefaultMilliCPURequest = 100, DefaultMemoryRequest = 200 MiB).
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ContainerRequests:
    """One container's requests; ``restartable`` marks a sidecar (init container, restartPolicy Always)."""

    requests: Mapping[str, int]
    restartable: bool = False


def add_into(target: Resources, amounts: Mapping[str, int], sign: int = 1) -> None:
    for name, value in amounts.items():
        target[name] = target.get(name, 0) + sign * value


def subtract_into(target: Resources, amounts: Mapping[str, int]) -> None:
    add_into(target, amounts, -1)


def _max_into(target: Resources, amounts: Mapping[str, int]) -> None:
    for name, value in amounts.items():
        if value > target.get(name, 0):
            target[name] = value


def effective_requests(
    containers: Iterable[Mapping[str, int]],
    init_containers: Iterable[ContainerRequests] = (),
    nonzero: bool = False,
) -> Resources:
    """What a pod requests: the sum of its containers (sidecars included), or more if an init
    container needs more while it runs (it runs next to the sidecars started before it).

    ``nonzero`` substitutes the scoring defaults for unset cpu/memory, per container.
    """
    total: Resources = {}
    for requests in containers:
        add_into(total, _nz(requests) if nonzero else requests)
    sidecars: Resources = {}
    init_peak: Resources = {}
    for init in init_containers:
        requests = _nz(init.requests) if nonzero else init.requests
        if init.restartable:
            add_into(total, requests)
            add_into(sidecars, requests)
            running = dict(sidecars)
        else:
            running = dict(sidecars)
            add_into(running, requests)
        _max_into(init_peak, running)
    _max_into(total, init_peak)
    return {k: v for k, v in total.items() if v}


def pod_requests(
    containers: Iterable[Mapping[str, int]],
    init_containers: Iterable[ContainerRequests] = (),
    pod_level: Mapping[str, int] | None = None,
    overhead: Mapping[str, int] | None = None,
    nonzero: bool = False,
) -> Resources:
    """``PodRequests``: :func:`effective_requests`, each supported resource of the pod-level
    requests (``spec.resources.requests``) replacing the containers' amount, plus ``overhead``.

    With ``nonzero`` the scoring defaults stand in for containers' missing cpu/memory first, as
    upstream's ``NonMissingContainerRequests``; a pod-level value still replaces the result."""
    total = effective_requests(containers, init_containers, nonzero)
    if not pod_level and not overhead:
        return total  # the usual pod: nothing to replace or add
    for name, value in (pod_level or {}).items():
        if is_supported_pod_level_resource(name):
            total[name] = value
    if overhead:
        add_into(total, overhead)
    return {k: v for k, v in total.items() if v}


def _nz(requests: Mapping[str, int]) -> Mapping[str, int]:
    """The scoring defaults for a container's missing cpu/memory request; one set explicitly, even to
    zero, is kept (component-helpers/resource ``applyNonMissing``, ``NonMissingContainerRequests``)."""
    if CPU in requests and MEMORY in requests:
        return requests
    out = dict(requests)
    out.setdefault(CPU, DEFAULT_MILLI_CPU_REQUEST)
    out.setdefault(MEMORY, DEFAULT_MEMORY_REQUEST)
    return out


def fits(requested: Mapping[str, int], allocatable: Mapping[str, int], pod: Mapping[str, int]) -> list[str]:
    """Names of the resources the pod does not fit on, sorted (empty when it fits)."""
    return sorted(
        name for name, want in pod.items()
        if want > 0 and requested.get(name, 0) + want > allocatable.get(name, 0)
    )
