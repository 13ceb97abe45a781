"""The dict-level reads hand out stored JSON: it must equal the typed read's ``to_dict()`` exactly
(same keys, same order), whichever write path produced it."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.api.frozen import edit
from kbatch.apiserver import APIServer, GarbageCollector
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore
from tests.apiserver.conftest import FakeClock

_names = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8).map(lambda s: "x" + s)
_quantities = st.sampled_from(["100m", "0.5", "1", "2e3", "1Gi", "64Mi", "1.5G", "1000000n", "7"])
_labels = st.dictionaries(_names, _names, max_size=3)


@st.composite
def pods(draw: st.DrawFn) -> dict[str, Any]:
    containers = []
    for i in range(draw(st.integers(1, 3))):
        c: dict[str, Any] = {"name": f"c{i}", "image": draw(st.sampled_from(["busybox", "python:3.12"]))}
        if draw(st.booleans()):
            c["command"] = ["sleep", str(draw(st.integers(0, 600)))]
        if draw(st.booleans()):
            cpu = draw(_quantities)
            c["resources"] = {"requests": {"cpu": cpu, "memory": draw(_quantities)}, "limits": {"cpu": cpu}}
        if draw(st.booleans()):
            c["env"] = [{"name": "A", "value": draw(_names)}]
        containers.append(c)
    spec: dict[str, Any] = {"containers": containers,
                            "restartPolicy": draw(st.sampled_from(["Never", "OnFailure", "Always"]))}
    if draw(st.booleans()):
        spec["tolerations"] = [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]
    if draw(st.booleans()):
        spec["terminationGracePeriodSeconds"] = draw(st.integers(0, 60))
    meta: dict[str, Any] = {"name": draw(_names), "namespace": "default", "labels": draw(_labels)}
    if draw(st.booleans()):
        meta["annotations"] = {"note": draw(st.text(max_size=10))}
    if draw(st.booleans()):
        meta["finalizers"] = ["example.com/hold"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _api(seed: int = 3) -> tuple[APIServer, FakeClock]:
    clock = FakeClock()
    return APIServer(MemoryStore(), builtin_registry(), now=clock.now, rng=random.Random(seed)), clock


def _check_same(api: APIServer) -> int:
    """Every pod and job: raw get == typed get; raw list == typed list. Returns the number checked."""
    checked = 0
    for model, api_version, kind in ((Pod, "v1", "Pod"), (Job, "batch/v1", "Job")):
        typed = api.list(model)
        raw = api.unstructured.list(api_version, kind)
        expected = {"apiVersion": typed.api_version, "kind": typed.kind, "metadata": typed.metadata.to_dict(),
                    "items": [i.to_dict() for i in typed.items]}
        assert json.dumps(raw) == json.dumps(expected)
        for item in typed.items:
            one = api.unstructured.get(api_version, kind, item.name, item.metadata.namespace)
            assert json.dumps(one) == json.dumps(api.get(model, item.name, item.metadata.namespace).to_dict())
            checked += 1
    return checked


@settings(max_examples=40, deadline=None)
@given(st.lists(pods(), min_size=1, max_size=4, unique_by=lambda p: p["metadata"]["name"]),
       st.lists(st.tuples(st.sampled_from(["update", "status", "status-update", "merge", "strategic",
                                           "json", "delete", "drop-finalizer"]),
                          st.integers(0, 3)), max_size=8))
def test_raw_reads_equal_typed_reads_after_every_write_path(manifests: list[dict[str, Any]],
                                                           ops: list[tuple[str, int]]) -> None:
    api, clock = _api()
    names = [api.unstructured.create(m)[0]["metadata"]["name"] for m in manifests]
    assert _check_same(api) == len(names)
    for op, index in ops:
        clock.advance(1)
        name = names[index % len(names)]
        try:
            pod = edit(api.get(Pod, name, "default"))
        except NotFound:
            continue
        if op == "update":
            pod.metadata.labels = {**(pod.metadata.labels or {}), "touched": "yes"}
            api.update(pod)
        elif op == "status":
            api.patch(Pod, name, {"status": {"phase": "Running", "conditions": [
                {"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:05Z"}]}},
                "default", status=True)
        elif op == "status-update":
            assert pod.status is not None
            pod.status.phase = "Running"
            api.update_status(pod)
        elif op == "merge":
            api.patch(Pod, name, {"metadata": {"annotations": {"m": "1"}}}, "default")
        elif op == "strategic":
            api.patch(Pod, name, {"spec": {"containers": [{"name": "c0", "image": "busybox:2"}]}}, "default",
                      patch_type="strategic")
        elif op == "json":
            # empty labels are not stored (omitempty), and a JSON patch cannot add under an absent map
            add = ({"op": "add", "path": "/metadata/labels/j", "value": "v"} if pod.metadata.labels else
                   {"op": "add", "path": "/metadata/labels", "value": {"j": "v"}})
            api.patch(Pod, name, [add], "default", patch_type="json")
        elif op == "delete":
            api.delete(Pod, name, "default")
        elif op == "drop-finalizer":
            api.patch(Pod, name, {"metadata": {"finalizers": None}}, "default")
        _check_same(api)


def test_raw_reads_after_gc_writes_and_graceful_delete() -> None:
    api, clock = _api()
    job = api.create(Job.model_validate({
        "metadata": {"name": "j", "namespace": "default"},
        "spec": {"template": {"spec": {"restartPolicy": "Never",
                                       "containers": [{"name": "c", "image": "busybox"}]}}}}))
    ref = {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": job.metadata.uid, "controller": True}
    for i in range(3):
        api.create(Pod.model_validate({
            "metadata": {"name": f"p{i}", "namespace": "default", "ownerReferences": [ref]},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "busybox"}]}}))
    api.delete(Job, "j", "default", propagation_policy="Orphan")  # orphan finalizer, GC strips refs
    gc = GarbageCollector(api)
    assert gc.sync() > 0
    assert api.get(Pod, "p0", "default").metadata.owner_references is None
    api.delete(Pod, "p1", "default")  # bound: graceful, deletionTimestamp set
    clock.advance(5)
    assert _check_same(api) == 3
    raw = api.unstructured.get("v1", "Pod", "p1", "default")
    assert raw["metadata"]["deletionTimestamp"] == "2026-01-01T00:00:30Z"


def test_raw_get_and_list_errors_and_selectors() -> None:
    api, _ = _api()
    for i in range(5):
        api.create(Pod.model_validate({
            "metadata": {"name": f"p{i}", "namespace": "default", "labels": {"n": str(i % 2)}},
            "spec": {"nodeName": f"node-{i}", "containers": [{"name": "c", "image": "busybox"}]}}))
    with pytest.raises(NotFound, match='pods "nope" not found'):
        api.unstructured.get("v1", "Pod", "nope", "default")
    listed = api.unstructured.list("v1", "Pod", "default", label_selector="n=1")
    assert [i["metadata"]["name"] for i in listed["items"]] == ["p1", "p3"]
    listed = api.unstructured.list("v1", "Pod", field_selector="spec.nodeName=node-4")
    assert [i["metadata"]["name"] for i in listed["items"]] == ["p4"]
    page = api.unstructured.list("v1", "Pod", "default", limit=2, label_selector="n=0")
    assert [i["metadata"]["name"] for i in page["items"]] == ["p0", "p2"]
    rest = api.unstructured.list("v1", "Pod", "default", limit=2, label_selector="n=0",
                                 continue_=page["metadata"]["continue"])
    assert [i["metadata"]["name"] for i in rest["items"]] == ["p4"]
    assert rest["metadata"]["resourceVersion"] == page["metadata"]["resourceVersion"]
    mutated = api.unstructured.get("v1", "Pod", "p0", "default")
    mutated["metadata"]["labels"]["n"] = "changed"
    assert api.get(Pod, "p0", "default").metadata.labels == {"n": "0"}


@pytest.mark.parametrize("write", ["update_status", "status patch"])
def test_status_writes_store_fields_in_declaration_order(write: str) -> None:
    """A status write starts from metadata and status only; the stored JSON must still read
    apiVersion, kind, metadata, spec, status (the order kubectl and upstream's encoder print)."""
    api, _ = _api()
    api.unstructured.create({"apiVersion": "v1", "kind": "Pod",
                             "metadata": {"name": "p", "namespace": "default"},
                             "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    if write == "update_status":
        pod = edit(api.get(Pod, "p", "default"))
        assert pod.status is not None
        pod.status.phase = "Running"
        api.update_status(pod)
    else:
        api.patch(Pod, "p", {"status": {"phase": "Running"}}, "default", status=True)
    stored = json.loads(api.store.range(b"/registry/pods/default/p").kvs[0].value)
    assert list(stored) == ["apiVersion", "kind", "metadata", "spec", "status"]
