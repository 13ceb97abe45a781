"""Projected volume sources as kube-apiserver validates them, through kbatch's API server.

Source: kubernetes ``pkg/apis/core/validation/validation.go`` (``validateProjectedVolumeSource``,
``validateProjectionSources``; a stored 1.3x copy was read for this audit, the
``TestValidateVolumes`` table itself was not). Each case is a Pod created through
``APIServer.create``; defaulting sets a serviceAccountToken's ``expirationSeconds`` to 3600.
Not translated: clusterTrustBundle and podCertificate sources (their fields are not validated by
kbatch, docs/apiserver.md "Deliberate differences"); ``AllowNonLocalProjectedTokenPath`` (an
update-only option).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.upstream_pod import FORBIDDEN, INVALID, REQUIRED, created, fields, pod

PV = "spec.volumes[0].projected"


def _projected(*sources: dict[str, Any], **fields_: Any) -> dict[str, Any]:
    return {"volumes": [{"name": "vol", "projected": {"sources": list(sources), **fields_}}]}


def _secret(name: str = "s", *paths: str) -> dict[str, Any]:
    return {"secret": {"name": name, "items": [{"key": "k", "path": p} for p in paths]}}


def _config_map(name: str = "c", *paths: str) -> dict[str, Any]:
    return {"configMap": {"name": name, "items": [{"key": "k", "path": p} for p in paths]}}


def _token(**token: Any) -> dict[str, Any]:
    return {"serviceAccountToken": {"path": "token", **token}}


def _downward(*paths: str) -> dict[str, Any]:
    items = [{"path": p, "fieldRef": {"fieldPath": "metadata.name"}} for p in paths]
    return {"downwardAPI": {"items": items}}


SUCCESS: dict[str, dict[str, Any]] = {
    "secret, configMap, downwardAPI and token on distinct paths": _projected(
        _secret("s", "a"), _config_map("c", "b"), _downward("c"), _token(expirationSeconds=600),
        defaultMode=0o644),
    "token with the defaulted expiry": _projected(_token()),
    "token expiry at 2^32 seconds": _projected(_token(expirationSeconds=1 << 32)),
}


@pytest.mark.parametrize("spec", SUCCESS.values(), ids=SUCCESS.keys())
def test_valid_projections_are_created(spec: dict[str, Any]) -> None:
    created(pod(spec))


ERRORS: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    ("defaultMode above 0777", _projected(_secret(), defaultMode=0o1000),
     [(f"{PV}.defaultMode", INVALID)]),
    ("secret without name", _projected({"secret": {}}), [(f"{PV}.sources[0].secret.name", REQUIRED)]),
    ("configMap without name", _projected({"configMap": {}}),
     [(f"{PV}.sources[0].configMap.name", REQUIRED)]),
    ("configMap item path with ..", _projected(_config_map("c", "a/../b")),
     [(f"{PV}.sources[0].configMap.items[0].path", INVALID)]),
    ("secret and configMap on one path", _projected(_secret("s", "p"), _config_map("c", "p")),
     [(PV, INVALID)]),
    ("downwardAPI path taken by a secret", _projected(_secret("s", "p"), _downward("p")), [(PV, INVALID)]),
    ("downwardAPI file with an absolute path", _projected(_downward("/abs")),
     [(f"{PV}.sources[0].downwardAPI.path", INVALID)]),
    ("two sources in one projection", _projected(_secret() | _config_map()),
     [(f"{PV}.sources[0]", FORBIDDEN)]),
    ("token without path", _projected(_token(path="")), [(f"{PV}.path", REQUIRED)]),
    ("token path escaping the volume", _projected(_token(path="../token")), [(f"{PV}.path", INVALID)]),
    ("token expiry under 10 minutes", _projected(_token(expirationSeconds=599)),
     [(f"{PV}.sources[0].serviceAccountToken.expirationSeconds", INVALID)]),
    ("token expiry over 2^32 seconds", _projected(_token(expirationSeconds=(1 << 32) + 1)),
     [(f"{PV}.sources[0].serviceAccountToken.expirationSeconds", INVALID)]),
]


@pytest.mark.parametrize(("spec", "expected"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_invalid_projections_are_rejected(spec: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert fields(pod(spec)) == expected
