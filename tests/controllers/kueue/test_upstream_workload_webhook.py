"""Upstream's Workload webhook table for the annotations it validates.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/webhooks/workload_webhook_test.go`` (``TestValidateWorkload``
"... AdmissionGatedBy annotation ..." and "... priority-boost ..." cases, ``TestValidateWorkloadUpdate``
"reject adding / allow removing / reject injecting ... AdmissionGatedBy"), ``workload_webhook.go``
and ``pkg/util/webhook/validation_admissiongatedby.go``. Upstream compares the errors' types and
paths (``IgnoreFields(field.Error{}, "Detail", "BadValue")``); so do these tests, from the denial's
message (a validating webhook's field errors come back as its 403 denial, as controller-runtime
returns a non-status error).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.errors import Forbidden
from kbatch.api.kueue_v1beta2 import Workload

from .helpers import workload

GATED = "kueue.x-k8s.io/admission-gated-by"
BOOST = "kueue.x-k8s.io/priority-boost"


def _create(cp: ControlPlane, annotations: dict[str, str]) -> list[tuple[str, str]]:
    doc = workload("wl", "lq")
    doc["metadata"]["annotations"] = annotations
    try:
        cp.apply([doc])
    except Forbidden as err:
        return _causes_of(err)
    return []


_LABELS = {
    "Invalid value": "FieldValueInvalid",
    "Forbidden": "FieldValueForbidden",
    "Too long": "FieldValueTooLong",
}


def _causes_of(err: Any) -> list[tuple[str, str]]:
    """(type, path) of each field error in a webhook denial's message."""
    text = str(err.message if hasattr(err, "message") else err).split("denied the request: ", 1)[1]
    found = set()
    for path in (f"metadata.annotations[{GATED}]", f"metadata.annotations[{BOOST}]"):
        for label, kind in _LABELS.items():
            if f"{path}: {label}" in text:
                found.add((kind, path))
    return sorted(found)


INVALID = [("FieldValueInvalid", f"metadata.annotations[{GATED}]")]


@pytest.mark.parametrize(
    ("value", "want"),
    [
        ("example.com/controller", []),  # valid AdmissionGatedBy annotation with single gate
        ("example.com/a,not.example.com/b", []),  # ... with multiple gates
        (" example.com/gate", []),  # leading space
        ("example.com/gate ,example.com/gate2", []),  # space before comma
        ("example.com/gate, example.com/gate2", []),  # space after comma
        ("example.com/gate ", []),  # trailing space
        ("this is an invalid value", INVALID),  # not in subdomain/path format
        ("duplicates.are/invalid,duplicates.are/invalid", INVALID),  # duplicate gates
        ("example.com/gate name", INVALID),  # space in path component
        ("example .com/gate", INVALID),  # space in domain component
        ("valid.com/gate,invalid gate.com/controller", INVALID),  # multiple gates, one containing space
        ("a.com/b,,c.com/d", INVALID),  # an empty gate name (validateAdmissionGatedByAnnotationFormat)
        ("example.com/" + "x" * 60, [("FieldValueTooLong", f"metadata.annotations[{GATED}]")]),  # > 63 chars
    ],
)
def test_admission_gated_by_annotation_on_create(value: str, want: list[tuple[str, str]]) -> None:
    assert _create(ControlPlane(controllers="kueue"), {GATED: value}) == want


def _update(before: str | None, after: str | None) -> list[tuple[str, str]]:
    cp = ControlPlane(controllers="kueue")
    doc = workload("wl", "lq")
    if before is not None:
        doc["metadata"]["annotations"] = {GATED: before}
    cp.apply([doc])
    wl = cp.client.get(Workload, "wl", "default")
    annotations = dict(wl.metadata.annotations or {})
    annotations.pop(GATED, None)
    if after is not None:
        annotations[GATED] = after
    try:
        cp.client.patch(Workload, "wl", {"metadata": {"annotations": {GATED: after}}}, "default")
    except Forbidden as err:
        return _causes_of(err)
    return []


FORBIDDEN = [("FieldValueForbidden", f"metadata.annotations[{GATED}]")]


@pytest.mark.parametrize(
    ("before", "after", "want"),
    [
        (None, "example.com/controller", FORBIDDEN),  # reject adding AdmissionGatedBy after creation
        ("example.com/controller1", None, []),  # allow removing ... with single gate
        ("example.com/controller1,example.com/controller2", None, []),  # ... with multiple gates
        ("example.com/controller1,example.com/controller2", "example.com/controller2", []),  # remove one gate
        (
            "example.com/controller1,example.com/controller2",
            "example.com/controller1,example.com/controller2,example.com/controller3",
            FORBIDDEN,
        ),  # inject a gate
    ],
)
def test_admission_gated_by_annotation_on_update(
    before: str | None, after: str | None, want: list[tuple[str, str]]
) -> None:
    assert _update(before, after) == want


@pytest.mark.parametrize(
    ("gate", "value", "want"),
    [
        (True, "10", []),  # valid priority-boost
        (True, "0", []),  # valid priority-boost zero
        (True, "-5", []),  # valid priority-boost negative
        (
            True,
            "invalid",
            [("FieldValueInvalid", f"metadata.annotations[{BOOST}]")],
        ),  # invalid priority-boost
        (True, "", [("FieldValueInvalid", f"metadata.annotations[{BOOST}]")]),  # empty string priority-boost
        (False, "invalid", []),  # invalid priority-boost when feature off
    ],
)
def test_priority_boost_annotation(gate: bool, value: str, want: list[tuple[str, str]]) -> None:
    cp = ControlPlane(controllers="kueue", feature_gates={"PriorityBoost": gate})
    assert _create(cp, {BOOST: value}) == want
