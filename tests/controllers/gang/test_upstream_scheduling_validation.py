"""Upstream's scheduling.k8s.io Workload/PodGroup validation tables (Kubernetes 1.37-dev), through
kbatch's API server with ``GenericWorkload`` on.

Source: kubernetes/kubernetes ``pkg/apis/scheduling/validation/validation_test.go``, the stored
1.37-dev version (37,471 characters: v1beta1 ``workloadRef``, ``PodGroupInitiallyScheduled``,
CompositePodGroup templates), with ``validation.go`` and ``pkg/registry/scheduling/podgroup/strategy.go``
of the same era. In 1.37 the spec rules moved to declarative validation; this table keeps metadata,
update and status rules: ``TestValidateWorkload``, ``TestValidateWorkloadUpdate``,
``TestValidatePodGroup``, ``TestValidatePodGroupUpdate``, ``TestValidatePodGroupStatusUpdate``.
Upstream compares error types and fields (``ErrorMatcher{}.ByType().ByField()``); so do these tests,
from the API's ``Invalid`` causes.
"""

from __future__ import annotations

from typing import Any

import pytest

from gang.builders import NATIVE, gpu_cluster, invalid_causes
from kbatch.api.scheduling_v1beta1 import PodGroup, Workload
from kbatch.runtime.controlplane import ControlPlane


@pytest.fixture
def cp() -> ControlPlane:
    return gpu_cluster(0, gates=NATIVE, controllers="")


def _workload(name: str = "workload", constraints: bool = True) -> dict[str, Any]:
    """upstream ``mkWorkload``: a basic and a gang template, both with a topology constraint."""
    extra = {"schedulingConstraints": {"topology": [{"key": "foo"}]}} if constraints else {}
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": name},
            "spec": {"controllerRef": {"apiGroup": "group", "kind": "foo", "name": "baz"},
                     "podGroupTemplates": [
                         {"name": "group1", "schedulingPolicy": {"basic": {}}, **extra},
                         {"name": "group2", "schedulingPolicy": {"gang": {"minCount": 2}}, **extra}]}}


def _pod_group(name: str = "workload", constraints: bool = True) -> dict[str, Any]:
    """upstream ``mkPodGroup``: gang minCount 5, a workloadRef and a topology constraint."""
    spec: dict[str, Any] = {"workloadRef": {"workloadName": "w", "templateName": "t1"},
                            "schedulingPolicy": {"gang": {"minCount": 5}}}
    if constraints:
        spec["schedulingConstraints"] = {"topology": [{"key": "foo"}]}
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": name},
            "spec": spec}


_invalid = invalid_causes


# -- TestValidateWorkload / TestValidatePodGroup: success cases ---------------------------------------
@pytest.mark.parametrize(("name", "doc"), [
    ("basic and gang policies", _workload()),
    ("no controllerRef", {**_workload(), "spec": {k: v for k, v in _workload()["spec"].items()
                                                  if k != "controllerRef"}}),
    ("no scheduling constraints", _workload(constraints=False)),
])
def test_validate_workload_success(cp: ControlPlane, name: str, doc: dict[str, Any]) -> None:
    """(``schedulingConstraints`` belongs to TopologyAwareWorkloadScheduling, off: dropped, as upstream.)"""
    cp.apply(doc)
    assert cp.client.get(Workload, "workload", "default").spec.pod_group_templates is not None


@pytest.mark.parametrize(("name", "doc"), [
    ("gang policy", _pod_group()),
    ("no scheduling constraints", _pod_group(constraints=False)),
])
def test_validate_pod_group_success(cp: ControlPlane, name: str, doc: dict[str, Any]) -> None:
    cp.apply(doc)
    assert cp.client.get(PodGroup, "workload", "default").spec.workload_ref is not None


# -- metadata failure cases (both kinds) ------------------------------------------------------------
NAME_CASES = [
    ("no name", "", ("FieldValueRequired", "metadata.name")),
    ("invalid name", ".workload", ("FieldValueInvalid", "metadata.name")),
    ("too long name", "w" * 254, ("FieldValueInvalid", "metadata.name")),
]


@pytest.mark.parametrize(("kind", "make"), [("Workload", _workload), ("PodGroup", _pod_group)])
@pytest.mark.parametrize(("name", "value", "want"), NAME_CASES, ids=[c[0] for c in NAME_CASES])
def test_validate_name(cp: ControlPlane, kind: str, make: Any, name: str, value: str,
                       want: tuple[str, str]) -> None:
    assert _invalid(lambda: cp.apply(make(value))) == [want]


