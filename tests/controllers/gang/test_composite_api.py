"""scheduling.k8s.io/v1alpha3 and the CompositePodGroup kind (KEP-6012, gate CompositePodGroup), through
kbatch's API server.

The validation table is upstream's ``TestValidateWorkload`` composite cases and
``TestValidateCompositePodGroup`` (kubernetes/kubernetes ``pkg/apis/scheduling/validation/
validation_test.go``, the stored 1.37-dev version), with the declarative rules of
``staging/src/k8s.io/api/scheduling/v1alpha3/types.go`` (``workloadRef`` required, ``minGroupCount``
required and at least 1, the spec immutable, the one-of of ``podGroupTemplates`` and
``compositePodGroupTemplates``). Causes are compared by (reason, field), as upstream's
``ErrorMatcher{}.ByType().ByField()``.
"""

from __future__ import annotations

from typing import Any

import pytest

from gang.builders import NATIVE, gpu_cluster, invalid_causes
from gang.composite_builders import COMPOSITE, V1ALPHA3, child_group, composite
from kbatch.api.errors import StatusError
from kbatch.api.scheduling_v1alpha3 import CompositePodGroup
from kbatch.api.scheduling_v1beta1 import PodGroup, Workload
from kbatch.runtime.controlplane import ControlPlane


@pytest.fixture
def cp() -> ControlPlane:
    return gpu_cluster(0, gates=COMPOSITE, controllers="garbage-collector")


_invalid = invalid_causes


GANG = {"gang": {"minGroupCount": 1}}
LEAF = {"name": "leaf", "schedulingPolicy": {"basic": {}}}


def _tree(*templates: dict[str, Any], version: str = V1ALPHA3) -> dict[str, Any]:
    return {"apiVersion": version, "kind": "Workload", "metadata": {"name": "workload"},
            "spec": {"compositePodGroupTemplates": list(templates)}}


def _node(name: str, *, leaves: list[dict[str, Any]] | None = None,
          composites: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"name": name, "schedulingPolicy": GANG, **extra}
    if leaves:
        node["podGroupTemplates"] = leaves
    if composites:
        node["compositePodGroupTemplates"] = composites
    return node


# -- serving ------------------------------------------------------------------------------------------
def test_without_the_gate_v1alpha3_is_not_served_and_the_fields_are_dropped() -> None:
    cp = gpu_cluster(0, gates=NATIVE, controllers="")
    with pytest.raises(StatusError) as info:
        cp.apply(composite("root", 2))
    assert info.value.message == ('no matches for kind "CompositePodGroup" in version '
                                  '"scheduling.k8s.io/v1alpha3"')
    with pytest.raises(StatusError) as info:
        cp.apply({**child_group("a", 1, "root"), "apiVersion": V1ALPHA3})
    assert info.value.message == 'no matches for kind "PodGroup" in version "scheduling.k8s.io/v1alpha3"'
    cp.apply({**child_group("a", 1, "root"), "apiVersion": "scheduling.k8s.io/v1beta1"})
    assert cp.client.get(PodGroup, "a", "default").spec.parent_composite_pod_group_name is None
    beta = _tree(_node("main", leaves=[LEAF]), version="scheduling.k8s.io/v1beta1")
    assert _invalid(lambda: cp.apply(beta)) == [("FieldValueRequired", "spec.podGroupTemplates")]  # dropped


def test_v1alpha3_serves_workload_and_pod_group_stored_in_v1beta1(cp: ControlPlane) -> None:
    cp.apply(_tree(_node("main", leaves=[LEAF])))
    cp.apply({**child_group("leaf", 2, "main", workload="workload")})
    stored = cp.client.get(Workload, "workload", "default")
    assert stored.api_version == "scheduling.k8s.io/v1beta1"
    assert [t.name for t in stored.spec.composite_pod_group_templates or ()] == ["main"]
    pg = cp.client.get(PodGroup, "leaf", "default")
    assert pg.spec.parent_composite_pod_group_name == "main" and pg.metadata.finalizers == [
        "scheduling.k8s.io/podgroup-protection"]


def test_composite_status_is_reset_on_create_and_written_through_status(cp: ControlPlane) -> None:
    doc = composite("root", 2)
    doc["status"] = {"conditions": [{"type": "CompositePodGroupInitiallyScheduled", "status": "True",
                                     "reason": "Scheduled", "message": "",
                                     "lastTransitionTime": "2025-01-01T00:00:00Z"}]}
    cp.apply(doc)
    got = cp.client.get(CompositePodGroup, "root", "default")
    assert got.status is not None and got.status.conditions is None and got.metadata.generation is None
    cp.client.patch_status(CompositePodGroup, "root", {"status": doc["status"]}, "default")
    got = cp.client.get(CompositePodGroup, "root", "default")
    assert [c.reason for c in got.status.conditions or ()] == ["Scheduled"]


