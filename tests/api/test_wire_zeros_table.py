"""The wire-zero table against its oracles: the Go types it is generated from, and what kubectl's own
Go code writes for the kinds it can build offline (``kubectl create … --dry-run=client -o json``
marshals the typed object with encoding/json, so its ``{}`` and ``null`` are Go's)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kbatch.api.wire_zeros import with_wire_zeros
from kbatch.api.wire_zeros_strip import without_wire_zeros

ROOT = Path(__file__).resolve().parents[2]
TABLE = json.loads((ROOT / "kbatch" / "api" / "wire_zeros.json").read_text())
MIRROR = Path("/work/.mirror")
API, MACHINERY = MIRROR / "kubernetes+api" / "repo", MIRROR / "kubernetes+apimachinery" / "repo"


@pytest.mark.skipif(not (API.exists() and MACHINERY.exists()), reason="no k8s.io/api checkout here")
def test_table_is_what_the_tool_generates_from_the_go_types() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_wire_zeros
    finally:
        sys.path.pop(0)
    fresh = gen_wire_zeros.generate(API, MACHINERY)
    if fresh["source"] != TABLE["source"]:
        pytest.skip("the checkout is at another commit than the table was generated from")
    assert fresh == TABLE


def test_table_covers_every_served_builtin_kind_and_knows_the_upstream_classics() -> None:
    from kbatch.families import BUILTIN_FAMILIES, compose

    kinds = TABLE["kinds"]
    served = {f"{i.group}/{i.version}/{i.kind}".lstrip("/") for i in
              (spec.info for spec in compose(BUILTIN_FAMILIES).registry())
              if not i.group.endswith("x-k8s.io")}  # CRDs (Kueue, JobSet, scheduler-plugins) excepted
    assert served <= kinds.keys(), served - kinds.keys()
    assert {"v1/Pod", "batch/v1/Job", "batch/v1/CronJob", "v1/Service", "v1/Node",
            "resource.k8s.io/v1/ResourceClaim", "scheduling.k8s.io/v1beta1/PodGroup"} <= kinds.keys()
    by_path = {(k, ".".join(s["path"])): s["fill"] for k, structs in kinds.items() for s in structs}
    assert by_path[("v1/Pod", "spec.containers.[]")] == {"name": "", "resources": {}}
    assert by_path[("v1/Pod", "")] == {"metadata": {}, "spec": {"containers": None}, "status": {}}
    assert by_path[("v1/Service", "status")] == {"loadBalancer": {}}
    assert by_path[("batch/v1/Job", "spec.template")] == {"metadata": {}, "spec": {"containers": None}}
    assert by_path[("v1/Pod", "status.conditions.[]")] == {
        "type": "", "status": "", "lastProbeTime": None, "lastTransitionTime": None}
    # scalars, lists and pointers without omitempty: 0, "", null (a nil slice); Quantity's "0"
    assert by_path[("policy/v1/PodDisruptionBudget", "status")] == {
        "disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}
    assert by_path[("v1/Pod", "status.containerStatuses.[]")] == {
        "name": "", "state": {}, "lastState": {}, "ready": False, "restartCount": 0, "image": "",
        "imageID": ""}
    assert by_path[("rbac.authorization.k8s.io/v1/ClusterRole", "")]["rules"] is None
    assert by_path[("v1/Pod", "spec.containers.[].env.[].valueFrom.resourceFieldRef")] == {
        "resource": "", "divisor": "0"}
    assert by_path[("v1/Pod", "spec.volumes.[].ephemeral.volumeClaimTemplate.spec.dataSource")] == {
        "apiGroup": None, "kind": "", "name": ""}
    # omitempty scalars and pointers are not filled (Job counters, a PDB's minAvailable)
    assert "active" not in by_path.get(("batch/v1/Job", "status"), {})
    assert "minAvailable" not in by_path.get(("policy/v1/PodDisruptionBudget", "spec"), {})
    # omitzero (ObjectMeta.creationTimestamp) and pointers (Job.status.startTime) are never filled
    assert not any("creationTimestamp" in fill or "startTime" in fill for fill in by_path.values())


def _skeleton(structs: list[dict[str, Any]]) -> dict[str, Any]:
    """An object holding every struct path of the table once, each struct empty."""
    root: dict[str, Any] = {}
    for struct in structs:
        node: Any = root
        for step in struct["path"]:
            if step == "[]":
                if not node:
                    node.append({})
                node = node[0]
            else:
                node = node.setdefault(step, [] if _is_list(struct["path"], step) else {})
    return root


def _is_list(path: list[str], step: str) -> bool:
    return any(s == step and i + 1 < len(path) and path[i + 1] == "[]" for i, s in enumerate(path))


def _at(obj: Any, path: list[str]) -> Any:
    for step in path:
        obj = obj[0] if step == "[]" else obj[step]
    return obj


@pytest.mark.parametrize("key", sorted(TABLE["kinds"]))
def test_every_struct_path_of_every_kind_gets_what_go_writes(key: str) -> None:
    """Generated from the table: an object with every by-value struct path present and empty comes
    back with each unset by-value field as Go writes it, in Go's declared order."""
    version, kind = key.rsplit("/", 1)
    structs = TABLE["kinds"][key]
    obj = {"kind": kind, "apiVersion": version, **_skeleton(structs)}  # TypeMeta's order
    out = with_wire_zeros(obj)
    for struct in structs:
        got, had = _at(out, struct["path"]), _at(obj, struct["path"])
        for name, zero in struct["fill"].items():
            assert name in got, (key, struct["path"], name)
            assert name in had or got[name] == zero, (key, struct["path"], name)
        present = [k for k in got if k in struct["order"]]
        assert present == sorted(present, key=struct["order"].index), (key, struct["path"])
    assert with_wire_zeros(out) == out
    assert with_wire_zeros(without_wire_zeros(out)) == out


