"""Volume sources and volume mounts as kube-apiserver validates them, through kbatch's API server.

Source: kubernetes/kubernetes ``pkg/apis/core/validation/validation.go`` (stored copy at commit
000f2605): ``validateKeyToPath``, ``ValidateLocalNonReservedPath``, ``validateLocalDescendingPath``,
``validatePathNoBacksteps``, ``validateHostPathVolumeSource`` / ``validateHostPathType`` and the
subPath checks of ``ValidateVolumeMounts``. Cases are taken from those functions' branches (the
``TestValidateVolumes`` table itself was not read for this audit; its PV, iSCSI, RBD, ... cases are
for sources kbatch keeps as plain mappings). Each case is a Pod created through ``APIServer.create``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.upstream_pod import INVALID, NOT_SUPPORTED, REQUIRED, created, ctr, fields, pod

V0 = "spec.volumes[0]"


def _cm(**fields_: Any) -> dict[str, Any]:
    return {"name": "vol", "configMap": {"name": "cm", **fields_}}


def _with_mount(**mount: Any) -> dict[str, Any]:
    return {"volumes": [{"name": "vol", "emptyDir": {}}],
            "containers": [ctr(volumeMounts=[{"name": "vol", "mountPath": "/data", **mount}])]}


SUCCESS: dict[str, dict[str, Any]] = {
    "configMap items with a nested relative path and mode": {"volumes": [_cm(
        items=[{"key": "k", "path": "dir/file", "mode": 0o644}], defaultMode=0o777)]},
    "secret with default mode 0": {"volumes": [
        {"name": "vol", "secret": {"secretName": "s", "defaultMode": 0}}]},
    "hostPath with a supported type": {"volumes": [
        {"name": "vol", "hostPath": {"path": "/tmp", "type": "Directory"}}]},
    "mount with a relative subPath": _with_mount(subPath="a/b"),
    "mount with a subPathExpr": _with_mount(subPathExpr="$(POD_NAME)"),
}


@pytest.mark.parametrize("spec", SUCCESS.values(), ids=SUCCESS.keys())
def test_valid_volumes_are_created(spec: dict[str, Any]) -> None:
    created(pod(spec))


# (case, spec, expected (field, reason) list)
ERRORS: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    ("validateKeyToPath: key and path required", {"volumes": [_cm(items=[{}])]},
     [(f"{V0}.configMap.items[0].key", REQUIRED), (f"{V0}.configMap.items[0].path", REQUIRED)]),
    ("ValidateLocalNonReservedPath: absolute item path",
     {"volumes": [_cm(items=[{"key": "k", "path": "/etc"}])]},
     [(f"{V0}.configMap.items[0].path", INVALID)]),
    ("validatePathNoBacksteps: item path with ..", {"volumes": [_cm(items=[{"key": "k", "path": "a/../b"}])]},
     [(f"{V0}.configMap.items[0].path", INVALID)]),
    ("ValidateLocalNonReservedPath: item path starting with ..",
     {"volumes": [_cm(items=[{"key": "k", "path": "..a"}])]},
     [(f"{V0}.configMap.items[0].path", INVALID)]),
    ("validateKeyToPath: mode above 0777",
     {"volumes": [_cm(items=[{"key": "k", "path": "p", "mode": 0o1000}])]},
     [(f"{V0}.configMap.items[0].mode", INVALID)]),
    ("validateConfigMapVolumeSource: negative defaultMode", {"volumes": [_cm(defaultMode=-1)]},
     [(f"{V0}.configMap.defaultMode", INVALID)]),
    ("validateSecretVolumeSource: defaultMode above 0777",
     {"volumes": [{"name": "vol", "secret": {"secretName": "s", "defaultMode": 512}}]},
     [(f"{V0}.secret.defaultMode", INVALID)]),
    ("validateHostPathVolumeSource: backsteps",
     {"volumes": [{"name": "vol", "hostPath": {"path": "/foo/.."}}]},
     [(f"{V0}.hostPath.path", INVALID)]),
    ("validateHostPathType: unsupported type",
     {"volumes": [{"name": "vol", "hostPath": {"path": "/tmp", "type": "invalid"}}]},
     [(f"{V0}.hostPath.type", NOT_SUPPORTED)]),
    ("ValidateVolumeMounts: absolute subPath", _with_mount(subPath="/abs"),
     [("spec.containers[0].volumeMounts.subPath", INVALID)]),
    ("ValidateVolumeMounts: subPath with ..", _with_mount(subPath="../up"),
     [("spec.containers[0].volumeMounts.subPath", INVALID)]),
    ("ValidateVolumeMounts: subPath and subPathExpr", _with_mount(subPath="a", subPathExpr="$(B)"),
     [("spec.containers[0].volumeMounts[0].subPathExpr", INVALID)]),
]


@pytest.mark.parametrize(("spec", "expected"), [(s, e) for _, s, e in ERRORS], ids=[n for n, _, _ in ERRORS])
def test_invalid_volumes_are_rejected(spec: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert fields(pod(spec)) == expected


def test_file_mode_message() -> None:
    from tests.api.upstream_pod import causes

    (_, _, message), *_ = causes(pod({"volumes": [_cm(defaultMode=-1)]}))
    assert message == "Invalid value: -1: must be a number between 0 and 0777 (octal), both inclusive"
