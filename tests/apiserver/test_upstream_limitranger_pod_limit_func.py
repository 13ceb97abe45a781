"""Upstream's LimitRanger table ``TestPodLimitFunc``, through kbatch's mutate and validate functions.

Source: kubernetes/kubernetes ``plugin/pkg/admission/limitranger/admission_test.go``
``TestPodLimitFunc`` (the stored copy has restartable init containers, 1.28+). Upstream runs
``PodMutateLimitFunc`` then ``PodValidateLimitFunc`` on a LimitRange built in memory (not defaulted);
kbatch's ``apply_defaults`` and ``pod_errors`` are the same seam. Through an API server the
LimitRange is defaulted first (``SetDefaults_LimitRangeItem``: ``defaultRequest`` from ``min``,
``default`` from ``max``), so the ``*-no-request-limit`` error rows of a ``Container`` item pass
there; ``test_through_the_api_defaults_fill_the_missing_request`` shows one. The ephemeral-storage
rows are the cpu/memory rows again with another resource name; a sample of them is kept.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import LimitRange, Pod
from kbatch.api.errors import Forbidden
from kbatch.api.limit_ranges import apply_defaults, pod_errors
from kbatch.runtime.controlplane import ControlPlane


def rl(cpu: str = "", memory: str = "", storage: str = "") -> dict[str, str]:
    """upstream ``getComputeResourceList`` / ``getLocalStorageResourceList``."""
    out = {"cpu": cpu, "memory": memory, "ephemeral-storage": storage}
    return {k: v for k, v in out.items() if v}


def make_pod(name: str, n: int, req: dict[str, str], lim: dict[str, str],
             inits: tuple[tuple[dict[str, str], dict[str, str]], ...] = (), sidecar: Any = None) -> Pod:
    """upstream ``validPod`` (n containers with these resources) and ``validPodInit``."""
    res = {"requests": req, "limits": lim}
    spec: dict[str, Any] = {"containers": [{"name": f"foo-{i}", "image": "foo", "resources": res}
                                           for i in range(n)]}
    init = [{"name": f"init-{i}", "image": "foo", "resources": {"requests": r, "limits": li}}
            for i, (r, li) in enumerate(inits)]
    if sidecar is not None:
        init.append({"name": "side", "image": "foo", "restartPolicy": "Always",
                     "resources": {"requests": sidecar, "limits": {}}})
    if init:
        spec["initContainers"] = init
    return Pod.model_validate({"metadata": {"name": name, "namespace": "test"}, "spec": spec})


def make_range(kind: str, min_: dict[str, str], max_: dict[str, str], ratio: dict[str, str]) -> LimitRange:
    """upstream ``createLimitRange`` (min, max, default, defaultRequest, ratio), without defaulting."""
    item = {"type": kind, "min": min_, "max": max_, "maxLimitRequestRatio": ratio}
    return LimitRange.model_validate({"metadata": {"name": "abc", "namespace": "test"},
                                      "spec": {"limits": [item]}})


C, P = "Container", "Pod"
E: dict[str, str] = {}
# name: (containers, requests, limits, item type, min, max, ratio, init containers)
SUCCESS: dict[str, tuple[Any, ...]] = {
    "ctr-min-cpu-request": (1, rl("100m"), E, C, rl("50m"), E, E),
    "ctr-min-cpu-request-limit": (1, rl("100m"), rl("200m"), C, rl("50m"), E, E),
    "ctr-min-memory-request": (1, rl("", "60Mi"), E, C, rl("", "50Mi"), E, E),
    "ctr-min-memory-request-limit": (1, rl("", "60Mi"), rl("", "100Mi"), C, rl("", "50Mi"), E, E),
    "ctr-max-cpu-request-limit": (1, rl("500m"), rl("1"), C, E, rl("2"), E),
    "ctr-max-cpu-limit": (1, E, rl("1"), C, E, rl("2"), E),
    "ctr-max-mem-request-limit": (1, rl("", "250Mi"), rl("", "500Mi"), C, E, rl("", "1Gi"), E),
    "ctr-max-cpu-ratio": (1, rl("500m"), rl("750m"), C, E, E, rl("1.5")),
    "ctr-max-mem-limit": (1, E, rl("", "500Mi"), C, E, rl("", "1Gi"), E),
    "pod-min-cpu-request": (2, rl("75m"), E, P, rl("100m"), E, E),
    "pod-min-cpu-request-limit": (2, rl("75m"), rl("200m"), P, rl("100m"), E, E),
    "pod-min-memory-request": (2, rl("", "60Mi"), E, P, rl("", "100Mi"), E, E),
    "pod-min-memory-request-limit": (2, rl("", "60Mi"), rl("", "100Mi"), P, rl("", "100Mi"), E, E),
    "pod-init-min-memory-request": (2, rl("", "60Mi"), E, P, rl("", "100Mi"), E, E,
                                    ((rl("", "100Mi"), E),)),
    "pod-init-min-memory-request-limit": (2, rl("", "60Mi"), rl("", "100Mi"), P, rl("", "100Mi"), E, E,
                                          ((rl("", "80Mi"), rl("", "100Mi")),)),
    "pod-max-cpu-request-limit": (2, rl("500m"), rl("1"), P, E, rl("2"), E),
    "pod-max-cpu-limit": (2, E, rl("1"), P, E, rl("2"), E),
    "pod-init-max-cpu-request-limit": (2, rl("500m"), rl("1"), P, E, rl("2"), E,
                                       ((rl("1"), rl("2")), (rl("1"), rl("1")))),
    "pod-init-max-cpu-limit": (2, E, rl("1"), P, E, rl("2"), E, ((E, rl("2")), (E, rl("2")))),
    "pod-max-mem-request-limit": (2, rl("", "250Mi"), rl("", "500Mi"), P, E, rl("", "1Gi"), E),
    "pod-max-mem-limit": (2, E, rl("", "500Mi"), P, E, rl("", "1Gi"), E),
    "pod-max-mem-ratio": (3, rl("", "300Mi"), rl("", "450Mi"), P, E, rl("", "2Gi"), rl("", "1.5")),
    "ctr-1-min-local-ephemeral-storage-request": (1, rl(storage="60Mi"), E, C, rl(storage="50Mi"), E, E),
    "pod-max-local-ephemeral-storage-ratio": (3, rl(storage="300Mi"), rl(storage="450Mi"), P, E,
                                              rl(storage="2Gi"), rl(storage="1.5")),
}
ERRORS: dict[str, tuple[Any, ...]] = {
    "ctr-min-cpu-request": (1, rl("40m"), E, C, rl("50m"), E, E),
    "ctr-min-cpu-request-limit": (1, rl("40m"), rl("200m"), C, rl("50m"), E, E),
    "ctr-min-cpu-no-request-limit": (1, E, E, C, rl("50m"), E, E),
    "ctr-min-memory-request": (1, rl("", "40Mi"), E, C, rl("", "50Mi"), E, E),
    "ctr-min-memory-request-limit": (1, rl("", "40Mi"), rl("", "100Mi"), C, rl("", "50Mi"), E, E),
    "ctr-min-memory-no-request-limit": (1, E, E, C, rl("", "50Mi"), E, E),
    "ctr-max-cpu-request-limit": (1, rl("500m"), rl("2500m"), C, E, rl("2"), E),
    "ctr-max-cpu-limit": (1, E, rl("2500m"), C, E, rl("2"), E),
    "ctr-max-cpu-no-request-limit": (1, E, E, C, E, rl("2"), E),
    "ctr-max-cpu-ratio": (1, rl("1250m"), rl("2500m"), C, E, E, rl("1")),
    "ctr-max-mem-request-limit": (1, rl("", "250Mi"), rl("", "2Gi"), C, E, rl("", "1Gi"), E),
    "ctr-max-mem-limit": (1, E, rl("", "2Gi"), C, E, rl("", "1Gi"), E),
    "ctr-max-mem-no-request-limit": (1, E, E, C, E, rl("", "1Gi"), E),
    "pod-min-cpu-request": (1, rl("75m"), E, P, rl("100m"), E, E),
    "pod-min-cpu-request-limit": (1, rl("75m"), rl("200m"), P, rl("100m"), E, E),
    "pod-min-memory-request": (1, rl("", "60Mi"), E, P, rl("", "100Mi"), E, E),
    "pod-min-memory-request-limit": (1, rl("", "60Mi"), rl("", "100Mi"), P, rl("", "100Mi"), E, E),
    "pod-max-cpu-request-limit": (3, rl("500m"), rl("1"), P, E, rl("2"), E),
    "pod-max-cpu-limit": (3, E, rl("1"), P, E, rl("2"), E),
    "pod-max-mem-request-limit": (3, rl("", "250Mi"), rl("", "500Mi"), P, E, rl("", "1Gi"), E),
    "pod-max-mem-limit": (3, E, rl("", "500Mi"), P, E, rl("", "1Gi"), E),
    "pod-init-max-mem-limit": (1, E, rl("", "500Mi"), P, E, rl("", "1Gi"), E, ((E, rl("", "1.5Gi")),)),
    "pod-max-mem-ratio": (3, rl("", "250Mi"), rl("", "500Mi"), P, E, rl("", "2Gi"), rl("", "1.5")),
    "ctr-1-min-local-ephemeral-storage-no-request-limit": (1, E, E, C, rl(storage="50Mi"), E, E),
    "pod-max-local-ephemeral-storage-limit": (3, E, rl(storage="500Mi"), P, E, rl(storage="1Gi"), E),
}


def _case(name: str, row: tuple[Any, ...]) -> tuple[Pod, LimitRange]:
    n, req, lim, kind, min_, max_, ratio, *rest = row
    return make_pod(name, n, req, lim, rest[0] if rest else ()), make_range(kind, min_, max_, ratio)


@pytest.mark.parametrize("name", SUCCESS)
def test_success_cases(name: str) -> None:
    pod, lr = _case(name, SUCCESS[name])
    apply_defaults(pod, [lr])
    assert pod_errors(lr, pod) == []


@pytest.mark.parametrize("name", ERRORS)
def test_error_cases(name: str) -> None:
    pod, lr = _case(name, ERRORS[name])
    apply_defaults(pod, [lr])
    assert pod_errors(lr, pod)


def test_restartable_init_container_counts_with_the_containers() -> None:
    """``ctr-max-cpu-limit-restartable-init-container``: a sidecar's 1500m request plus the
    container's 1 (limit 1500m) passes a Pod max of 2 only if the sidecar is not counted; it is."""
    pod = make_pod("ctr-max-cpu-limit-restartable-init-container", 1, rl("1000m"), rl("1500m"),
                   sidecar=rl("1500m"))
    lr = make_range(P, E, rl("2"), E)
    apply_defaults(pod, [lr])
    assert pod_errors(lr, pod)


def test_through_the_api_defaults_fill_the_missing_request() -> None:
    """``ctr-min-cpu-no-request-limit`` through an API server: the LimitRange's defaulting gives the
    Container item ``defaultRequest: {cpu: 50m}`` (from ``min``), LimitRanger sets it, the pod passes."""
    cp = ControlPlane(seed=0, controllers="")
    cp.client.create(LimitRange.model_validate({"metadata": {"name": "abc", "namespace": "default"},
                                                "spec": {"limits": [{"type": C, "min": rl("50m")}]}}))
    created = cp.client.create(Pod.model_validate({"metadata": {"name": "p", "namespace": "default"},
                                                   "spec": {"containers": [{"name": "c", "image": "foo"}]}}))
    assert str(created.spec.containers[0].resources.requests["cpu"]) == "50m"  # type: ignore[union-attr,index]
    with pytest.raises(Forbidden):
        cp.client.create(Pod.model_validate({"metadata": {"name": "q", "namespace": "default"}, "spec": {
            "containers": [{"name": "c", "image": "foo", "resources": {"requests": rl("40m")}}]}}))
