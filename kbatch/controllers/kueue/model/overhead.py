"""A Workload's pod sets with their RuntimeClass's overhead, as Kueue counts them.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/workload/resources.go`` ``handlePodOverhead`` (the first
step of ``AdjustResources``): a pod set whose template names a ``runtimeClassName`` and states no
``overhead`` gets the class's ``overhead.podFixed``, so its requests (``PodRequests``, overhead
included) are what its pods will ask of the nodes once the RuntimeClass admission plugin has set the
overhead on them. A class that cannot be read is logged and skipped upstream (the pod set then counts
without overhead); a template that states an overhead keeps it (the admission plugin would refuse a
wrong one, Kueue does not check).
"""

from __future__ import annotations

from collections.abc import Callable

from kbatch.api.kueue_v1beta2 import PodSet, Workload
from kbatch.api.node_v1 import RuntimeClass

__all__ = ["with_pod_overhead"]


def _pod_sets(wl: Workload) -> list[PodSet]:
    return (wl.spec.pod_sets if wl.spec is not None else None) or []


def with_pod_overhead(wl: Workload, runtime_class: Callable[[str], RuntimeClass | None]) -> Workload:
    """``wl`` with each pod set's overhead from its class (``runtime_class`` looks a class up by
    name, ``None`` when absent); ``wl`` itself when nothing changes. Only a pod set that names a class
    and states no overhead is looked at."""
    fixed: dict[int, dict[str, str]] = {}
    for i, ps in enumerate(_pod_sets(wl)):
        spec = ps.template.spec if ps.template is not None else None
        if spec is None or spec.runtime_class_name is None or spec.overhead:
            continue
        rc = runtime_class(spec.runtime_class_name)
        if rc is not None and rc.overhead is not None and rc.overhead.pod_fixed:
            fixed[i] = {k: str(v) for k, v in rc.overhead.pod_fixed.items()}
    if not fixed:
        return wl
    body = wl.to_dict()
    for i, overhead in fixed.items():
        body["spec"]["podSets"][i]["template"]["spec"]["overhead"] = overhead
    return Workload.model_validate(body)
