"""PodGroup ResourceClaims (KEP-5729, gate ``DRAWorkloadResourceClaims``, beta and off in 1.37) on a
control plane: the field dropped with the gate off, validated with it on; the resourceclaim
controller's PodGroup rows (upstream ``pkg/controller/resourceclaim/controller_test.go``: "create for
PodGroup", "update Pod status with PodGroup claim", "recreate for PodGroup", "clear-reserved-podgroup",
"dont-clear-reserved-podgroup-feature-disabled"); the gang sharing one claim, allocated once and
reserved for the PodGroup."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Invalid
from kbatch.api.resource_v1 import FINALIZER, POD_CLAIM_NAME_ANNOTATION, ResourceClaim
from kbatch.api.scheduling_v1beta1 import PodGroup, Workload

from .test_preemption import cluster, gpu_pod, shared_claim

ON = {"GenericWorkload": True, "DRAWorkloadResourceClaims": True}
OFF = {"GenericWorkload": True}


def pod_group(name: str = "g", min_count: int = 2, claims: list[dict[str, Any]] | None = None) -> PodGroup:
    claims = claims if claims is not None else [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
    return PodGroup.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
        "schedulingPolicy": {"gang": {"minCount": min_count}}, "resourceClaims": claims}})


def member(name: str, group: str = "g", claim: str = "") -> Pod:
    pod = gpu_pod(name, claim=claim)
    body = pod.to_dict()
    body["spec"]["schedulingGroup"] = {"podGroupName": group}
    return Pod.model_validate(body)


def claims(cp: ControlPlane) -> dict[str, ResourceClaim]:
    return {c.metadata.name: c for c in cp.client.list(ResourceClaim, "default").items}


def pods(cp: ControlPlane) -> dict[str, Pod]:
    return {p.metadata.name: p for p in cp.client.list(Pod, "default").items}


# -- the API -----------------------------------------------------------------------------------------
def test_the_field_is_dropped_on_create_with_the_gate_off_and_kept_with_it_on() -> None:
    off = ControlPlane(controllers=[], feature_gates=OFF).client.create(pod_group())
    assert off.spec.resource_claims is None
    on = ControlPlane(controllers=[], feature_gates=ON).client.create(pod_group())
    assert [(c.name, c.resource_claim_template_name) for c in on.spec.resource_claims] == [("gpu", "one-gpu")]
    workload = Workload.model_validate({"metadata": {"name": "w", "namespace": "default"}, "spec": {
        "podGroupTemplates": [{"name": "t", "schedulingPolicy": {"basic": {}},
                               "resourceClaims": [{"name": "gpu", "resourceClaimName": "c"}]}]}})
    assert ControlPlane(controllers=[], feature_gates=OFF).client.create(
        workload).spec.pod_group_templates[0].resource_claims is None


def test_a_status_write_keeps_resource_claim_statuses_only_with_the_gate_or_claims_in_the_spec() -> None:
    cp = ControlPlane(controllers=[], feature_gates=OFF)
    stored = cp.client.create(pod_group())
    body = stored.to_dict()
    body["status"] = {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "x"}]}
    assert cp.client.update_status(PodGroup.model_validate(body)).status.resource_claim_statuses is None


@pytest.mark.parametrize(("claims_", "wanted"), [
    ([{"name": f"c{i}", "resourceClaimName": "x"} for i in range(5)],
     "spec.resourceClaims: Too many: 5: must have at most 4 items"),
    ([{"name": "gpu", "resourceClaimName": "x", "resourceClaimTemplateName": "t"}],
     "spec.resourceClaims[0]: Invalid value: "),
    ([{"name": "gpu", "resourceClaimName": "x"}, {"name": "gpu", "resourceClaimName": "y"}],
     'spec.resourceClaims[1].name: Duplicate value: "gpu"'),
    ([{"name": "Bad_Name", "resourceClaimName": "x"}], "spec.resourceClaims[0].name: Invalid value: "),
])
def test_invalid_resource_claims_are_refused_with_field_paths(claims_: list[dict[str, Any]],
                                                              wanted: str) -> None:
    cp = ControlPlane(controllers=[], feature_gates=ON)
    with pytest.raises(Invalid) as info:
        cp.client.create(pod_group(claims=claims_))
    causes = [f"{c.field}: {c.message}" for c in info.value.status.details.causes]
    assert any(c.startswith(wanted) for c in causes), causes
    assert cp.client.list(PodGroup, "default").items == []  # no partial write


# -- the resourceclaim controller -------------------------------------------------------------------
def test_a_pod_group_gets_one_claim_from_its_template_recorded_in_its_status() -> None:
    cp = cluster(gpus=2, gates=ON)
    group = cp.client.create(pod_group())
    cp.advance(1)
    [claim] = claims(cp).values()
    assert claim.metadata.name.startswith("g-gpu-") and len(claim.metadata.name) == len("g-gpu-") + 5
    owner = claim.metadata.owner_references[0]
    fields = (owner.api_version, owner.kind, owner.name, owner.uid, owner.controller,
              owner.block_owner_deletion)
    assert fields == ("scheduling.k8s.io/v1beta1", "PodGroup", "g", group.metadata.uid, True, True)
    assert claim.metadata.annotations[POD_CLAIM_NAME_ANNOTATION] == "gpu"
    status = cp.client.get(PodGroup, "g", "default").status.resource_claim_statuses
    assert [(s.name, s.resource_claim_name) for s in status] == [("gpu", claim.metadata.name)]
    # recreate for PodGroup: a deleted claim is made again
    cp.client.delete(ResourceClaim, claim.metadata.name, "default")
    cp.advance(1)
    [again] = claims(cp).values()
    assert again.metadata.name != claim.metadata.name
    status = cp.client.get(PodGroup, "g", "default").status.resource_claim_statuses
    assert [s.resource_claim_name for s in status] == [again.metadata.name]


def test_a_member_records_the_groups_claim_and_gets_none_of_its_own() -> None:
    cp = cluster(gpus=2, gates=ON)
    cp.client.create(member("solo-0", group="g"))  # before its group: it waits for it
    cp.advance(1)
    assert claims(cp) == {}
    cp.client.create(pod_group(min_count=1))
    cp.advance(1)
    [name] = claims(cp)
    assert name.startswith("g-gpu-")
    [status] = pods(cp)["solo-0"].status.resource_claim_statuses
    assert (status.name, status.resource_claim_name) == ("gpu", name)


def test_a_member_entry_that_does_not_match_the_group_gets_its_own_claim() -> None:
    cp = cluster(gpus=2, gates=ON)
    other = [{"name": "other", "resourceClaimTemplateName": "one-gpu"}]
    cp.client.create(pod_group(min_count=1, claims=other))
    cp.client.create(member("p", group="g"))
    cp.advance(2)
    owners = sorted(c.metadata.owner_references[0].kind for c in claims(cp).values())
    assert owners == ["Pod", "PodGroup"]


def test_with_the_gate_off_a_member_gets_its_own_claim() -> None:
    cp = cluster(gpus=2, gates=OFF)
    cp.client.create(pod_group(min_count=1))
    cp.client.create(member("p", group="g"))
    cp.advance(2)
    [claim] = claims(cp).values()
    assert claim.metadata.owner_references[0].kind == "Pod"
    assert pods(cp)["p"].status.phase == "Running"


# -- scheduling: the gang shares one allocation ----------------------------------------------------
def test_the_gang_shares_one_claim_allocated_once_and_reserved_for_the_group() -> None:
    cp = cluster(gpus=2, gates=ON)
    group = cp.client.create(pod_group())
    for name in ("a", "b"):
        cp.client.create(member(name))
    cp.advance(3)
    [claim] = claims(cp).values()
    results = claim.status.allocation.devices.results
    assert [(r.pool, r.device) for r in results] == [("node-0", "gpu-0")]  # allocated once
    assert [(r.api_group, r.resource, r.name, r.uid) for r in claim.status.reserved_for] == [
        ("scheduling.k8s.io", "podgroups", "g", group.metadata.uid)]
    assert FINALIZER in claim.metadata.finalizers
    assert {p.status.phase for p in pods(cp).values()} == {"Running"}
    for pod in pods(cp).values():
        assert [s.resource_claim_name for s in pod.status.resource_claim_statuses] == [claim.metadata.name]


def test_a_named_claim_of_the_group_is_reserved_for_the_group() -> None:
    cp = cluster(gpus=1, gates=ON)
    shared_claim(cp, "shared")
    group = cp.client.create(pod_group(claims=[{"name": "gpu", "resourceClaimName": "shared"}]))
    for name in ("a", "b"):
        cp.client.create(member(name, claim="shared"))
    cp.advance(3)
    claim = claims(cp)["shared"]
    assert [r.uid for r in claim.status.reserved_for] == [group.metadata.uid]
    assert {p.status.phase for p in pods(cp).values()} == {"Running"}


def test_deleting_the_group_releases_its_claim() -> None:
    cp = cluster(gpus=1, gates=ON)
    shared_claim(cp, "shared")
    cp.client.create(pod_group(min_count=1, claims=[{"name": "gpu", "resourceClaimName": "shared"}]))
    cp.client.create(member("a", claim="shared"))
    cp.advance(3)
    assert claims(cp)["shared"].status.reserved_for
    cp.client.delete(Pod, "a", "default")
    cp.advance(5)
    cp.client.delete(PodGroup, "g", "default")
    cp.wait_for(lambda: claims(cp)["shared"].status is None or claims(cp)["shared"].status.allocation is None,
                timeout=60)
    claim = claims(cp)["shared"]  # clear-reserved-podgroup: reservation, allocation and finalizer gone
    assert not (claim.status and claim.status.reserved_for)
    assert FINALIZER not in (claim.metadata.finalizers or ())
