"""Reading Go's unset fields back (kbatch.api.wire_zeros_strip): a whole body loses every field that
holds Go's zero unless the model requires it; a merge patch loses only its empty structs."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.policy_v1 import PodDisruptionBudget
from kbatch.api.wire_zeros import with_wire_zeros
from kbatch.api.wire_zeros_strip import without_empty_structs, without_wire_zeros

TABLE = json.loads((Path(__file__).resolve().parents[2] / "kbatch" / "api" / "wire_zeros.json").read_text())


def _pod(container: dict[str, Any], **status: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [container]}, "status": status}


def test_a_served_pod_reads_back_as_stored() -> None:
    stored = _pod({"name": "c", "image": "i", "env": [{"name": "CPU", "valueFrom": {"resourceFieldRef": {
        "resource": "limits.cpu"}}}]}, containerStatuses=[{"name": "c", "ready": True, "restartCount": 0,
                                                           "image": "i", "imageID": ""}])
    served = with_wire_zeros(stored)
    ref = served["spec"]["containers"][0]["env"][0]["valueFrom"]["resourceFieldRef"]
    assert ref == {"resource": "limits.cpu", "divisor": "0"}  # resource.Quantity's zero, by value
    assert served["spec"]["containers"][0]["resources"] == {}
    back = without_wire_zeros(served, Pod)
    assert "divisor" not in back["spec"]["containers"][0]["env"][0]["valueFrom"]["resourceFieldRef"]
    assert "resources" not in back["spec"]["containers"][0]
    assert with_wire_zeros(back) == served


def test_a_required_field_is_kept_as_sent() -> None:
    # an owner reference's uid is required by kbatch's model: an empty one is decoded, then refused
    # by validation as upstream, instead of failing to decode; a container's name defaults to ""
    # there, so dropping an empty one reads the same
    body = _pod({"name": "", "image": "i"})
    body["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Node", "name": "n", "uid": ""}]
    back = without_wire_zeros(body, Pod)
    assert back["metadata"]["ownerReferences"][0]["uid"] == ""
    assert "name" not in back["spec"]["containers"][0]
    assert Pod.model_validate(back).spec.containers[0].name == ""
    # without a model every zero goes
    assert "uid" not in without_wire_zeros(body)["metadata"]["ownerReferences"][0]


def test_zero_scalars_and_whole_zero_structs_go() -> None:
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b"},
           "spec": {}, "status": {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0,
                                  "expectedPods": 0}}
    assert without_wire_zeros(pdb, PodDisruptionBudget) == {
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b"}}
    pdb["status"]["currentHealthy"] = 2
    assert without_wire_zeros(pdb, PodDisruptionBudget)["status"] == {"currentHealthy": 2}


def test_a_merge_patch_keeps_its_scalars_and_nulls() -> None:
    """``0`` sets and ``null`` deletes in a merge patch; only ``{}`` means nothing."""
    patch = {"metadata": {}, "status": {"disruptionsAllowed": 0, "conditions": None}, "spec": {}}
    out = without_empty_structs(patch, "policy/v1", "PodDisruptionBudget")
    assert out == {"status": {"disruptionsAllowed": 0, "conditions": None}}
    debug = {"spec": {"ephemeralContainers": [{"name": "d", "image": "busybox", "resources": {},
                                               "securityContext": {"seccompProfile": {"type": ""}}}]}}
    (container,) = without_empty_structs(debug, "v1", "Pod")["spec"]["ephemeralContainers"]
    assert "resources" not in container and container["securityContext"] == {"seccompProfile": {"type": ""}}
    assert without_empty_structs({"x": 1}, "example.com/v1", "Custom") == {"x": 1}  # not in the table


def _skeleton(structs: list[dict[str, Any]]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for struct in structs:
        node: Any = root
        path = struct["path"]
        for i, step in enumerate(path):
            if step == "[]":
                if not node:
                    node.append({})
                node = node[0]
            elif step == "{}":
                node = node.setdefault("k", {})
            else:
                node = node.setdefault(step, [] if i + 1 < len(path) and path[i + 1] == "[]" else {})
    return root


KINDS = sorted(TABLE["kinds"])


@given(st.sampled_from(KINDS), st.data())
def test_filling_what_was_read_back_gives_the_same_answer(key: str, data: st.DataObject) -> None:
    """For any kind and any subset of its struct paths, filled with what Go writes: reading it back
    and serving it again answers the same bytes, and reading back never adds anything."""
    version, kind = key.rsplit("/", 1)
    structs = TABLE["kinds"][key]
    chosen = data.draw(st.lists(st.sampled_from(structs), max_size=6, unique_by=lambda s: tuple(s["path"])))
    obj = {"apiVersion": version, "kind": kind, **_skeleton(chosen)}
    served = with_wire_zeros(obj)
    before = copy.deepcopy(served)
    back = without_wire_zeros(served)
    assert served == before  # never changes its input
    assert with_wire_zeros(back) == served
    assert len(json.dumps(back)) <= len(json.dumps(served))