def test_composite_spec_is_immutable(cp: ControlPlane) -> None:
    cp.apply(composite("root", 2))
    assert _invalid(lambda: cp.apply(composite("root", 3))) == [
        ("FieldValueInvalid", "spec.schedulingPolicy")]
    assert _invalid(lambda: cp.apply(composite("root", 2, parent="other"))) == [
        ("FieldValueInvalid", "spec.parentCompositePodGroupName")]


def test_composites_are_garbage_collected_with_their_workload(cp: ControlPlane) -> None:
    cp.apply(_tree(_node("main", leaves=[LEAF])))
    uid = cp.client.get(Workload, "workload", "default").metadata.uid
    doc = composite("main", 1, workload="workload")
    doc["metadata"]["ownerReferences"] = [{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload",
                                           "name": "workload", "uid": uid}]
    cp.apply(doc)
    cp.client.delete(Workload, "workload", "default")
    cp.advance("5s")
    assert cp.client.list(CompositePodGroup, "default").items == []


# -- TestValidateCompositePodGroup and the declarative rules -----------------------------------------
def _composite_with(**spec: Any) -> dict[str, Any]:
    doc = composite("cpg", 1)
    doc["spec"] = {**doc["spec"], **spec}
    return {**doc, "spec": {k: v for k, v in doc["spec"].items() if v is not None}}


@pytest.mark.parametrize(("name", "doc"), [
    ("gang policy", composite("cpg", 2)),
    ("basic policy", composite("cpg")),
    ("with a parent", composite("cpg", 1, parent="root")),
])
def test_validate_composite_pod_group_success(cp: ControlPlane, name: str, doc: dict[str, Any]) -> None:
    cp.apply(doc)
    assert cp.client.get(CompositePodGroup, "cpg", "default").spec.workload_ref is not None


COMPOSITE_FAILURES = [
    ("no workloadRef", _composite_with(workloadRef=None), [("FieldValueRequired", "spec.workloadRef")]),
    ("no policy", _composite_with(schedulingPolicy={}), [("FieldValueInvalid", "spec.schedulingPolicy")]),
    ("both policies", _composite_with(schedulingPolicy={"basic": {}, "gang": {"minGroupCount": 1}}),
     [("FieldValueInvalid", "spec.schedulingPolicy")]),
    ("minGroupCount unset", _composite_with(schedulingPolicy={"gang": {}}),
     [("FieldValueRequired", "spec.schedulingPolicy.gang.minGroupCount")]),
    ("negative minGroupCount", _composite_with(schedulingPolicy={"gang": {"minGroupCount": -1}}),
     [("FieldValueInvalid", "spec.schedulingPolicy.gang.minGroupCount")]),
    ("invalid parent", _composite_with(parentCompositePodGroupName=".root"),
     [("FieldValueInvalid", "spec.parentCompositePodGroupName")]),
    ("invalid template name", _composite_with(workloadRef={"workloadName": "w", "templateName": "a.b"}),
     [("FieldValueInvalid", "spec.workloadRef.templateName")]),
    ("two topology constraints",
     _composite_with(schedulingConstraints={"topology": [{"key": "a"}, {"key": "b"}]}),
     [("FieldValueTooMany", "spec.schedulingConstraints.topology")]),
    ("both disruption modes", _composite_with(disruptionMode={"single": {}, "all": {}}),
     [("FieldValueInvalid", "spec.disruptionMode")]),
]


@pytest.mark.parametrize(("name", "doc", "want"), COMPOSITE_FAILURES, ids=[c[0] for c in COMPOSITE_FAILURES])
def test_validate_composite_pod_group_failure(cp: ControlPlane, name: str, doc: dict[str, Any],
                                              want: list[tuple[str, str]]) -> None:
    assert _invalid(lambda: cp.apply(doc)) == want
    assert cp.client.list(CompositePodGroup, "default").items == []  # nothing written


def test_pod_group_parent_needs_a_workload_ref(cp: ControlPlane) -> None:
    doc = child_group("a", 1, "root")
    del doc["spec"]["workloadRef"]
    assert _invalid(lambda: cp.apply(doc)) == [("FieldValueRequired", "spec.workloadRef")]
    cp.apply(child_group("a", 1, "root"))
    changed = child_group("a", 1, "other")
    assert _invalid(lambda: cp.apply(changed)) == [("FieldValueInvalid", "spec.parentCompositePodGroupName")]


