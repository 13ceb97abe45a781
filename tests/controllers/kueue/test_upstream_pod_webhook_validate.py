"""Upstream's pod webhook validation tables, through kbatch's API server.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/pod/pod_webhook_test.go``
``TestValidateCreate`` and ``TestValidateUpdate`` (case names quoted) against ``pod_webhook.go``.
Upstream compares each error's type and path (``IgnoreFields(field.Error{}, "BadValue", "Detail")``);
so do these tests, read from the denial. Rows whose group name is no label value ("group name",
"notAdns1123Subdomain*") are refused by the API server's label validation first; they are checked
here through the annotation form, which upstream's "... annotation, WorkloadIdentifierAnnotations
enabled" rows cover (the gate is on by default). The prebuilt-workload rows are in
:data:`PREBUILT_CREATE`, with kbatch's own for the job framework's name check and an update. Not
translated: the TAS rows (not modelled). The managed-label warning rows are in :data:`WARNINGS`.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Forbidden
from kbatch.apiserver.create import create_object
from kbatch.apiserver.update import update_object

NAME = "kueue.x-k8s.io/pod-group-name"
TOTAL = "kueue.x-k8s.io/pod-group-total-count"
RETRIABLE = "kueue.x-k8s.io/retriable-in-group"
PREBUILT = "kueue.x-k8s.io/prebuilt-workload-name"
MANAGED = {"kueue.x-k8s.io/managed": "true"}
_LABELS = {"Required value": "Required", "Invalid value": "Invalid", "Forbidden": "Forbidden"}
_PATHS = [f"metadata.labels[{NAME}]", f"metadata.annotations[{NAME}]", f"metadata.annotations[{TOTAL}]",
          f"metadata.annotations[{RETRIABLE}]", f"metadata.labels[{PREBUILT}]",
          f"metadata.annotations[{PREBUILT}]"]


def make_pod(
    labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None
) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "test-pod", "namespace": "default", "labels": dict(labels or {}),
                         "annotations": dict(annotations or {})},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "pause"}]}}


def _causes(err: Forbidden) -> list[tuple[str, str]]:
    text = str(err.message).split("denied the request: ", 1)[1]
    return sorted({(kind, path) for path in _PATHS for label, kind in _LABELS.items()
                   if f"{path}: {label}" in text})


def _create(cp: ControlPlane, doc: dict[str, Any]) -> list[tuple[str, str]]:
    try:
        cp.apply([doc])
    except Forbidden as err:
        return _causes(err)
    return []


CREATE = [
    ("pod with group name and no group total count", make_pod({**MANAGED, NAME: "test-group"}),
     [("Required", f"metadata.annotations[{TOTAL}]")]),
    ("pod with group total count and no group name", make_pod(MANAGED, {TOTAL: "3"}),
     [("Required", f"metadata.labels[{NAME}]")]),
    ("pod with 0 group total count", make_pod({**MANAGED, NAME: "test-group"}, {TOTAL: "0"}),
     [("Invalid", f"metadata.annotations[{TOTAL}]")]),
    ("pod with empty group total count", make_pod({**MANAGED, NAME: "test-group"}, {TOTAL: ""}),
     [("Invalid", f"metadata.annotations[{TOTAL}]")]),
    ("invalid group name annotation, WorkloadIdentifierAnnotations enabled",
     make_pod(None, {NAME: "group name", TOTAL: "3"}), [("Invalid", f"metadata.annotations[{NAME}]")]),
    ("pod with incorrect group name (annotation form)",
     make_pod(MANAGED, {NAME: "notAdns1123Subdomain*", TOTAL: "2"}),
     [("Invalid", f"metadata.annotations[{NAME}]")]),
    ("different group name label and annotation, label ignored, WorkloadIdentifierAnnotations enabled",
     make_pod({NAME: "group-name-a"}, {NAME: "group-name-b", TOTAL: "3"}), []),
]


@pytest.mark.parametrize(("case", "pod", "want"), CREATE, ids=[c[0] for c in CREATE])
def test_validate_create(case: str, pod: dict[str, Any], want: list[tuple[str, str]]) -> None:
    assert _create(ControlPlane(controllers="kueue"), pod) == want


IDS_OFF, IDS_ON = {"WorkloadIdentifierAnnotations": False}, None
_PB_LABEL, _PB_ANNOTATION = f"metadata.labels[{PREBUILT}]", f"metadata.annotations[{PREBUILT}]"
PREBUILT_CREATE = [
    ("prebuilt workload for pod", IDS_OFF, make_pod({PREBUILT: "workload-name"}), []),
    ("prebuilt workload for pod group valid", IDS_OFF,
     make_pod({PREBUILT: "group-name", NAME: "group-name"}, {TOTAL: "3"}), []),
    ("prebuilt workload for pod group invalid", IDS_OFF,
     make_pod({PREBUILT: "workload-name", NAME: "group-name"}, {TOTAL: "3"}), [("Invalid", _PB_LABEL)]),
    ("prebuilt workload annotation for pod, WorkloadIdentifierAnnotations enabled", IDS_ON,
     make_pod(None, {PREBUILT: "workload-name"}), []),
    ("prebuilt workload label fallback for pod, WorkloadIdentifierAnnotations enabled", IDS_ON,
     make_pod({PREBUILT: "workload-name"}), []),
    ("prebuilt workload different label and annotation, label ignored, WorkloadIdentifierAnnotations enabled",
     IDS_ON, make_pod({PREBUILT: "workload-a"}, {PREBUILT: "workload-b"}), []),
    ("prebuilt workload annotation matches group name annotation, WorkloadIdentifierAnnotations enabled",
     IDS_ON, make_pod(None, {PREBUILT: "group-name", NAME: "group-name", TOTAL: "3"}), []),
    ("prebuilt workload annotation mismatches group name annotation, WorkloadIdentifierAnnotations enabled",
     IDS_ON, make_pod(None, {PREBUILT: "workload-name", NAME: "group-name", TOTAL: "3"}),
     [("Invalid", _PB_ANNOTATION)]),
    ("prebuilt workload label mismatches group name annotation, WorkloadIdentifierAnnotations enabled",
     IDS_ON, make_pod({PREBUILT: "workload-name"}, {NAME: "group-name", TOTAL: "3"}),
     [("Invalid", _PB_LABEL)]),
    ("prebuilt workload annotation mismatches group name label, WorkloadIdentifierAnnotations enabled",
     IDS_ON, make_pod({NAME: "group-name"}, {PREBUILT: "workload-name", TOTAL: "3"}),
     [("Invalid", _PB_ANNOTATION)]),
    # kbatch's row: the job framework's name check (ValidateJobOnCreate) on a pod
    ("invalid prebuilt workload annotation", IDS_ON, make_pod(None, {PREBUILT: "workload name"}),
     [("Invalid", _PB_ANNOTATION)]),
]


def test_a_running_pod_keeps_its_prebuilt_workload() -> None:
    """kbatch's row: ``ValidateJobOnUpdate`` through the pod webhook: an ungated pod (not suspended)
    may not change the Workload it names."""
    cp = ControlPlane(controllers="kueue")
    cp.apply([make_pod(None, {PREBUILT: "old-workload"})])
    stored = cp.client.get(Pod, "test-pod", "default").to_dict()
    stored["metadata"]["annotations"][PREBUILT] = "new-workload"
    with pytest.raises(Forbidden) as err:
        cp.client.update(Pod.from_dict(stored))
    assert _causes(err.value) == [("Invalid", _PB_ANNOTATION)]
    assert 'Invalid value: "new-workload": field is immutable' in str(err.value.message)


@pytest.mark.parametrize(("case", "gates", "pod", "want"), PREBUILT_CREATE,
                         ids=[c[0] for c in PREBUILT_CREATE])
def test_validate_create_prebuilt_workload(case: str, gates: dict[str, bool] | None, pod: dict[str, Any],
                                           want: list[tuple[str, str]]) -> None:
    cp = ControlPlane(controllers="kueue", **({"feature_gates": gates} if gates else {}))
    assert _create(cp, pod) == want


UPDATE = [
    # The first three rows' old pod (a group name without a total count) is one the create rule
    # refuses, so no API server holds it: they start from a plain pod (the new pod's errors are
    # the same validateCommon ones).
    ("pod with group name and no group total count", make_pod(),
     make_pod({**MANAGED, NAME: "test-group"}), [("Required", f"metadata.annotations[{TOTAL}]")]),
    ("pod with 0 group total count", make_pod(),
     make_pod({**MANAGED, NAME: "test-group"}, {TOTAL: "0"}),
     [("Invalid", f"metadata.annotations[{TOTAL}]")]),
    ("pod with empty group total count", make_pod(),
     make_pod({**MANAGED, NAME: "test-group"}, {TOTAL: ""}),
     [("Invalid", f"metadata.annotations[{TOTAL}]")]),
    ("pod group name is changed", make_pod({NAME: "test-group"}, {TOTAL: "2"}),
     make_pod({NAME: "test-group-new"}, {TOTAL: "2"}), [("Invalid", f"metadata.labels[{NAME}]")]),
    ("pod group name is changed, annotations, WorkloadIdentifierAnnotations enabled",
     make_pod(None, {NAME: "test-group", TOTAL: "2"}), make_pod(None, {NAME: "test-group-new", TOTAL: "2"}),
     [("Invalid", f"metadata.annotations[{NAME}]")]),
    ("pod group name is changed, label to annotation, WorkloadIdentifierAnnotations enabled",
     make_pod({NAME: "test-group"}, {TOTAL: "2"}), make_pod(None, {NAME: "test-group-new", TOTAL: "2"}),
     [("Invalid", f"metadata.annotations[{NAME}]")]),
    ("pod group name is changed, annotation to label, WorkloadIdentifierAnnotations enabled",
     make_pod(None, {NAME: "test-group", TOTAL: "2"}), make_pod({NAME: "test-group-new"}, {TOTAL: "2"}),
     [("Invalid", f"metadata.labels[{NAME}]")]),
    ("pod group name label replaced with annotation, WorkloadIdentifierAnnotations enabled",
     make_pod({NAME: "test-group"}, {TOTAL: "2"}), make_pod(None, {NAME: "test-group", TOTAL: "2"}), []),
    ("assign pod group name", make_pod(), make_pod({NAME: "test-group-new"}, {TOTAL: "2"}), []),
    ("retriable in group annotation is removed",
     make_pod({NAME: "test-group"}, {TOTAL: "2", RETRIABLE: "false"}),
     make_pod({NAME: "test-group"}, {TOTAL: "2"}),
     [("Forbidden", f"metadata.annotations[{RETRIABLE}]")]),
    ("retriable in group annotation is changed from false to true",
     make_pod({NAME: "test-group"}, {TOTAL: "2", RETRIABLE: "false"}),
     make_pod({NAME: "test-group"}, {TOTAL: "2", RETRIABLE: "true"}),
     [("Forbidden", f"metadata.annotations[{RETRIABLE}]")]),
]


@pytest.mark.parametrize(("case", "old", "new", "want"), UPDATE, ids=[c[0] for c in UPDATE])
def test_validate_update(
    case: str, old: dict[str, Any], new: dict[str, Any], want: list[tuple[str, str]]
) -> None:
    cp = ControlPlane(controllers="kueue")
    cp.apply([old])
    stored = cp.client.get(Pod, "test-pod", "default").to_dict()
    stored["metadata"]["labels"] = new["metadata"]["labels"]
    stored["metadata"]["annotations"] = new["metadata"]["annotations"]
    try:
        cp.client.update(Pod.from_dict(stored))
        got: list[tuple[str, str]] = []
    except Forbidden as err:
        got = _causes(err)
    assert got == want


WARNING = ("pod owner is managed by kueue, label 'kueue.x-k8s.io/managed=true' "
           "might lead to unexpected behaviour")
SUSPENDED_BY_PARENT = "kueue.x-k8s.io/pod-suspending-parent"


def _owned(pod: dict[str, Any]) -> dict[str, Any]:
    pod["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "parent-job",
                                           "uid": "parent-job-uid", "controller": True}]
    return pod


# (case, old pod or None for a create, new pod, the warnings)
WARNINGS = [
    ("pod owner is managed by kueue", None, _owned(make_pod(MANAGED)), [WARNING]),
    ("pods owner is managed by kueue, managed label is set for both pods",
     _owned(make_pod(MANAGED)), _owned(make_pod(MANAGED)), [WARNING]),
    ("pod owner is managed by kueue, managed label is set for new pod",
     _owned(make_pod()), _owned(make_pod(MANAGED)), [WARNING]),
    ("pod owner is managed by kueue, managed label is set for new pod with suspend by parent annotation",
     _owned(make_pod()), _owned(make_pod(MANAGED, {SUSPENDED_BY_PARENT: "job"})), []),
    ("kbatch: a managed pod without an owner", None, make_pod(MANAGED), []),
]


@pytest.mark.parametrize(("case", "old", "new", "want"), WARNINGS, ids=[c[0] for c in WARNINGS])
def test_managed_label_warnings(case: str, old: dict[str, Any] | None, new: dict[str, Any],
                                want: list[str]) -> None:
    cp = ControlPlane(controllers="kueue", feature_gates={"WorkloadIdentifierAnnotations": False})
    warnings: list[str] = []
    if old is None:
        create_object(cp.server, Pod.from_dict(new), warnings=warnings)
    else:
        cp.apply([old])
        stored = cp.client.get(Pod, "test-pod", "default").to_dict()
        stored["metadata"]["labels"] = new["metadata"]["labels"]
        stored["metadata"]["annotations"] = new["metadata"]["annotations"]
        update_object(cp.server, Pod.from_dict(stored), warnings=warnings)
    assert warnings == want
