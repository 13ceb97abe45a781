"""The PodGroup PostFilter for a CompositePodGroup tree (KEP-5729 "Deallocate" with KEP-6012): when
the tree's root is Unschedulable, DynamicResources frees each leaf PodGroup's claims as for a
standalone group, and its reason ("deallocation and deletion of ResourceClaims completed") joins the
message of every group of the tree, as 1.37's ``applyPodGroupPostFilterResult`` appends the
PostFilter status to each result. Fails without the tree's PostFilter: the claim stays allocated on
the cordoned node and the member never binds."""

from __future__ import annotations

from kbatch import ControlPlane
from kbatch.api.core_v1 import Pod
from kbatch.api.scheduling_v1alpha3 import CompositePodGroup
from kbatch.api.scheduling_v1beta1 import PodGroup
from kbatch.apiserver.admission import AdmissionRequest
from tests.dra.test_podgroup_release import allocated_node, claim, left_on_a_cordoned_node, member, reserved
from tests.dra.test_preemption import cluster

GATES = {"GenericWorkload": True, "DRAWorkloadResourceClaims": True, "CompositePodGroup": True}
FREED = "deallocation and deletion of ResourceClaims completed"


def _tree(cp: ControlPlane) -> None:
    meta = {"name": "root", "namespace": "default"}
    cp.client.create(CompositePodGroup.model_validate({"metadata": meta, "spec": {
        "workloadRef": {"workloadName": "w", "templateName": "root"},
        "schedulingPolicy": {"gang": {"minGroupCount": 1}}}}))
    cp.client.create(PodGroup.model_validate({"metadata": {**meta, "name": "g"}, "spec": {
        "parentCompositePodGroupName": "root", "workloadRef": {"workloadName": "w", "templateName": "g"},
        "schedulingPolicy": {"gang": {"minCount": 1}},
        "resourceClaims": [{"name": "gpu", "resourceClaimName": "shared"}]}}))


def test_a_failed_tree_frees_its_leaves_claims_and_says_so() -> None:
    cp = cluster(nodes=2, gpus=1, gates=GATES)
    messages: list[tuple[str, str]] = []

    def hook(req: AdmissionRequest) -> None:
        if isinstance(req.obj, (PodGroup, CompositePodGroup)) and req.obj.status is not None:
            messages.extend((req.obj.metadata.name or "", c.message or "")
                            for c in req.obj.status.conditions or () if c.status == "False")

    cp.server.admission.add_validating(None, hook)
    left_on_a_cordoned_node(cp)
    _tree(cp)
    cp.client.create(member("first"))
    cp.advance(3)
    unschedulable = "pod group is unschedulable, minCount (1) cannot be satisfied: 0 scheduled, 0 remaining"
    assert sorted(messages) == [("g", f"{unschedulable}, {FREED}"), ("root", f"{unschedulable}, {FREED}")]
    assert allocated_node(claim(cp)) == "node-1" and reserved(claim(cp)) == ["g"]
    assert cp.client.get(Pod, "first", "default").spec.node_name == "node-1"
