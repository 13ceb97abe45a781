"""Upstream's volume-claim-policy tables.

Source: kubernetes-sigs/jobset v0.12.0 ``pkg/controllers/volume_claim_policy_test.go``
(``TestReconcileVolumeClaimPolicies``, ``TestAddVolumes``) and ``volume_claim_policy.go``. The claims
a JobSet gets are read from a control plane running the ``jobset`` controller (the JobSet applied
through the API, so every template is mounted, as ``vjobset.kb.io`` requires); the volumes a Job gets
are read from kbatch's builder, which upstream's ``addVolumes`` case feeds directly (a JobSet whose
templates are not all mounted is refused by the webhook before any Job is built). "PVC creation fails
with unexpected error" does not translate (no fault is injected into a create).
"""

from __future__ import annotations

from typing import Any

from kbatch import ControlPlane
from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.controllers.jobset import build_job

JS = "test-jobset"
PVC = {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "1Gi"}}}


def _template(name: str, **meta: Any) -> dict[str, Any]:
    return {"metadata": {"name": name, **meta}, "spec": PVC}


def _manifest(policies: list[dict[str, Any]], containers: list[dict[str, Any]],
              init: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    pod: dict[str, Any] = {"containers": containers}
    if init:
        pod["initContainers"] = init
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": JS},
            "spec": {"volumeClaimPolicies": policies,
                     "replicatedJobs": [{"name": "rj", "template": {"spec": {"template": {"spec": pod}}}}]}}


def _container(*mounts: str, name: str = "test-container") -> dict[str, Any]:
    return {"name": name, "image": "busybox:latest",
            "volumeMounts": [{"name": m, "mountPath": f"/{m}"} for m in mounts]}


def _claims(cp: ControlPlane) -> dict[str, dict[str, Any]]:
    return {c.name: c.to_dict() for c in cp.client.list(PersistentVolumeClaim, "default").items}


def test_create_multiple_pvcs_with_different_retention_policies_and_custom_labels_annotations() -> None:
    policies = [{"templates": [_template("volume-delete"),
                               _template("volume-custom", labels={"custom-label": "custom-value"},
                                         annotations={"custom-annotation": "custom-value"})],
                 "retentionPolicy": {"whenDeleted": "Delete"}},
                {"templates": [_template("volume-retain")], "retentionPolicy": {"whenDeleted": "Retain"}}]
    cp = ControlPlane(seed=1, controllers="jobset")
    cp.apply(_manifest(policies, [_container("volume-delete", "volume-custom", "volume-retain")]))
    claims = _claims(cp)
    assert sorted(claims) == [f"{n}-test-jobset" for n in ("volume-custom", "volume-delete", "volume-retain")]
    owner = [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": JS,
              "uid": cp.client.get(JobSet, JS, "default").metadata.uid, "controller": True,
              "blockOwnerDeletion": True}]
    delete, custom, retain = (claims[f"{n}-test-jobset"]["metadata"]
                              for n in ("volume-delete", "volume-custom", "volume-retain"))
    assert delete["labels"] == {"jobset.sigs.k8s.io/jobset-name": JS} and delete["ownerReferences"] == owner
    assert custom["labels"] == {"jobset.sigs.k8s.io/jobset-name": JS, "custom-label": "custom-value"}
    assert custom["annotations"] == {"custom-annotation": "custom-value"}
    assert custom["ownerReferences"] == owner
    assert retain["labels"] == {"jobset.sigs.k8s.io/jobset-name": JS} and "ownerReferences" not in retain
    assert all(c["spec"]["accessModes"] == ["ReadWriteMany"] for c in claims.values())


def test_pvc_already_exists_and_should_not_be_created_again() -> None:
    """The existing claim (same spec, as the webhook requires, and ``Retain``) is left as it is."""
    cp = ControlPlane(seed=1, controllers="jobset")
    existing = cp.client.create(PersistentVolumeClaim.model_validate(
        {"metadata": {"name": "test-volume-test-jobset", "namespace": "default"}, "spec": PVC}))
    spec = existing.to_dict()["spec"]  # as stored (volumeMode defaulted): what the template must equal
    cp.apply(_manifest([{"templates": [{"metadata": {"name": "test-volume"}, "spec": spec}],
                         "retentionPolicy": {"whenDeleted": "Retain"}}], [_container("test-volume")]))
    (claim,) = cp.client.list(PersistentVolumeClaim, "default").items
    assert claim.metadata.uid == existing.metadata.uid and claim.metadata.labels is None


def _volumes(policies: list[dict[str, Any]], containers: list[dict[str, Any]],
             init: list[dict[str, Any]] | None = None) -> list[dict[str, Any]] | None:
    manifest = _manifest(policies, containers, init)
    manifest["metadata"].update(namespace="default", uid="u")
    job = build_job(JobSet.model_validate(manifest), 0, 0)
    return job.to_dict()["spec"]["template"]["spec"].get("volumes")


def _volume(name: str) -> dict[str, Any]:
    return {"name": name, "persistentVolumeClaim": {"claimName": f"{name}-test-jobset"}}


def test_add_volumes_for_matching_volume_mounts() -> None:
    policies = [{"templates": [_template("volume-1"), _template("volume-2")]}]
    got = _volumes(policies, [_container("volume-1", "volume-2")])
    assert got == [_volume("volume-1"), _volume("volume-2")]


def test_do_not_add_volumes_when_volume_mounts_are_missing() -> None:
    assert _volumes([{"templates": [_template("volume-1")]}], [_container()]) is None


def test_add_only_matching_volumes_when_some_volume_mounts_exist() -> None:
    policies = [{"templates": [_template("volume-1"), _template("volume-2")]}]
    assert _volumes(policies, [_container("volume-1")]) == [_volume("volume-1")]


def test_add_volumes_from_multiple_volume_claim_policies_with_init_container() -> None:
    policies = [{"templates": [_template("volume-delete"), _template("volume-init")],
                 "retentionPolicy": {"whenDeleted": "Delete"}},
                {"templates": [_template("volume-retain")], "retentionPolicy": {"whenDeleted": "Retain"}}]
    got = _volumes(policies, [_container("volume-delete", "volume-retain")],
                   init=[_container("volume-init", name="init-container")])
    assert got == [_volume("volume-delete"), _volume("volume-init"), _volume("volume-retain")]
