"""The deprecated seccomp / AppArmor annotations of a Pod, and on create their agreement with the
``seccompProfile`` / ``appArmorProfile`` fields, through kbatch's API server.

Source: kubernetes ``pkg/apis/core/validation/validation.go`` (stored copy, commit 000f26050b9b):
``ValidateSeccompPodAnnotations``, ``ValidateSeccompProfile``, ``ValidateAppArmorPodAnnotations``,
``ValidateAppArmorProfileFormat`` (via ``ValidatePodSpecificAnnotations``), and, in
``ValidatePodCreate``, ``validateSeccompAnnotationsAndFields`` /
``validateAppArmorAnnotationsAndFieldsMatchOnCreate``. One case per branch of those functions (the
``TestValidateSeccompAnnotationsAndFields`` / ``TestValidateAppArmorAnnotationsAndFieldsMatchOnCreate``
tables were not read in the time this audit had). kbatch accepted every error case below before this
file was written.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api import edit
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Invalid
from tests.api.upstream_pod import FORBIDDEN, INVALID, causes, created, ctr, fields, server

SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_C = "container.seccomp.security.alpha.kubernetes.io/abc"
APPARMOR_C = "container.apparmor.security.beta.kubernetes.io/abc"


def _pod(annotations: dict[str, str], **spec: Any) -> Pod:
    return Pod.model_validate(
        {
            "metadata": {"name": "p", "namespace": "default", "annotations": annotations},
            "spec": {"containers": [ctr()], **spec},
        }
    )


def _seccomp(kind: str, profile: str | None = None) -> dict[str, Any]:
    return {"type": kind} if profile is None else {"type": kind, "localhostProfile": profile}


SUCCESS: dict[str, Pod] = {
    "seccomp annotations of every accepted form": _pod(
        {
            SECCOMP_POD: "runtime/default",
            SECCOMP_C: "localhost/profiles/a.json",
            "container.seccomp.security.alpha.kubernetes.io/other": "docker/default",
        }
    ),
    "AppArmor annotations for an existing container": _pod({APPARMOR_C: "localhost/foo"}),
    "empty AppArmor annotation": _pod({APPARMOR_C: ""}),
    "matching pod seccomp field and annotation (docker/default is RuntimeDefault)": _pod(
        {SECCOMP_POD: "docker/default"}, securityContext={"seccompProfile": _seccomp("RuntimeDefault")}
    ),
    "matching container Localhost seccomp": _pod(
        {SECCOMP_C: "localhost/p.json"},
        containers=[ctr(securityContext={"seccompProfile": _seccomp("Localhost", "p.json")})],
    ),
    "AppArmor from the pod field matches the container annotation": _pod(
        {APPARMOR_C: "unconfined"}, securityContext={"appArmorProfile": {"type": "Unconfined"}}
    ),
    "windows pods skip the AppArmor agreement": _pod(
        {APPARMOR_C: "runtime/default"},
        os={"name": "windows"},
        containers=[ctr(securityContext={"windowsOptions": {}})],
    ),
}


@pytest.mark.parametrize("obj", SUCCESS.values(), ids=SUCCESS.keys())
def test_valid_annotations_are_created(obj: Pod) -> None:
    created(obj)


A = "metadata.annotations"
C0 = "spec.containers[0].securityContext"
ERRORS: list[tuple[str, Pod, list[tuple[str, str]]]] = [
    ("bad pod seccomp annotation", _pod({SECCOMP_POD: "bogus"}), [(f"{A}.{SECCOMP_POD}", INVALID)]),
    (
        "container seccomp localhost climbing out",
        _pod({SECCOMP_C: "localhost/../x"}),
        [(f"{A}.{SECCOMP_C}", INVALID)],
    ),
    (
        "AppArmor annotation for a missing container",
        _pod({"container.apparmor.security.beta.kubernetes.io/nope": "runtime/default"}),
        [(f"{A}[container.apparmor.security.beta.kubernetes.io/nope]", INVALID)],
    ),
    ("bad AppArmor profile form", _pod({APPARMOR_C: "bogus"}), [(f"{A}[{APPARMOR_C}]", INVALID)]),
    (
        "pod seccomp type mismatch",
        _pod({SECCOMP_POD: "unconfined"}, securityContext={"seccompProfile": _seccomp("RuntimeDefault")}),
        [("spec.securityContext.seccompProfile.type", FORBIDDEN)],
    ),
    (
        "container seccomp Localhost against runtime/default",
        _pod(
            {SECCOMP_C: "runtime/default"},
            containers=[ctr(securityContext={"seccompProfile": _seccomp("Localhost", "p.json")})],
        ),
        [(f"{C0}.seccompProfile.type", FORBIDDEN)],
    ),
    (
        "container seccomp Localhost profile mismatch",
        _pod(
            {SECCOMP_C: "localhost/q.json"},
            containers=[ctr(securityContext={"seccompProfile": _seccomp("Localhost", "p.json")})],
        ),
        [(f"{C0}.seccompProfile.localhostProfile", FORBIDDEN)],
    ),
    (
        "AppArmor type mismatch",
        _pod(
            {APPARMOR_C: "unconfined"},
            containers=[ctr(securityContext={"appArmorProfile": {"type": "RuntimeDefault"}})],
        ),
        [(f"{C0}.appArmorProfile.type", FORBIDDEN)],
    ),
    (
        "AppArmor Localhost profile mismatch",
        _pod(
            {APPARMOR_C: "localhost/a"},
            containers=[
                ctr(securityContext={"appArmorProfile": {"type": "Localhost", "localhostProfile": "b"}})
            ],
        ),
        [(f"{C0}.appArmorProfile.localhostProfile", FORBIDDEN)],
    ),
]


@pytest.mark.parametrize(("obj", "expected"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_invalid_annotations_are_rejected(obj: Pod, expected: list[tuple[str, str]]) -> None:
    assert fields(obj) == expected


def test_messages_are_upstreams() -> None:
    obj = _pod(
        {SECCOMP_POD: "bogus", APPARMOR_C: "x"},
        containers=[ctr(securityContext={"appArmorProfile": {"type": "RuntimeDefault"}})],
    )
    assert [(f, m) for f, _, m in causes(obj)] == [
        (f"{A}.{SECCOMP_POD}", 'Invalid value: "bogus": must be a valid seccomp profile'),
        (f"{A}[{APPARMOR_C}]", 'Invalid value: "x": invalid AppArmor profile name: "x"'),
        (f"{C0}.appArmorProfile.type", "Forbidden: apparmor type in annotation and field must match"),
    ]


def test_a_job_template_is_checked_the_same() -> None:
    """``ValidatePodTemplateSpec`` runs ``ValidatePodSpecificAnnotations`` and both agreement checks."""
    template = {
        "metadata": {"annotations": {SECCOMP_POD: "bogus", APPARMOR_C: "unconfined"}},
        "spec": {
            "restartPolicy": "Never",
            "containers": [ctr(securityContext={"appArmorProfile": {"type": "RuntimeDefault"}})],
        },
    }
    obj = Job.model_validate(
        {"metadata": {"name": "j", "namespace": "default"}, "spec": {"template": template}}
    )
    assert fields(obj) == [
        (f"spec.template.annotations.{SECCOMP_POD}", INVALID),
        ("spec.template.spec.containers[0].securityContext.appArmorProfile.type", FORBIDDEN),
    ]


@pytest.mark.parametrize(
    ("before", "after", "detail"),
    [
        (
            {APPARMOR_C: "runtime/default"},
            {APPARMOR_C: "unconfined"},
            "may not remove or update AppArmor annotations",
        ),
        ({APPARMOR_C: "runtime/default"}, {}, "may not remove or update AppArmor annotations"),
        ({}, {APPARMOR_C: "runtime/default"}, "may not add AppArmor annotations"),
    ],
    ids=["changed", "removed", "added"],
)
def test_apparmor_annotations_are_fixed_at_create(
    before: dict[str, str], after: dict[str, str], detail: str
) -> None:
    """``ValidatePodSpecificAnnotationUpdates``: an update may not add, change or remove them."""
    api = server()
    stored = edit(api.create(_pod(before)))
    stored.metadata.annotations = {"other": "x", **after}
    with pytest.raises(Invalid) as err:
        api.update(stored)
    causes = err.value.status.to_dict()["details"]["causes"]
    assert [(c["field"], c["message"]) for c in causes] == [(f"{A}[{APPARMOR_C}]", f"Forbidden: {detail}")]


def test_other_annotations_may_change() -> None:
    api = server()
    stored = edit(api.create(_pod({APPARMOR_C: "runtime/default", SECCOMP_POD: "unconfined"})))
    stored.metadata.annotations = {**(stored.metadata.annotations or {}), "team": "a"}
    assert api.update(stored).metadata.annotations["team"] == "a"
