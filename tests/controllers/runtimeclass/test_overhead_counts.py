"""A RuntimeClass's overhead, set on its pods by admission, counts where upstream counts it.

* kube-scheduler NodeResourcesFit (``pkg/scheduler/framework/plugins/noderesources/fit.go``
  ``computePodResourceRequest``: the pod's requests plus ``spec.overhead``): a pod that fits a node
  without the overhead stays Pending with it, with upstream's ``Insufficient cpu`` message;
* ResourceQuota (``pkg/quota/v1/evaluator/core/pods.go`` ``PodUsageFunc`` through
  ``resourcehelper.PodRequests``, overhead included): usage and admission refusals;
* ``kubectl describe node``'s "Allocated resources" (kubectl ``describe.go`` ``getPodsTotalRequestsAndLimits``
  with ``resourcehelper.PodRequests``, overhead included).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import LimitRange, Pod, ResourceQuota
from kbatch.api.errors import Forbidden
from kbatch.api.node_v1 import RuntimeClass
from kbatch.sim import NodeTemplate, create_nodes

KATA = RuntimeClass.model_validate({"metadata": {"name": "kata"}, "handler": "kata",
                                    "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}}})


def pod(name: str, cpu: str, runtime_class: str | None = "kata") -> Pod:
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
        "runtimeClassName": runtime_class,
        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                        "resources": {"requests": {"cpu": cpu}, "limits": {"cpu": cpu}}}]}})


def scheduled_condition(cp: ControlPlane, name: str) -> Any:
    got = cp.client.get(Pod, name, "default")
    return got.status.condition("PodScheduled") if got.status else None


def test_a_pod_that_fits_only_without_its_overhead_stays_pending() -> None:
    cp = ControlPlane(seed=0, controllers="scheduler,kubelet")
    create_nodes(cp, 1, NodeTemplate(cpu="1"))
    cp.client.create(KATA)
    cp.client.create(pod("plain", "900m", runtime_class=None))  # 900m of 1: fits
    cp.run_until_idle()
    assert cp.client.get(Pod, "plain", "default").spec.node_name == "node-0"
    cp.client.delete(Pod, "plain", "default", grace_period_seconds=0)
    cp.client.create(pod("sandboxed", "900m"))  # 900m + 250m overhead: does not
    cp.advance(1)
    got = cp.client.get(Pod, "sandboxed", "default")
    assert got.spec.node_name is None
    cond = scheduled_condition(cp, "sandboxed")
    assert cond.reason == "Unschedulable"
    assert cond.message.startswith("0/1 nodes are available: 1 Insufficient cpu.")
    cp.client.create(pod("small", "700m"))  # 700m + 250m: fits
    cp.advance(1)
    assert cp.client.get(Pod, "small", "default").spec.node_name == "node-0"


def test_quota_usage_and_refusals_count_the_overhead() -> None:
    cp = ControlPlane(seed=0, controllers="resourcequota")
    cp.client.create(KATA)
    cp.client.create(ResourceQuota.model_validate({"metadata": {"name": "q", "namespace": "default"},
                                                   "spec": {"hard": {"requests.cpu": "1",
                                                                     "limits.cpu": "1"}}}))
    cp.run_until_idle()
    cp.client.create(pod("a", "500m"))
    cp.run_until_idle()
    used = cp.client.get(ResourceQuota, "q", "default").status.used  # type: ignore[union-attr]
    assert {k: str(v) for k, v in (used or {}).items()} == {"requests.cpu": "750m", "limits.cpu": "750m"}
    with pytest.raises(Forbidden) as err:  # 750m + 250m + 250m > 1
        cp.client.create(pod("b", "250m"))
    assert err.value.status.message == (
        'pods "b" is forbidden: exceeded quota: q, requested: limits.cpu=500m,requests.cpu=500m, '
        "used: limits.cpu=750m,requests.cpu=750m, limited: limits.cpu=1,requests.cpu=1")


def test_a_pod_limit_range_bounds_the_containers_without_the_overhead() -> None:
    """The LimitRanger's ``podRequests`` / ``podLimits`` (limitranger/admission.go) sum the containers
    only: a ``Pod`` max of 1 CPU admits 900m of containers plus 250m of overhead."""
    cp = ControlPlane(seed=0, controllers="")
    cp.client.create(KATA)
    cp.client.create(LimitRange.model_validate({"metadata": {"name": "l", "namespace": "default"},
                                                "spec": {"limits": [{"type": "Pod", "max": {"cpu": "1"}}]}}))
    created = cp.client.create(pod("a", "900m"))
    assert {k: str(v) for k, v in (created.spec.overhead or {}).items()} == {"cpu": "250m", "memory": "120Mi"}
    with pytest.raises(Forbidden) as err:
        cp.client.create(pod("b", "1100m"))
    assert err.value.status.message == ('pods "b" is forbidden: maximum cpu usage per Pod is 1, but limit '
                                        "is 1100m")
