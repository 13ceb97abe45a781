"""Round trip of upstream-style core manifests: YAML -> model -> dict equals the input JSON.

``null`` in the input stands for "absent" (kbatch drops ``None`` on output, see ``kbatch.api.base``),
so nulls are removed from the expected side before comparing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from ruamel.yaml import YAML

from kbatch.api.core_v1 import Event, Namespace, Node, Pod, Service
from kbatch.api.meta import Resource
from kbatch.api.scheduling_v1 import PriorityClass

MANIFESTS = Path(__file__).parent / "manifests" / "core"
KINDS: dict[str, type[Resource]] = {
    "Pod": Pod,
    "Node": Node,
    "Namespace": Namespace,
    "Service": Service,
    "Event": Event,
    "PriorityClass": PriorityClass,
}


def _load(path: Path) -> dict[str, Any]:
    data = YAML(typ="safe").load(path.read_text())
    return json.loads(json.dumps(data))


def _drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value


@pytest.mark.parametrize("path", sorted(MANIFESTS.glob("*.yaml")), ids=lambda p: p.stem)
def test_manifest_round_trips(path: Path) -> None:
    data = _load(path)
    model = KINDS[data["kind"]].from_dict(data)
    assert model.to_dict() == _drop_nulls(data)
    assert type(model).from_json(model.to_json()) == model
    assert model.clone() == model


def _loc(err: ValidationError) -> list[str]:
    """pydantic locations as field paths: ``spec.containers[0].foo``."""
    paths = []
    for e in err.errors():
        text = ""
        for part in e["loc"]:
            text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
        paths.append(text)
    return paths


@pytest.mark.parametrize(
    ("kind", "patch", "where"),
    [
        ("Pod", {"spec": {"containers": [{"name": "a", "image": "b", "foo": 1}]}}, "spec.containers[0].foo"),
        ("Pod", {"spec": {"containers": [], "bogus": True}}, "spec.bogus"),
        (
            "Pod",
            {"spec": {"containers": [], "volumes": [{"name": "v", "emptyDirr": {}}]}},
            "spec.volumes[0].emptyDirr",
        ),
        ("Pod", {"status": {"podIp": "1.2.3.4"}}, "status.podIp"),
        (
            "Node",
            {"spec": {"taints": [{"key": "k", "effect": "NoSchedule", "extra": 1}]}},
            "spec.taints[0].extra",
        ),
        ("Service", {"spec": {"clusterIp": "None"}}, "spec.clusterIp"),
        ("Event", {"involvedObject": {"kind": "Pod", "nme": "x"}}, "involvedObject.nme"),
        ("PriorityClass", {"valu": 3}, "valu"),
    ],
)
def test_unknown_fields_rejected_with_path(kind: str, patch: dict[str, Any], where: str) -> None:
    with pytest.raises(ValidationError) as err:
        KINDS[kind].from_dict({"metadata": {"name": "x"}, **patch})
    assert where in _loc(err.value)


def test_bad_quantity_reports_its_path() -> None:
    data = {"spec": {"containers": [{"name": "a", "resources": {"limits": {"cpu": "lots"}}}]}}
    with pytest.raises(ValidationError) as err:
        Pod.from_dict(data)
    assert _loc(err.value) == ["spec.containers[0].resources.limits.cpu"]
    assert "quantities must match the regular expression" in str(err.value)


def test_enum_like_fields_decode_any_string() -> None:
    pod = Pod.from_dict({"spec": {"restartPolicy": "Sometimes", "containers": []}})
    assert pod.spec.restart_policy == "Sometimes"


def test_wire_aliases() -> None:
    pod = Pod.from_dict(
        {
            "spec": {
                "hostPID": True,
                "hostIPC": True,
                "setHostnameAsFQDN": True,
                "containers": [{"name": "a", "ports": [{"containerPort": 1, "hostIP": "0.0.0.0"}]}],
            },
            "status": {"podIPs": [{"ip": "a"}], "hostIPs": [{"ip": "b"}], "podIP": "a", "hostIP": "b"},
        }
    )
    out = pod.to_dict()
    assert set(out["status"]) == {"podIPs", "hostIPs", "podIP", "hostIP"}
    assert {"hostPID", "hostIPC", "setHostnameAsFQDN"} <= set(out["spec"])
    assert out["spec"]["containers"][0]["ports"][0]["hostIP"] == "0.0.0.0"
    svc = Service.from_dict(
        {
            "spec": {
                "clusterIP": "None",
                "clusterIPs": ["None"],
                "externalIPs": ["1.1.1.1"],
                "loadBalancerIP": "2.2.2.2",
                "sessionAffinityConfig": {"clientIP": {}},
            }
        }
    )
    assert set(svc.to_dict()["spec"]) == {
        "clusterIP",
        "clusterIPs",
        "externalIPs",
        "loadBalancerIP",
        "sessionAffinityConfig",
    }


def test_int_or_string_keeps_its_type() -> None:
    svc = Service.from_dict(
        {"spec": {"ports": [{"port": 80, "targetPort": 8080}, {"port": 81, "targetPort": "web"}]}}
    )
    assert [p["targetPort"] for p in svc.to_dict()["spec"]["ports"]] == [8080, "web"]
