"""downwardAPI and emptyDir volume sources as kube-apiserver validates them, through kbatch's API server.

Source: kubernetes/kubernetes ``pkg/apis/core/validation/validation.go`` (stored copies read for this
audit; the ``TestValidateVolumes`` table itself was not read): ``validateDownwardAPIVolumeSource`` /
``validateDownwardAPIVolumeFile`` (a file's errors carry the source's path, not the item's index,
as upstream's do), ``validateObjectFieldSelector`` with ``validVolumeDownwardAPIFieldPathExpressions``,
``validateContainerResourceFieldSelector`` with ``volume`` true (``containerName`` required), and the
emptyDir branch of ``validateVolumeSource`` (a negative ``sizeLimit`` is Forbidden). Each case is a
Pod created through ``APIServer.create`` (defaulting sets a file's fieldRef ``apiVersion: v1``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.upstream_pod import FORBIDDEN, INVALID, NOT_SUPPORTED, REQUIRED, created, fields, pod

DA = "spec.volumes[0].downwardAPI"


def _dapi(*items: dict[str, Any], **source: Any) -> dict[str, Any]:
    return {"volumes": [{"name": "vol", "downwardAPI": {"items": list(items), **source}}]}


def _field(path: str, field_path: str) -> dict[str, Any]:
    return {"path": path, "fieldRef": {"fieldPath": field_path}}


def _res(**ref: Any) -> dict[str, Any]:
    return {"path": "cpu", "resourceFieldRef": {"resource": "limits.cpu", **ref}}


def _empty_dir(**source: Any) -> dict[str, Any]:
    return {"volumes": [{"name": "vol", "emptyDir": source}]}


SUCCESS: dict[str, dict[str, Any]] = {
    "every volume field path": _dapi(*[_field(f"f{i}", p) for i, p in enumerate((
        "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
        "metadata.labels['app']"))]),
    "resourceFieldRef naming its container": _dapi(_res(containerName="abc", divisor="1m")),
    "file and default modes": _dapi(_field("name", "metadata.name") | {"mode": 0o400}, defaultMode=0o644),
    "emptyDir with a memory medium and a size limit": _empty_dir(medium="Memory", sizeLimit="1Gi"),
    "emptyDir with a zero size limit": _empty_dir(sizeLimit="0"),
}


@pytest.mark.parametrize("spec", SUCCESS.values(), ids=SUCCESS.keys())
def test_valid_sources_are_created(spec: dict[str, Any]) -> None:
    created(pod(spec))


ERRORS: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    ("validateDownwardAPIVolumeFile: path required", _dapi(_field("", "metadata.name")),
     [(f"{DA}.path", REQUIRED)]),
    ("ValidateLocalNonReservedPath: absolute path", _dapi(_field("/abs", "metadata.name")),
     [(f"{DA}.path", INVALID)]),
    ("ValidateLocalNonReservedPath: path starting with ..", _dapi(_field("..data", "metadata.name")),
     [(f"{DA}.path", INVALID)]),
    ("neither fieldRef nor resourceFieldRef", _dapi({"path": "p"}), [(DA, REQUIRED)]),
    ("fieldRef and resourceFieldRef together",
     _dapi(_field("p", "metadata.name") | _res(containerName="abc")),
     [(DA, INVALID)]),
    ("fieldPath no volume may name", _dapi(_field("p", "spec.nodeName")),
     [(f"{DA}.fieldRef.fieldPath", NOT_SUPPORTED)]),
    ("fieldPath no Pod field label", _dapi(_field("p", "metadata.whoops")),
     [(f"{DA}.fieldRef.fieldPath", INVALID)]),
    ("labels subscript that is no qualified name", _dapi(_field("p", "metadata.labels['Www.k8s.io/test']")),
     [(f"{DA}.fieldRef", INVALID)]),
    ("resourceFieldRef without containerName", _dapi(_res()),
     [(f"{DA}.resourceFieldRef.containerName", REQUIRED)]),
    ("resourceFieldRef resource no container resource", _dapi(_res(containerName="abc", resource="pods")),
     [(f"{DA}.resourceFieldRef.resource", NOT_SUPPORTED)]),
    ("resourceFieldRef divisor 2m for cpu", _dapi(_res(containerName="abc", divisor="2m")),
     [(f"{DA}.resourceFieldRef.divisor", INVALID)]),
    ("file mode above 0777", _dapi(_field("p", "metadata.name") | {"mode": 0o1000}),
     [(f"{DA}.mode", INVALID)]),
    ("defaultMode negative", _dapi(defaultMode=-1), [(f"{DA}.defaultMode", INVALID)]),
    ("emptyDir: negative sizeLimit", _empty_dir(sizeLimit="-1"),
     [("spec.volumes[0].emptyDir.sizeLimit", FORBIDDEN)]),
]


@pytest.mark.parametrize(("spec", "expected"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_invalid_sources_are_rejected(spec: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert fields(pod(spec)) == expected