# -- TestValidateWorkload: the composite cases -------------------------------------------------------
WORKLOAD_FAILURES = [
    ("composite pod group template has no children", _tree(_node("main")),
     [("FieldValueInvalid", "spec.compositePodGroupTemplates[0]")]),
    ("composite pod group template nested child has no children",
     _tree(_node("main", composites=[_node("sub")])),
     [("FieldValueInvalid", "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0]")]),
    ("duplicate names deep in tree", _tree(_node("main", composites=[_node("main", leaves=[LEAF])])),
     [("FieldValueDuplicate", "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].name")]),
    ("duplicate names in tree",
     _tree(_node("cpg1", composites=[_node("cpg2", leaves=[{**LEAF, "name": "group1"}])],
                 leaves=[{**LEAF, "name": "group1"}])),
     [("FieldValueDuplicate",
       "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates[0].name")]),
    ("exceeds max tree height",
     _tree(_node("cpg1", composites=[_node("cpg2", composites=[_node("cpg3", composites=[
         _node("cpg4", leaves=[LEAF])])])])),
     [("FieldValueInvalid", "spec.compositePodGroupTemplates[0]")]),
    ("both template lists",
     {**_tree(_node("main", leaves=[LEAF])),
      "spec": {"compositePodGroupTemplates": [_node("main", leaves=[LEAF])],
               "podGroupTemplates": [{**LEAF, "name": "other"}]}},
     [("FieldValueInvalid", "spec")]),
    ("different priorities", _tree(_node("main", leaves=[{**LEAF, "priority": 5}], priority=1)),
     [("FieldValueInvalid", "spec")]),
    ("nine children", _tree(_node("main", leaves=[{**LEAF, "name": f"l{i}"} for i in range(9)])),
     [("FieldValueTooMany", "spec.compositePodGroupTemplates[0].podGroupTemplates")]),
    ("minGroupCount zero",
     _tree({**_node("main", leaves=[LEAF]), "schedulingPolicy": {"gang": {"minGroupCount": 0}}}),
     [("FieldValueRequired", "spec.compositePodGroupTemplates[0].schedulingPolicy.gang.minGroupCount")]),
]


@pytest.mark.parametrize(("name", "doc", "want"), WORKLOAD_FAILURES, ids=[c[0] for c in WORKLOAD_FAILURES])
def test_validate_workload_composite_failure(cp: ControlPlane, name: str, doc: dict[str, Any],
                                             want: list[tuple[str, str]]) -> None:
    assert _invalid(lambda: cp.apply(doc)) == want


def test_validate_workload_depth_three_is_fine(cp: ControlPlane) -> None:
    cp.apply(_tree(_node("cpg1", composites=[_node("cpg2", composites=[_node("cpg3", leaves=[LEAF])])])))
    assert cp.client.get(Workload, "workload", "default").spec.composite_pod_group_templates is not None


def test_workload_composite_templates_cannot_gain_or_lose_items(cp: ControlPlane) -> None:
    cp.apply(_tree(_node("main", leaves=[LEAF])))
    assert _invalid(lambda: cp.apply(_tree(_node("main", leaves=[LEAF]), _node("more", leaves=[
        {**LEAF, "name": "x"}])))) == [("FieldValueInvalid", "spec.compositePodGroupTemplates")]
    assert _invalid(lambda: cp.apply(_tree(_node("main", leaves=[LEAF, {**LEAF, "name": "x"}])))) == [
        ("FieldValueInvalid", "spec.compositePodGroupTemplates[0].podGroupTemplates")]
    basic = {**_node("main", leaves=[LEAF]), "schedulingPolicy": {"basic": {}}}
    assert _invalid(lambda: cp.apply(_tree(basic))) == [
        ("FieldValueInvalid", "spec.compositePodGroupTemplates[0].schedulingPolicy.basic"),
        ("FieldValueInvalid", "spec.compositePodGroupTemplates[0].schedulingPolicy.gang")]


def test_priority_above_the_user_maximum_is_invalid() -> None:
    """(Through the API the Priority admission plugin forbids any stated priority first; the rule is
    the declarative ``+k8s:maximum=1000000000``.)"""
    from kbatch.api.strategies.scheduling.composite_validation import validate_composite_pod_group

    cpg = CompositePodGroup.model_validate(_composite_with(priority=1_000_000_001))
    assert [(e.type.value[0], e.field) for e in validate_composite_pod_group(cpg)] == [
        ("FieldValueInvalid", "spec.priority")]
