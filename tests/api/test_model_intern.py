"""Structural sharing of equal nested models (kbatch.api.model_intern.share_structure): an interned
object is indistinguishable from a fresh decode (value, encoding, fields sets, time zones, quantity
spellings), equal parts of different objects become one instance, and copies share nothing mutable."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from kbatch.api import model_intern
from kbatch.api.base import SharedFieldsSet
from kbatch.api.core_v1 import Pod
from kbatch.api.meta import Resource
from kbatch.api.model_copy import copy_model, share_fields_sets
from kbatch.api.model_intern import share_structure
from tests.api.test_model_shared_fields import RUNNING_POD, _id, _manifest_bytes, _models, _retained


def _containers(value: Any) -> list[tuple[str, Any]]:
    """(path, value) of every model, list and dict reachable from ``value``."""
    out: list[tuple[str, Any]] = []

    def walk(item: Any, path: str) -> None:
        if isinstance(item, BaseModel):
            out.append((path, item))
            for name, child in item.__dict__.items():
                walk(child, f"{path}.{name}")
        elif isinstance(item, list):
            out.append((path, item))
            for i, child in enumerate(item):
                walk(child, f"{path}[{i}]")
        elif isinstance(item, dict):
            out.append((path, item))
            for k, child in item.items():
                walk(child, f"{path}[{k}]")

    walk(value, "")
    return out


def _times(value: Any) -> list[tuple[str, Any]]:
    return [(f"{path}.{name}", v.tzinfo) for path, m in _models(value)
            for name, v in m.__dict__.items() if isinstance(v, datetime)]


def _assert_like_fresh(obj: BaseModel, fresh: BaseModel) -> None:
    assert obj == fresh and obj.to_json() == fresh.to_json() and obj.to_dict() == fresh.to_dict()
    for (path, a), (_, b) in zip(_models(obj), _models(fresh), strict=True):
        assert type(a) is type(b) and a.model_fields_set == b.model_fields_set, path
    assert _times(obj) == _times(fresh)


@pytest.mark.parametrize(("cls", "raw"), _manifest_bytes(), ids=_id)
def test_interned_objects_are_indistinguishable_from_fresh_decodes(cls: type[Resource], raw: bytes) -> None:
    objs = [cls.from_json(raw) for _ in range(3)]
    for obj in objs:
        share_structure(obj)
        _assert_like_fresh(obj, cls.from_json(raw))
        assert obj.to_json() == raw
        assert all(type(m.__pydantic_fields_set__) is SharedFieldsSet for _, m in _models(obj))


def test_equal_parts_of_different_pods_become_one_instance() -> None:
    a = Pod.from_json(RUNNING_POD)
    b = Pod.from_json(RUNNING_POD.replace(b'"name":"p"', b'"name":"q"').replace(b'"uid":"u"', b'"uid":"v"'))
    share_structure(a)
    share_structure(b)
    assert a.metadata is not b.metadata and a.metadata.name == "p" and b.metadata.name == "q"
    assert a.spec is b.spec and a.status is b.status
    c = Pod.from_json(RUNNING_POD.replace(b'"nodeName":"node-0"', b'"nodeName":"node-1"'))
    share_structure(c)
    assert c.spec is not a.spec and c.spec.node_name == "node-1" and a.spec.node_name == "node-0"
    assert c.spec.containers[0] is a.spec.containers[0] and c.spec.tolerations[0] is a.spec.tolerations[0]


def test_copies_of_interned_objects_share_nothing_mutable() -> None:
    a, b = Pod.from_json(RUNNING_POD), Pod.from_json(RUNNING_POD)
    share_structure(a)
    share_structure(b)
    clone = copy_model(a)
    held = {id(v) for _, v in _containers(a)} | {id(v) for _, v in _containers(b)}
    assert not [path for path, v in _containers(clone) if id(v) in held]
    clone.spec.containers[0].image = "other"
    clone.status.conditions[0].status = "False"
    assert a.to_json() == b.to_json() == RUNNING_POD


def test_a_class_whose_lookups_miss_stops_being_looked_up() -> None:
    """ObjectMeta carries a uid per object: after a window of misses it is no longer entered in the table."""
    pods = [Pod.from_json(RUNNING_POD.replace(b'"uid":"u"', b'"uid":"intern-%d"' % i))
            for i in range(model_intern._PROBE * 4)]
    for pod in pods:
        share_structure(pod)
    metas = sum(1 for key in model_intern._TABLE if key[0] is type(pods[0].metadata)
                and any(isinstance(v, str) and v.startswith("intern-") for v in key))
    assert metas <= 2 * model_intern._PROBE  # the rest of a window begun before, then one window of misses
    assert len({id(p.metadata) for p in pods}) == len(pods)


# --- property: values that compare equal but differ observably are never merged ---------------

_ZONES = [UTC, timezone(timedelta(hours=2)), timezone(timedelta(hours=-5))]
_QUANTITIES = ["1", "1000m", "1e3", "1k", "500m", "0.5", "128Mi", "134217728"]  # 1e3 == 1k, printed apart


@st.composite
def _pod_dicts(draw: st.DrawFn) -> dict[str, Any]:
    zone = draw(st.sampled_from(_ZONES))
    when = datetime(2025, 1, 1, tzinfo=UTC).astimezone(zone)
    container: dict[str, Any] = {"name": "main", "image": draw(st.sampled_from(["busybox", "nginx"])),
                                 "resources": {"requests": {"cpu": draw(st.sampled_from(_QUANTITIES))}}}
    if draw(st.booleans()):
        container["ports"] = [{"containerPort": draw(st.sampled_from([80, 8080]))}]
    if draw(st.booleans()):
        container["command"] = draw(st.sampled_from([[], ["sleep"], None]))
    spec: dict[str, Any] = {"containers": [container]}
    if draw(st.booleans()):
        spec["priority"] = draw(st.sampled_from([0, 1]))
    if draw(st.booleans()):
        selectors = [{}, {"a": "b"}, {"a": "b", "c": "d"}, {"c": "d", "a": "b"}]  # order is printed
        spec["nodeSelector"] = draw(st.sampled_from(selectors))
    status: dict[str, Any] = {"phase": draw(st.sampled_from(["Running", "Pending"]))}
    if draw(st.booleans()):
        status["conditions"] = [{"type": "Ready", "status": "True", "lastTransitionTime": when}]
    if draw(st.booleans()):
        status["startTime"] = when if draw(st.booleans()) else None
    if draw(st.booleans()):  # a status with an address: interned by parts, the last equal one shared
        ip = draw(st.sampled_from(["10.244.0.2", "10.244.0.3"]))
        status.update(podIP=ip, podIPs=[{"ip": ip}], hostIP="172.18.0.2", hostIPs=[{"ip": "172.18.0.2"}])
    return {"metadata": {"name": "p", "namespace": "default"}, "spec": spec, "status": status}


@settings(max_examples=150, deadline=None)
@given(st.lists(_pod_dicts(), min_size=2, max_size=6))
def test_interning_never_merges_observably_different_parts(docs: list[dict[str, Any]]) -> None:
    pods = [Pod.model_validate(doc) for doc in docs]
    for pod in pods:
        share_structure(pod)
    for pod, doc in zip(pods, docs, strict=True):
        _assert_like_fresh(pod, Pod.model_validate(doc))


def test_pods_alike_but_for_their_identity_take_a_fraction_of_the_memory() -> None:
    def shared_sets(raw: bytes) -> Pod:
        pod = Pod.from_json(raw)
        share_fields_sets(pod)
        return pod

    def interned(raw: bytes) -> Pod:
        pod = Pod.from_json(raw)
        share_structure(pod)
        return pod

    assert _retained(interned) < 0.5 * _retained(shared_sets)


def test_a_mutated_shared_instance_is_reported() -> None:
    a, b = Pod.from_json(RUNNING_POD), Pod.from_json(RUNNING_POD.replace(b'"uid":"u"', b'"uid":"mutated"'))
    share_structure(a)
    share_structure(b)
    assert a.status.conditions[0] is b.status.conditions[0] and not model_intern.mutated_shared_instances()
    a.status.conditions[0].status = "False"  # breaks the read-only contract: b changes too
    try:
        assert b.status.conditions[0].status == "False"
        assert a.status.conditions[0] in model_intern.mutated_shared_instances()
    finally:
        a.status.conditions[0].status = "True"
    assert not model_intern.mutated_shared_instances()


# --- structural keys: a whole subtree found by one lookup -----------------------------------


def _observably_equal(x: BaseModel, y: BaseModel) -> bool:
    pairs = list(zip(_models(x), _models(y), strict=False))
    return (x.to_json() == y.to_json() and len(_models(x)) == len(_models(y)) and _times(x) == _times(y)
            and all(type(a) is type(b) and a.model_fields_set == b.model_fields_set
                    for (_, a), (_, b) in pairs))


@settings(max_examples=150, deadline=None)
@given(_pod_dicts(), _pod_dicts())
def test_a_subtree_is_shared_exactly_when_it_is_observably_equal(
        a_doc: dict[str, Any], b_doc: dict[str, Any]) -> None:
    """Nested models with nested models (PodStatus, PodSpec, Container) are looked up first by
    their structure (before their parts are interned): found only when observably equal, and then
    found (the table starts empty, so nothing was dropped from it in between)."""
    model_intern._TABLE.clear()
    a, b = Pod.model_validate(a_doc), Pod.model_validate(b_doc)
    share_structure(a)
    share_structure(b)
    fa, fb = Pod.model_validate(a_doc), Pod.model_validate(b_doc)
    for part in ("status", "spec"):
        shared = getattr(a, part) is getattr(b, part)
        assert shared == _observably_equal(getattr(fa, part), getattr(fb, part))
    assert (a.spec.containers[0] is b.spec.containers[0]) == _observably_equal(
        fa.spec.containers[0], fb.spec.containers[0])
    _assert_like_fresh(a, fa)
    _assert_like_fresh(b, fb)
    assert not model_intern.mutated_shared_instances()


def test_a_subtree_found_by_its_structure_is_not_walked() -> None:
    first = Pod.from_json(RUNNING_POD)
    share_structure(first)
    second = Pod.from_json(RUNNING_POD.replace(b'"uid":"u"', b'"uid":"structural"'))
    fresh_status = second.status
    share_structure(second)
    assert second.status is first.status
    # the fresh status was dropped whole: its parts never got a shared fields set
    assert type(fresh_status.conditions[0].__pydantic_fields_set__) is set


def test_an_object_holding_a_canonical_instance_keeps_it_without_keying_it_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    first = Pod.from_json(RUNNING_POD)
    share_structure(first)
    # a status write's object shares the stored object's (canonical) spec: found by identity
    second = Pod.from_json(RUNNING_POD.replace(b'"uid":"u"', b'"uid":"other"'))
    second.spec = first.spec
    spec_class = type(first.spec)

    def no_key(obj: Any) -> Any:
        raise AssertionError("a canonical instance was keyed again")

    generated = model_intern._INTERNERS[spec_class].__globals__  # the spec class's intern function's names
    assert "skey" in generated
    monkeypatch.setitem(generated, "skey", no_key)
    monkeypatch.setitem(generated, "TABLE", {})  # a lookup would miss and enter it again
    share_structure(second)
    assert second.spec is first.spec
    assert second.status is first.status
    monkeypatch.undo()
    assert not model_intern.mutated_shared_instances()


def test_forgotten_canonical_instances_are_keyed_again() -> None:
    first = Pod.from_json(RUNNING_POD)
    share_structure(first)
    model_intern.reset_interning()
    assert not model_intern._CANON
    second = Pod.from_json(RUNNING_POD)
    share_structure(second)
    assert second.spec is not first.spec and second.spec == first.spec  # a new table: a new instance


_PROJECTED = (b'"volumes":[{"name":"kube-api-access-x","projected":{"defaultMode":420,"sources":['
              b'{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},'
              b'{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}}]}}],')
_CEPHFS = b'"volumes":[{"name":"c","cephfs":{"monitors":["m"]}}],'


def _with_volumes(volumes: bytes, uid: bytes) -> Pod:
    raw = RUNNING_POD.replace(b'"uid":"u"', b'"uid":"' + uid + b'"')
    return Pod.from_json(raw.replace(b'"restartPolicy"', volumes + b'"restartPolicy"'))


def test_volumes_are_shared_and_an_opaque_source_turns_off_only_its_own_object() -> None:
    """``Volume`` holds opaque ``dict[str, Any]`` sources it does not model (``cephfs``): they are keyed
    while unset, so equal volumes (the ServiceAccount plugin's projected one) become one instance and
    ``PodSpec`` keeps its structural lookups; a pod whose volume sets one is left as decoded."""
    a, b = _with_volumes(_PROJECTED, b"a"), _with_volumes(_PROJECTED, b"b")
    opaque = _with_volumes(_CEPHFS, b"c")
    volume = opaque.spec.volumes[0]
    for pod in (a, opaque, b):
        share_structure(pod)
    assert b.spec.volumes[0] is a.spec.volumes[0] and b.spec is a.spec
    assert opaque.spec.volumes[0] is volume and volume.cephfs == {"monitors": ["m"]}
    spec_interner = model_intern._INTERNERS[type(a.spec)]
    assert spec_interner.__globals__["SUB"][0]  # PodSpec is still looked up by structure
    _assert_like_fresh(opaque, _with_volumes(_CEPHFS, b"c"))
    assert not model_intern.mutated_shared_instances()


def _addressed(ip: str, started: str = "2025-01-01T00:00:00Z") -> Pod:
    raw = RUNNING_POD.replace(b'"phase":"Running"', b'"phase":"Running","hostIP":"172.18.0.2","hostIPs":'
                              b'[{"ip":"172.18.0.2"}],"podIP":"%s","podIPs":[{"ip":"%s"}]'
                              % (ip.encode(), ip.encode()))
    assert raw != RUNNING_POD
    return Pod.from_json(raw.replace(b"2025-01-01T00:00:00Z", started.encode()))


def test_statuses_with_addresses_share_their_parts_not_a_table_entry() -> None:
    """A status with a podIP belongs to one pod (``PodStatus.intern_identified_by``): it is never
    entered in the table; its conditions and host address lists are one instance across pods, and
    a copy of the last status of an address (an update carrying the status over) is that status."""
    a, b = _addressed("10.244.0.2"), _addressed("10.244.0.3")
    share_structure(a)
    share_structure(b)
    assert a.status is not b.status and a.status.pod_ip == "10.244.0.2" and b.status.pod_ip == "10.244.0.3"
    assert a.status.conditions is b.status.conditions and a.status.host_ips is b.status.host_ips
    assert a.status.container_statuses is b.status.container_statuses
    assert not [k for k, v in model_intern._TABLE.items() if type(v) is type(a.status)]
    carried = copy_model(a)
    share_structure(carried)
    assert carried.status is a.status
    later = _addressed("10.244.0.2", "2025-01-01T00:05:00Z")  # the address's next pod: not merged
    share_structure(later)
    assert later.status is not a.status and later.status.start_time != a.status.start_time
    for pod, ip in ((a, "10.244.0.2"), (b, "10.244.0.3"), (carried, "10.244.0.2")):
        _assert_like_fresh(pod, _addressed(ip))
