"""Ephemeral volumes as kube-apiserver validates them, through kbatch's API server.

Source: kubernetes ``pkg/apis/core/validation/validation.go`` (``validateEphemeralVolumeSource``,
``ValidatePersistentVolumeClaimTemplate``, ``ValidatePersistentVolumeClaimSpec``; the
``TestValidateVolumes`` "ephemeral" cases were not read). Each case is a Pod created through
``APIServer.create``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.upstream_pod import FORBIDDEN, INVALID, NOT_SUPPORTED, REQUIRED, created, fields, pod

T = "spec.volumes[0].ephemeral.volumeClaimTemplate"


def _ephemeral(template: dict[str, Any] | None) -> dict[str, Any]:
    source = {} if template is None else {"volumeClaimTemplate": template}
    return {"volumes": [{"name": "vol", "ephemeral": source}]}


def _spec(**spec: Any) -> dict[str, Any]:
    return {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, **spec}}


def test_a_valid_template_is_created() -> None:
    created(pod(_ephemeral(_spec(storageClassName="fast", volumeMode="Block"))))


ERRORS: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    ("validateEphemeralVolumeSource: template required", _ephemeral(None), [(T, REQUIRED)]),
    ("no access mode", _ephemeral(_spec(accessModes=[])), [(f"{T}.spec.accessModes", REQUIRED)]),
    ("unsupported access mode", _ephemeral(_spec(accessModes=["fakemode"])),
     [(f"{T}.spec.accessModes", NOT_SUPPORTED)]),
    ("ReadWriteOncePod with others", _ephemeral(_spec(accessModes=["ReadWriteOncePod", "ReadWriteMany"])),
     [(f"{T}.spec.accessModes", FORBIDDEN)]),
    ("no storage request", _ephemeral(_spec(resources={})), [(f"{T}.spec.resources[storage]", REQUIRED)]),
    ("zero storage request", _ephemeral(_spec(resources={"requests": {"storage": "0"}})),
     [(f"{T}.spec.resources[storage]", INVALID)]),
    ("unsupported volumeMode", _ephemeral(_spec(volumeMode="fakeVolumeMode")),
     [(f"{T}.spec.volumeMode", NOT_SUPPORTED)]),
]


@pytest.mark.parametrize(("spec", "expected"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_invalid_templates_are_rejected(spec: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert fields(pod(spec)) == expected
