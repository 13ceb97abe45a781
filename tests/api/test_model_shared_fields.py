"""Shared fields sets (kbatch.api.model_copy.share_fields_sets, kbatch.api.base.share_fields_set):
an object whose nested models use shared fields sets (SharedFieldsSet) is indistinguishable from a
fresh decode in
value, encoding and ``model_fields_set``; assigning, copying and pickling give private sets again and
never change another object sharing the same set."""

from __future__ import annotations

import copy
import gc
import pickle
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from ruamel.yaml import YAML

from kbatch.api.base import SharedFieldsSet, private_fields_set
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Event, Node, Pod
from kbatch.api.meta import Resource
from kbatch.api.model_copy import copy_model, share_fields_sets
from kbatch.apiserver.codec import set_resource_version
from kbatch.runtime.cache.indexer import Indexer

MANIFESTS = Path(__file__).parent / "manifests"
MODELS: dict[str, type[Resource]] = {"Pod": Pod, "Job": Job, "Node": Node, "Event": Event}
RUNNING_POD = (
    b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default","uid":"u",'
    b'"creationTimestamp":"2025-01-01T00:00:00Z"},"spec":{"containers":[{"name":"main","image":"busybox",'
    b'"resources":{"requests":{"cpu":"500m","memory":"128Mi"}}}],"restartPolicy":"Never",'
    b'"nodeName":"node-0","tolerations":[{"key":"k","operator":"Exists","effect":"NoExecute",'
    b'"tolerationSeconds":300}]},"status":{"phase":"Running","conditions":[{"type":"Ready",'
    b'"status":"True","lastTransitionTime":"2025-01-01T00:00:00Z"}],"startTime":"2025-01-01T00:00:00Z",'
    b'"containerStatuses":[{"name":"main","state":{"running":{"startedAt":"2025-01-01T00:00:00Z"}},'
    b'"ready":true,"restartCount":0,"image":"busybox","imageID":"","started":true}],"qosClass":"Burstable"}}'
)


def _manifest_bytes() -> list[tuple[type[Resource], bytes]]:
    out = [(Pod, RUNNING_POD)]
    for path in sorted(MANIFESTS.rglob("*.yaml")):
        if path.name.startswith("invalid"):
            continue
        for doc in YAML(typ="safe").load_all(path.read_text()):
            if doc and doc.get("kind") in MODELS:
                cls = MODELS[doc["kind"]]
                out.append((cls, cls.model_validate(doc).to_json()))
    return out


def _models(value: Any, path: str = "") -> list[tuple[str, BaseModel]]:
    """(path, model) of ``value`` and every model nested in it, in a fixed order."""
    if isinstance(value, BaseModel):
        out = [(path, value)]
        for name, item in value.__dict__.items():
            out += _models(item, f"{path}.{name}")
        return out
    if isinstance(value, list):
        return [m for i, item in enumerate(value) for m in _models(item, f"{path}[{i}]")]
    if isinstance(value, dict):
        return [m for k, item in value.items() for m in _models(item, f"{path}[{k}]")]
    return []


def _id(value: Any) -> str:
    return value.__name__ if isinstance(value, type) else ""


@pytest.mark.parametrize(("cls", "raw"), _manifest_bytes(), ids=_id)
def test_shared_object_is_indistinguishable_from_a_fresh_decode(cls: type[Resource], raw: bytes) -> None:
    fresh, shared, other = cls.from_json(raw), cls.from_json(raw), cls.from_json(raw)
    share_fields_sets(shared)
    share_fields_sets(other)
    assert shared == fresh and shared.to_json() == fresh.to_json() == raw
    assert shared.to_dict() == fresh.to_dict()
    pairs = zip(_models(fresh), _models(shared), _models(other), strict=True)
    for (path, a), (_, b), (_, c) in pairs:
        assert b.model_fields_set == a.model_fields_set, path
        assert type(b.__pydantic_fields_set__) is SharedFieldsSet, path
        assert b.__pydantic_fields_set__ is c.__pydantic_fields_set__, path  # one set per distinct names


def test_assignment_after_sharing_marks_only_the_assigned_object() -> None:
    a, b = Pod.from_json(RUNNING_POD), Pod.from_json(RUNNING_POD)
    share_fields_sets(a)
    share_fields_sets(b)
    assert a.spec.__pydantic_fields_set__ is b.spec.__pydantic_fields_set__
    a.spec.priority = 5
    a.spec.node_name = "node-1"  # already set: stays set
    assert "priority" in a.spec.model_fields_set and "priority" not in b.spec.model_fields_set
    assert type(a.spec.__pydantic_fields_set__) is set
    assert b.spec.priority is None and b.to_json() == RUNNING_POD


