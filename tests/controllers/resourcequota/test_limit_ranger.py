"""LimitRanger on one control plane: defaults, the annotation, min/max/ratio refusals with upstream's
messages (plugin/pkg/admission/limitranger/admission.go and its admission_test.go cases
``TestPodLimitFunc``: "minimum cpu usage per Container is 1, but request is 500m" style texts), and
LimitRange defaulting (pkg/apis/core/v1/defaults.go ``SetDefaults_LimitRangeItem``)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import LimitRange, Pod, ResourceQuota
from kbatch.api.errors import Forbidden
from kbatch.runtime.controlplane import ControlPlane


def limits(*items: dict[str, Any], name: str = "lr") -> LimitRange:
    return LimitRange.model_validate({"metadata": {"name": name, "namespace": "default"},
                                      "spec": {"limits": list(items)}})


def pod(name: str = "p", resources: dict[str, Any] | None = None, init: bool = False) -> Pod:
    c = {"name": "c", "image": "busybox", "resources": resources or {}}
    spec: dict[str, Any] = {"containers": [c]}
    if init:
        spec["initContainers"] = [{"name": "i", "image": "busybox"}]
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": spec})


def refused(cp: ControlPlane, obj: Pod) -> str:
    with pytest.raises(Forbidden) as err:
        cp.client.create(obj)
    return err.value.status.message


def plain(q: dict[str, Any] | None) -> dict[str, str]:
    return {k: str(v) for k, v in (q or {}).items()}


def test_limit_range_defaulting_fills_default_and_default_request() -> None:
    cp = ControlPlane(seed=0, controllers="")
    lr = cp.client.create(limits({"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "64Mi"}}))
    item = lr.spec.limits[0]  # type: ignore[union-attr]
    assert plain(item.default) == {"cpu": "2"}
    assert plain(item.default_request) == {"cpu": "2", "memory": "64Mi"}


def test_container_defaults_and_the_annotation() -> None:
    cp = ControlPlane(seed=0, controllers="")
    cp.client.create(limits({"type": "Container", "default": {"cpu": "1", "memory": "512Mi"},
                             "defaultRequest": {"cpu": "500m", "memory": "256Mi"}}))
    created = cp.client.create(pod("p", {"requests": {"cpu": "100m"}}, init=True))
    c, i = created.spec.containers[0], created.spec.init_containers[0]  # type: ignore[index]
    assert plain(c.resources.requests) == {"cpu": "100m", "memory": "256Mi"}  # type: ignore[union-attr]
    assert plain(c.resources.limits) == {"cpu": "1", "memory": "512Mi"}  # type: ignore[union-attr]
    assert plain(i.resources.requests) == {"cpu": "500m", "memory": "256Mi"}  # type: ignore[union-attr]
    assert created.metadata.annotations["kubernetes.io/limit-ranger"] == (  # type: ignore[index]
        "LimitRanger plugin set: memory request for container c; cpu, memory limit for container c; "
        "cpu, memory request for init container i; cpu, memory limit for init container i")


def test_min_max_and_ratio_refusals() -> None:
    cp = ControlPlane(seed=0, controllers="")
    cp.client.create(limits({"type": "Container", "min": {"cpu": "1"}, "max": {"memory": "1Gi"},
                             "maxLimitRequestRatio": {"cpu": "2"}}))
    # the LimitRange's defaulting made default memory 1Gi (from max) and default cpu request 1 (min)
    assert refused(cp, pod("low", {"requests": {"cpu": "500m"}, "limits": {"cpu": "500m"}})) == (
        'pods "low" is forbidden: minimum cpu usage per Container is 1, but request is 500m')
    assert refused(cp, pod("big", {"requests": {"cpu": "1"}, "limits": {"cpu": "4", "memory": "2Gi"}})) == (
        'pods "big" is forbidden: [maximum memory usage per Container is 1Gi, but limit is 2Gi, '
        'cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000]')
    cp.client.create(pod("ok", {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}))


def test_pod_item_bounds_the_totals() -> None:
    cp = ControlPlane(seed=0, controllers="")
    cp.client.create(limits({"type": "Pod", "max": {"cpu": "1"}}))
    assert refused(cp, pod("p", {"requests": {"cpu": "1"}})) == (
        'pods "p" is forbidden: maximum cpu usage per Pod is 1.  No limit is specified')


def test_limit_ranger_defaults_satisfy_a_quota_that_requires_requests() -> None:
    """The usual pairing: the quota's ``must specify`` is met by the LimitRange's defaults."""
    cp = ControlPlane(seed=0, controllers="resourcequota")
    cp.client.create(limits({"type": "Container", "defaultRequest": {"cpu": "250m"}}))
    cp.client.create(ResourceQuota.model_validate({"metadata": {"name": "q", "namespace": "default"},
                                                   "spec": {"hard": {"requests.cpu": "1"}}}))
    cp.run_until_idle()
    cp.client.create(pod("p"))
    rq = cp.client.get(ResourceQuota, "q", "default")
    assert plain(rq.status.used) == {"requests.cpu": "250m"}  # type: ignore[union-attr]