def _stripped(value: Any) -> Any:
    """What kbatch keeps of a Go-marshalled object: no ``{}``, no ``null``, no creationTimestamp."""
    if isinstance(value, dict):
        out = {k: _stripped(v) for k, v in value.items() if k != "creationTimestamp"}
        return {k: v for k, v in out.items() if v is not None and v != {}}
    if isinstance(value, list):
        return [_stripped(v) for v in value]
    return value


def _without_creation_timestamp(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_creation_timestamp(v) for k, v in value.items() if k != "creationTimestamp"}
    if isinstance(value, list):
        return [_without_creation_timestamp(v) for v in value]
    return value


KUBECTL = shutil.which("kubectl")
CREATE = (("job", "j", "--image=busybox"), ("cronjob", "c", "--image=busybox", "--schedule=* * * * *"),
          ("configmap", "cm", "--from-literal=a=b"), ("secret", "generic", "s", "--from-literal=a=b"),
          ("service", "clusterip", "s", "--tcp=80"), ("service", "nodeport", "n", "--tcp=80:8080"),
          ("priorityclass", "pc", "--value=5"), ("rolebinding", "rb", "--clusterrole=x", "--user=u"),
          ("clusterrolebinding", "crb", "--clusterrole=x", "--group=g"), ("quota", "q", "--hard=pods=2"),
          ("poddisruptionbudget", "p", "--selector=a=b", "--min-available=1"), ("serviceaccount", "sa"),
          ("namespace", "ns"))


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
@pytest.mark.parametrize("args", CREATE, ids=lambda a: "-".join(a[:2]))
def test_kubectl_client_side_go_output_is_rebuilt_from_what_kbatch_keeps(args: tuple[str, ...]) -> None:
    """kubectl's offline generators marshal with Go: drop their ``{}``/``null`` (as kbatch stores
    the object) and the wire pass puts back exactly what Go wrote, in Go's order. kubectl here is
    older than 1.37, so it still writes ``creationTimestamp: null``, which 1.37's ``omitzero`` drops."""
    assert KUBECTL is not None
    out = subprocess.run([KUBECTL, "create", *args, "--dry-run=client", "-o", "json"], capture_output=True,
                         text=True, timeout=60, check=True, env={"KUBECONFIG": "/dev/null"}).stdout
    go = _without_creation_timestamp(json.loads(out))
    rebuilt = with_wire_zeros(_stripped(go))
    assert json.dumps(rebuilt) == json.dumps(go)
    # and a body sent back as Go wrote it reads as what kbatch keeps, zeros and all put back the same
    assert json.dumps(with_wire_zeros(without_wire_zeros(go))) == json.dumps(go)