def test_copies_of_shared_objects_get_private_mutable_sets() -> None:
    pod = Pod.from_json(RUNNING_POD)
    share_fields_sets(pod)
    for clone in (copy.copy(pod), copy.deepcopy(pod), pod.model_copy(deep=True)):
        assert clone == pod
        assert type(clone.__pydantic_fields_set__) is set
        clone.__pydantic_fields_set__.add("status")
    assert type(pod.__pydantic_fields_set__) is SharedFieldsSet


def test_pickling_keeps_shared_sets_shared_and_assignments_still_copy_them() -> None:
    """A saved control plane keeps its informers' shared sets (read only: nothing adds to them)."""
    pods = [Pod.from_json(RUNNING_POD) for _ in range(2)]
    for pod in pods:
        share_fields_sets(pod)
    first, second = pickle.loads(pickle.dumps(pods))
    assert first == pods[0] and first.to_json() == RUNNING_POD
    assert type(first.__pydantic_fields_set__) is SharedFieldsSet
    assert first.__pydantic_fields_set__ is second.__pydantic_fields_set__  # one set in the image
    first.status.message = "m"  # type: ignore[union-attr]
    assert "message" in first.status.model_fields_set  # type: ignore[union-attr]
    assert "message" not in second.status.model_fields_set  # type: ignore[union-attr]


def test_copy_model_keeps_shared_sets_and_names_added_to_a_copy_stay_private() -> None:
    """copy_model keeps a shared set (it cannot be changed in place); every way kbatch adds a
    name to a copy gives the copy a private set first, so the source and the table never change."""
    pod = Pod.from_json(RUNNING_POD)
    share_fields_sets(pod)
    before = {path: set(m.model_fields_set) for path, m in _models(pod)}
    clone = copy_model(pod)
    assert clone == pod
    assert clone.__pydantic_fields_set__ is pod.__pydantic_fields_set__
    set_resource_version(clone, 7)  # adds resource_version to the copy's metadata names
    clone.spec.priority = None  # assignment of a field not set yet
    private_fields_set(clone.status).add("reason")
    assert "resource_version" in clone.metadata.model_fields_set
    assert {"priority"} <= clone.spec.model_fields_set and "reason" in clone.status.model_fields_set
    assert {path: set(m.model_fields_set) for path, m in _models(pod)} == before
    assert all(type(m.__pydantic_fields_set__) is SharedFieldsSet for _, m in _models(pod))
    assert copy_model(pod).to_json() == pod.to_json()
    updated = pod.model_copy(update={"kind": "Pod", "status": None})
    assert updated.status is None and pod.status is not None
    assert {"kind", "status"} <= updated.model_fields_set


def test_private_fields_set_thaws_in_place() -> None:
    pod = Pod.from_json(RUNNING_POD)
    share_fields_sets(pod)
    names = private_fields_set(pod.spec)
    names.add("priority")
    assert pod.spec.__pydantic_fields_set__ is names
    assert private_fields_set(pod.spec) is names


FIELDS = st.sampled_from([("spec", "priority", 7), ("spec", "node_name", "n2"), ("spec", "hostname", "h"),
                          ("metadata", "labels", {"a": "b"}), ("metadata", "name", "q"),
                          ("status", "phase", "Succeeded"), ("status", "message", "m")])


@settings(max_examples=60, deadline=None)
@given(st.lists(FIELDS, max_size=6))
def test_assignments_behave_alike_on_shared_and_private_objects(steps: list[tuple[str, str, Any]]) -> None:
    shared, private, bystander = (Pod.from_json(RUNNING_POD) for _ in range(3))
    share_fields_sets(shared)
    share_fields_sets(bystander)
    for part, name, value in steps:
        setattr(getattr(shared, part), name, value)
        setattr(getattr(private, part), name, value)
        assert shared == private and shared.to_json() == private.to_json()
        for (path, a), (_, b) in zip(_models(shared), _models(private), strict=True):
            assert a.model_fields_set == b.model_fields_set, path
    assert bystander.to_json() == RUNNING_POD
    assert all(type(m.__pydantic_fields_set__) is SharedFieldsSet for _, m in _models(bystander))


def test_indexer_keeps_objects_with_shared_sets() -> None:
    pod = Pod.from_json(RUNNING_POD)
    Indexer().upsert(pod)
    assert all(type(m.__pydantic_fields_set__) is SharedFieldsSet for _, m in _models(pod))


def _retained(make: Any, n: int = 300) -> float:
    raws = [RUNNING_POD.replace(b'"p"', b'"p%d"' % i) for i in range(n)]
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [make(raw) for raw in raws]
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert len(kept) == n
    return used / n


def test_sharing_roughly_halves_a_running_pods_memory() -> None:
    def shared(raw: bytes) -> Pod:
        pod = Pod.from_json(raw)
        share_fields_sets(pod)
        return pod

    assert _retained(shared) < 0.65 * _retained(Pod.from_json)