# -- TestValidateWorkloadUpdate / TestValidatePodGroupUpdate -----------------------------------------


def test_validate_workload_update_no_change(cp: ControlPlane) -> None:
    cp.apply(_workload())
    before = cp.client.get(Workload, "workload", "default").metadata.resource_version
    cp.apply(_workload())
    meta = cp.client.get(Workload, "workload", "default").metadata
    assert meta.resource_version == before  # the same object again is no write
    assert meta.generation is None  # upstream's workload strategy keeps no generation


def test_validate_pod_group_update_no_change_and_status_update(cp: ControlPlane) -> None:
    """"no change" and "status update" (the old object has a condition, the update none: a
    main-resource update keeps the stored status and is valid)."""
    cp.apply(_pod_group())
    cp.client.patch_status(PodGroup, "workload", {"status": {"conditions": [_condition()]}}, "default")
    cp.apply(_pod_group())
    assert [c.type for c in cp.client.get(PodGroup, "workload", "default").status.conditions] == \
        ["PodGroupInitiallyScheduled"]


# -- TestValidatePodGroupStatusUpdate ----------------------------------------------------------------


def _condition(**changes: Any) -> dict[str, Any]:
    cond = {"type": "PodGroupInitiallyScheduled", "status": "False", "reason": "Unschedulable",
            "message": "Test status condition message", "lastTransitionTime": "2025-01-01T00:00:00Z"}
    cond.update(changes)
    return {k: v for k, v in cond.items() if v is not None}


def _status_update(cp: ControlPlane, status: dict[str, Any]) -> PodGroup:
    return cp.client.patch_status(PodGroup, "workload", {"status": status}, "default")


def test_validate_pod_group_status_update_success(cp: ControlPlane) -> None:
    """"no change" and "status update" (a False/Unschedulable condition added)."""
    cp.apply(_pod_group())
    _status_update(cp, {})
    got = _status_update(cp, {"conditions": [_condition()]})
    assert [(c.type, c.status, c.reason) for c in got.status.conditions] == \
        [("PodGroupInitiallyScheduled", "False", "Unschedulable")]


STATUS_FAILURES = [
    ("two conditions with the same type", [_condition(), _condition()],
     ("FieldValueDuplicate", "status.conditions[1].type")),
    ("unrecognized condition status", [_condition(status="TrueOrFalse")],
     ("FieldValueNotSupported", "status.conditions[0].status")),
    ("empty condition reason", [_condition(reason=None)],
     ("FieldValueRequired", "status.conditions[0].reason")),
    ("improper condition reason format", [_condition(reason="Sche duled")],
     ("FieldValueInvalid", "status.conditions[0].reason")),
    ("too long condition reason", [_condition(reason="a" * 1025)],
     ("FieldValueTooLong", "status.conditions[0].reason")),
    ("too long condition message", [_condition(message="a" * (32 * 1024 + 1))],
     ("FieldValueTooLong", "status.conditions[0].message")),
]


@pytest.mark.parametrize(("name", "conditions", "want"), STATUS_FAILURES,
                         ids=[c[0] for c in STATUS_FAILURES])
def test_validate_pod_group_status_update_failure(cp: ControlPlane, name: str,
                                                  conditions: list[dict[str, Any]],
                                                  want: tuple[str, str]) -> None:
    cp.apply(_pod_group())
    assert want in _invalid(lambda: _status_update(cp, {"conditions": conditions}))


def test_validate_pod_group_status_update_non_existent_resource_claim_in_status(cp: ControlPlane) -> None:
    """"non-existent resource claim in status": upstream's validation refuses a
    ``resourceClaimStatuses`` entry naming no ``spec.resourceClaims`` entry — with
    DRAWorkloadResourceClaims on. With the gate off (1.37's default, and kbatch, which does not model
    the field) the status strategy drops ``resourceClaimStatuses`` before validation unless the stored
    spec uses resource claims (``dropDisabledPodGroupStatusFields``): the write succeeds and stores no
    such status."""
    cp.apply(_pod_group())
    claim = {"name": "no-such-claim", "resourceClaimName": "my-claim"}
    got = _status_update(cp, {"resourceClaimStatuses": [claim], "conditions": [_condition()]})
    assert got.status.resource_claim_statuses is None
    stored = cp.client.get(PodGroup, "workload", "default")
    assert stored.status.resource_claim_statuses is None and len(stored.status.conditions) == 1
