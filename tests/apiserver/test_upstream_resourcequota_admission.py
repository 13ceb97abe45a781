"""Upstream's ResourceQuota admission cases, through kbatch's API server with no controller (the
quota's status written as upstream's tests give it).

Source: kubernetes/kubernetes ``plugin/pkg/admission/resourcequota/admission_test.go``:
``TestAdmitBelowQuotaLimit``, ``TestAdmitExceedQuotaLimit``, ``TestAdmitEnforceQuotaConstraints``,
``TestAdmitPodInNamespaceWithoutQuota``, ``TestAdmitBelowTerminatingQuotaLimit``,
``TestAdmitBelowBestEffortQuotaLimit``, ``TestAdmitBestEffortQuotaLimitIgnoresBurstable``,
``TestAdmitWhenUnrelatedResourceExceedsQuota``, ``TestAdmitBelowQuotaLimitWithScopeSelector``
(the cases as read; each asserts what the upstream test asserts: admitted or not, and the usage
the quota is updated to). Not translated: the cases on services, secrets, replication controllers
and persistent volume claims' storage (kbatch has no such evaluators, docs/quota.md), the
``LimitedResources`` configuration cases, and the cache/lister race cases.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import Pod, ResourceQuota, ResourceQuotaStatus
from kbatch.api.errors import Forbidden
from kbatch.api.frozen import edit
from kbatch.api.quantity import Quantity
from kbatch.runtime.controlplane import ControlPlane


def _quota(cp: ControlPlane, name: str, hard: dict[str, str], used: dict[str, str], **spec: Any) -> None:
    cp.client.create(ResourceQuota.model_validate({"metadata": {"name": name, "namespace": "test"},
                                                   "spec": {"hard": hard, **spec}}))
    rq = edit(cp.client.get(ResourceQuota, name, "test"))
    rq.status = ResourceQuotaStatus(hard={k: Quantity(v) for k, v in hard.items()},
                                    used={k: Quantity(v) for k, v in used.items()})
    cp.client.update_status(rq)


def _cp() -> ControlPlane:
    # upstream's table runs the quota plugin alone; the ServiceAccount plugin would refuse pods in
    # "test", a namespace no serviceaccount controller has visited here
    cp = ControlPlane(seed=0, controllers="", disable_admission_plugins=("ServiceAccount",))
    cp.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "test"}})
    return cp


def _pod(name: str, requests: dict[str, str], limits: dict[str, str] | None = None, **spec: Any) -> Pod:
    """upstream ``validPod(name, 1, getResourceRequirements(requests, limits))``."""
    res = {"requests": requests, "limits": limits or {}}
    return Pod.model_validate({"metadata": {"name": name, "namespace": "test"}, "spec": {
        "containers": [{"name": "ctr", "image": "image", "resources": res}], **spec}})


def _used(cp: ControlPlane, name: str = "quota") -> dict[str, str]:
    st = cp.client.get(ResourceQuota, name, "test").status
    return {k: str(v) for k, v in (st.used or {}).items()} if st else {}


HARD = {"cpu": "3", "memory": "100Gi", "pods": "5"}
USED = {"cpu": "1", "memory": "50Gi", "pods": "3"}


def test_admit_below_quota_limit() -> None:
    cp = _cp()
    _quota(cp, "quota", HARD, USED)
    cp.client.create(_pod("allowed-pod", {"cpu": "100m", "memory": "2Gi"}))
    assert _used(cp) == {"cpu": "1100m", "memory": "52Gi", "pods": "4"}


def test_admit_exceed_quota_limit() -> None:
    cp = _cp()
    _quota(cp, "quota", HARD, USED)
    with pytest.raises(Forbidden):
        cp.client.create(_pod("not-allowed-pod", {"cpu": "3", "memory": "2Gi"}))
    assert _used(cp) == {"cpu": "1", "memory": "50Gi", "pods": "3"}


def test_admit_enforce_quota_constraints() -> None:
    """A quota on cpu/memory limits: a pod without them is refused."""
    cp = _cp()
    _quota(cp, "quota", {"cpu": "3", "memory": "100Gi", "limits.memory": "200Gi", "pods": "5"},
           {"cpu": "1", "memory": "50Gi", "limits.memory": "100Gi", "pods": "3"})
    with pytest.raises(Forbidden) as err:
        cp.client.create(_pod("not-allowed-pod", {"cpu": "100m"}, {"cpu": "200m"}))
    assert "must specify limits.memory for: ctr; memory for: ctr" in err.value.status.message


def test_admit_pod_in_namespace_without_quota() -> None:
    cp = _cp()
    cp.client.create(_pod("allowed-pod", {"cpu": "100m", "memory": "2Gi"}))


def test_admit_below_terminating_quota_limit() -> None:
    cp = _cp()
    _quota(cp, "quota-non-terminating", {"cpu": "3", "memory": "100Gi", "pods": "5"},
           {"cpu": "1", "memory": "50Gi", "pods": "3"}, scopes=["NotTerminating"])
    _quota(cp, "quota-terminating", {"cpu": "3", "memory": "100Gi", "pods": "4"},
           {"cpu": "1", "memory": "50Gi", "pods": "3"}, scopes=["Terminating"])
    cp.client.create(_pod("allowed-pod", {"cpu": "100m", "memory": "2Gi"}, activeDeadlineSeconds=60))
    assert _used(cp, "quota-terminating") == {"cpu": "1100m", "memory": "52Gi", "pods": "4"}
    assert _used(cp, "quota-non-terminating") == {"cpu": "1", "memory": "50Gi", "pods": "3"}


def test_admit_below_best_effort_quota_limit() -> None:
    cp = _cp()
    _quota(cp, "quota-besteffort", {"pods": "5"}, {"pods": "3"}, scopes=["BestEffort"])
    _quota(cp, "quota-not-besteffort", {"pods": "5"}, {"pods": "3"}, scopes=["NotBestEffort"])
    cp.client.create(_pod("allowed-pod", {}))
    assert _used(cp, "quota-besteffort") == {"pods": "4"}
    assert _used(cp, "quota-not-besteffort") == {"pods": "3"}


def test_admit_best_effort_quota_limit_ignores_burstable() -> None:
    cp = _cp()
    _quota(cp, "quota-besteffort", {"pods": "5"}, {"pods": "3"}, scopes=["BestEffort"])
    cp.client.create(_pod("allowed-pod", {"cpu": "1"}))
    assert _used(cp, "quota-besteffort") == {"pods": "3"}


def test_admit_when_unrelated_resource_exceeds_quota() -> None:
    cp = _cp()
    _quota(cp, "quota", {"services": "3", "pods": "4"}, {"services": "4", "pods": "1"})
    cp.client.create(_pod("allowed-pod", {}))
    assert _used(cp) == {"services": "4", "pods": "2"}


def test_admit_below_quota_limit_with_scope_selector() -> None:
    """A ``PriorityClass In [cluster-services]`` quota does not cover a pod of another class."""
    cp = _cp()
    for name in ("cluster-services", "other"):
        cp.apply({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                  "value": 1000})
    selector = {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In",
                                      "values": ["cluster-services"]}]}
    _quota(cp, "quota", {"pods": "1"}, {"pods": "1"}, scopeSelector=selector)
    cp.client.create(_pod("other-pod", {}, priorityClassName="other"))
    with pytest.raises(Forbidden):
        cp.client.create(_pod("critical-pod", {}, priorityClassName="cluster-services"))
