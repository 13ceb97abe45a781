"""Patches merged into the decode cache's object (``patch._decode_parts``, :mod:`kbatch.apiserver.
typed_merge`), and status patches decoding only metadata/status: property tests that the result (values
and, at every depth, which fields are set), the error, and what ends up stored are exactly the general
path's (merge the patch into the whole stored document, decode all of it). The held object is sometimes
given shared fields sets, as the informer's interning leaves it."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.base import KubeModel, format_time
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import StatusError
from kbatch.api.model_copy import share_fields_sets
from kbatch.api.quantity import Quantity
from kbatch.apiserver import APIServer
from kbatch.apiserver import patch as patch_module
from kbatch.apiserver.codec import decode
from kbatch.apiserver.decoding import decode_dict
from kbatch.apiserver.patch import apply_patch
from kbatch.apiserver.raw import raw_dict
from kbatch.apiserver.typed_merge import view
from kbatch.apiserver.update import read_kv
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore
from tests.api.test_core_v1_properties import pods

NAMES = st.sampled_from(["a", "b", "app", "batch.kubernetes.io/job-name"])
VALUES = st.one_of(st.sampled_from(["x", "y", "-bad-", ""]), st.none(), st.just(5))
FINALIZERS = st.sampled_from(["batch.kubernetes.io/job-tracking", "example.com/x", "bad finalizer"])
T0 = "2025-01-01T00:00:00Z"


def _maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(strategy, strategy, st.just(5), st.none())  # now and then a wrong type or null


def _some(options: dict[str, st.SearchStrategy[Any]], few: bool) -> st.SearchStrategy[dict[str, Any]]:
    """Maps drawing their keys from ``options``: any subset, or (``few``) at most two keys, so that the
    effect of each key is seen alone too (hypothesis draws most optional keys most of the time)."""
    if not few:
        return st.fixed_dictionaries({}, optional=options)
    return st.lists(st.sampled_from(sorted(options)), max_size=2, unique=True).flatmap(
        lambda keys: st.fixed_dictionaries({k: options[k] for k in keys}))


def _metadata(noisy: bool = True, few: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    """Metadata patches; ``noisy``: now and then an unknown field or a ``$patch`` directive (which
    send the whole patch, or the whole level, another way)."""
    noise = {"bogus": st.just(1), "$patch": st.sampled_from(["replace", "delete"])} if noisy else {}
    return _some({**noise,
        "labels": _maybe(st.dictionaries(NAMES, VALUES, max_size=3)),
        "annotations": _maybe(st.dictionaries(NAMES, VALUES, max_size=2)),
        "finalizers": _maybe(st.lists(FINALIZERS, max_size=3)),
        "$deleteFromPrimitiveList/finalizers": st.lists(FINALIZERS, max_size=2),
        "resourceVersion": st.sampled_from(["1", "2", "3", "x"]),
        "name": st.sampled_from(["renamed"]),
        "generation": st.integers(0, 9),
        "ownerReferences": st.lists(st.fixed_dictionaries({
            "apiVersion": st.just("batch/v1"), "kind": st.just("Job"), "name": st.sampled_from(["j", ""]),
            "uid": st.sampled_from(["u1", "u2"]), "controller": st.booleans()}), max_size=2),
    }, few)


def _condition() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"type": st.sampled_from(["Ready", "PodScheduled", "Custom"])},
        optional={"status": st.sampled_from(["True", "False", "Maybe", 5]),
                  "lastTransitionTime": st.sampled_from([T0, "not a time"]), "reason": VALUES,
                  "$patch": st.just("delete")})


def _status(few: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    return _some({
        "phase": st.sampled_from(["Running", "Succeeded", "Bogus", 5, None]),
        "startTime": st.sampled_from([T0, "yesterday", None]),
        "conditions": _maybe(st.lists(_condition(), max_size=3)),
        "$setElementOrder/conditions": st.lists(st.fixed_dictionaries(
            {"type": st.sampled_from(["Ready", "PodScheduled"])}), max_size=2),
        "containerStatuses": st.lists(st.fixed_dictionaries({
            "name": st.sampled_from(["main", "x"]), "image": st.just("busybox"), "imageID": st.just(""),
            "ready": st.booleans(), "restartCount": st.integers(-1, 2),
            "state": st.sampled_from([{}, {"running": {"startedAt": T0}}])}), max_size=1),
        "bogus": st.just(1),
        "qosClass": st.sampled_from(["BestEffort", "Burstable"]),
    }, few)


def _container() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"name": st.sampled_from(["main", "x", "c"])}, optional={
        "image": st.sampled_from(["busybox", "", 5]),
        "env": st.lists(st.fixed_dictionaries({"name": st.sampled_from(["A", "B"])},
                                              optional={"value": VALUES, "$patch": st.just("delete")}),
                        max_size=2),
        "resources": st.sampled_from([{"requests": {"cpu": "1"}}, {"limits": {"memory": "1Gi"}},
                                      {"requests": {"cpu": "lots"}}, {"requests": None}]),
        "$patch": st.sampled_from(["delete", "replace"]),
    })


def _spec(few: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    return _some({
        "activeDeadlineSeconds": st.sampled_from([5, -1, None, "x"]),
        "nodeSelector": _maybe(st.dictionaries(NAMES, VALUES, max_size=2)),
        "containers": _maybe(st.lists(_container(), max_size=2)),
        "$setElementOrder/containers": st.lists(st.fixed_dictionaries(
            {"name": st.sampled_from(["main", "x"])}), max_size=2),
        "tolerations": st.lists(st.fixed_dictionaries({"key": st.sampled_from(["k", ""]),
                                                       "operator": st.just("Exists")}), max_size=1),
        "schedulingGates": st.lists(st.fixed_dictionaries({"name": st.sampled_from(["g", "h"])}), max_size=2),
        "securityContext": st.sampled_from([{"runAsUser": 1}, {}, {"$patch": "delete"}, None]),
        "priority": st.sampled_from([1, None]),
        "bogus": st.just(1),
        "$retainKeys": st.just(["containers"]),
    }, few)


PATCHES = st.one_of(
    st.fixed_dictionaries({"metadata": _metadata()}),
    st.fixed_dictionaries({"metadata": _metadata(noisy=False)}),
    st.fixed_dictionaries({}, optional={"metadata": _metadata(), "status": _maybe(_status())}),
    st.fixed_dictionaries({"metadata": _metadata()},
                          optional={"spec": st.just({"activeDeadlineSeconds": 5})}),
    st.fixed_dictionaries({}, optional={"metadata": _metadata(), "spec": _maybe(_spec()),
                                        "kind": st.sampled_from(["Pod", "", "Job"]),
                                        "apiVersion": st.sampled_from(["v1", ""]),
                                        "$patch": st.just("replace")}),
)
PATCH_TYPES = st.sampled_from(["merge", "strategic"])


def _server() -> APIServer:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return APIServer(MemoryStore(), builtin_registry(), now=lambda: now, rng=random.Random(1))


def _stored_pod(server: APIServer, data: dict[str, Any], running: bool) -> None:
    spec = {k: v for k, v in data["spec"].items() if k != "priority"}  # set by admission, not by users
    meta = {**data["metadata"], "name": "p", "finalizers": ["example.com/x"]}
    data = {**data, "metadata": meta, "spec": spec}
    server.create(Pod.model_validate(data))
    if running:
        server.patch(Pod, "p", {"status": {"phase": "Running", "startTime": T0, "conditions": [
            {"type": "Ready", "status": "True", "lastTransitionTime": T0}]}}, "default",
            patch_type="strategic", status=True)


def _outcome(fn: Any) -> Any:
    try:
        return ("ok", fn())
    except StatusError as err:
        return ("error", type(err).__name__, err.message)


def _set_view(value: Any) -> Any:
    """``value`` with, for every model in it at any depth, which of its fields are set."""
    if isinstance(value, KubeModel):
        return (type(value).__name__, sorted(value.model_fields_set),
                {name: _set_view(v) for name, v in value.__dict__.items()})
    if isinstance(value, list):
        return [_set_view(v) for v in value]
    if isinstance(value, dict):
        return {k: _set_view(v) for k, v in value.items()}
    return value


def _mutable_ids(value: Any) -> set[int]:
    """The ids of the models, lists and dicts in ``value`` (at any depth)."""
    if isinstance(value, KubeModel):
        children: Any = value.__dict__.values()
    elif isinstance(value, list):
        children = value
    elif isinstance(value, dict):
        children = value.values()
    else:
        return set()
    return {id(value)}.union(*(_mutable_ids(v) for v in children))


def _parts(obj: Pod | None, status: bool) -> Any:
    if obj is None:
        return None
    fields = ("metadata", "status") if status else tuple(type(obj).model_fields)
    return ({f: _set_view(getattr(obj, f)) for f in fields},
            obj.model_fields_set & set(fields) if not status else None)


@settings(max_examples=150, deadline=None)
@given(data=pods(), running=st.booleans(), patch=PATCHES, patch_type=PATCH_TYPES, status=st.booleans(),
       held=st.booleans(), shared=st.booleans())
def test_decoded_parts_equal_the_full_decode(data: dict[str, Any], running: bool, patch: dict[str, Any],
                                             patch_type: str, status: bool, held: bool, shared: bool) -> None:
    server = _server()
    _stored_pod(server, data, running)
    kind = server.kind(Pod)
    kv = read_kv(server, kind, "default", "p")
    # the decode cache's object, or (held=False) a decode of the patch's own, as read_for_update gives
    old = server.decoded.shared(Pod, kv) if held else decode(Pod, kv)
    if shared:
        share_fields_sets(old)
    before = old.to_json()
    fast = _outcome(lambda: patch_module._decode_parts(kind, Pod, kv, old, patch, patch_type, status))
    full = _outcome(lambda: decode_dict(Pod, apply_patch(kind, raw_dict(kv), patch, patch_type))[0])
    if fast[0] == "error":
        assert fast == full  # the merge's own errors are the same on either path
    elif fast[1] is not None:
        assert full[0] == "ok"
        assert _parts(fast[1], status) == _parts(full[1], status)
        if not status:
            assert fast[1].to_json() == full[1].to_json()
    assert old.to_json() == before  # the held object is read only
    if fast[0] == "ok" and fast[1] is not None:  # and the new object shares nothing with it
        assert not _mutable_ids(fast[1]) & _mutable_ids(old)


CLEAN_PATCHES = st.one_of(
    st.fixed_dictionaries({"metadata": _metadata(noisy=False, few=True)}),
    st.fixed_dictionaries({}, optional={"metadata": _metadata(noisy=False, few=True),
                                        "spec": _spec(few=True)}),
    st.fixed_dictionaries({"status": _status(few=True)}),
)


@settings(max_examples=200, deadline=None)
@given(data=pods(), running=st.booleans(), patch=CLEAN_PATCHES, patch_type=PATCH_TYPES,
       status=st.booleans(), shared=st.booleans())
def test_merging_into_the_held_object_equals_the_full_decode(
        data: dict[str, Any], running: bool, patch: dict[str, Any], patch_type: str, status: bool,
        shared: bool) -> None:
    """The typed merge itself (always a held object; patches mostly free of what sends them elsewhere)."""
    test_decoded_parts_equal_the_full_decode.hypothesis.inner_test(  # type: ignore[attr-defined]
        data=data, running=running, patch=patch, patch_type=patch_type, status=status, held=True,
        shared=shared)


_POD = {"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "x", "namespace": "default", "labels": {"a": "x", "b": "y"}},
        "spec": {"containers": [{"name": "main", "image": "busybox", "env": [{"name": "A", "value": "1"}],
                                 "resources": {"requests": {"cpu": "1"}}}],
                 "nodeSelector": {"a": "x"}, "tolerations": [{"key": "k", "operator": "Exists"}]}}
_COND = {"type": "Ready", "status": "False", "lastTransitionTime": T0}


@pytest.mark.parametrize("patch", [
    {"metadata": {"finalizers": []}},  # a set merge: the stored finalizer stays
    {"metadata": {"finalizers": ["a.io/b"]}},
    {"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/x"]}},
    {"metadata": {"labels": {"a": None, "c": "z"}}},
    {"metadata": {"labels": None}},
    {"metadata": {"labels": {"a": 5}}},  # does not validate: the general path's error
    {"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "Job", "name": "j", "uid": "u"}]}},
    {"metadata": {"$patch": "replace", "name": "x"}},
    {"metadata": {"$retainKeys": ["name"], "name": "x"}},
    {"kind": ""},  # model_post_init fills it back in
    {"spec": {"nodeSelector": {"b": "y"}}},
    {"spec": {"containers": [{"name": "main", "image": "nginx"}]}},
    {"spec": {"containers": [{"name": "main", "env": [{"name": "B", "value": "2"}]}]}},
    {"spec": {"containers": [{"name": "main", "resources": {"requests": {"memory": "1Gi"}}}]}},
    {"spec": {"containers": [{"name": "side", "image": "x"}]}},
    {"spec": {"tolerations": []}},
    {"spec": {"securityContext": {"runAsUser": 1}}},  # a model the held object does not have
    {"spec": {"$retainKeys": ["containers"], "containers": [{"name": "main", "image": "x"}]}},
    {"spec": {"$setElementOrder/containers": [{"name": "main"}], "containers": [{"name": "main"}]}},
    {"spec": {"activeDeadlineSeconds": 30, "containers": None}},  # a required field removed
    {"status": {"phase": "Running", "podIP": "10.0.0.1"}},
    {"status": {"conditions": [_COND]}},
    {"status": {"conditions": [{"type": "Ready", "$patch": "delete"}], "phase": "Failed"}},
])
@pytest.mark.parametrize("patch_type", ["strategic", "merge"])
@pytest.mark.parametrize("status", [False, True])
@pytest.mark.parametrize("running", [False, True])
def test_typed_merge_examples_equal_the_full_decode(patch: dict[str, Any], patch_type: str, status: bool,
                                                    running: bool) -> None:
    """One patch per branch of the typed merge (each key alone: hypothesis rarely draws them so)."""
    test_decoded_parts_equal_the_full_decode.hypothesis.inner_test(  # type: ignore[attr-defined]
        data=_POD, running=running, patch=patch, patch_type=patch_type, status=status, held=True,
        shared=running)


def _general_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(patch_module, "_decode_parts", lambda *args: None)


@settings(max_examples=60, deadline=None)
@given(data=pods(), running=st.booleans(),
       steps=st.lists(st.tuples(PATCHES, PATCH_TYPES, st.booleans(), st.booleans()), min_size=1, max_size=4))
def test_patches_write_what_the_general_path_writes(
        data: dict[str, Any], running: bool, steps: list[tuple[dict[str, Any], str, bool, bool]]) -> None:
    """End to end, with the old objects held as the informer holds them: same results, same errors,
    same stored bytes and revisions (so validate_update saw the same, generation moved the same)."""
    fast, general = _server(), _server()
    for server in (fast, general):
        _stored_pod(server, data, running)
    with pytest.MonkeyPatch.context() as mp:
        for patch, patch_type, status, shared in steps:
            outcomes = []
            for server in (fast, general):
                if server is general:
                    _general_only(mp)
                kv = read_kv(server, server.kind(Pod), "default", "p")
                held = server.decoded.shared(Pod, kv)
                if shared:
                    share_fields_sets(held)
                outcomes.append(_outcome(lambda s=server, p=patch, t=patch_type, sub=status: s.patch(
                    Pod, "p", p, "default", patch_type=t, status=sub)))
                mp.undo()
            assert outcomes[0] == outcomes[1]
            assert fast.store.revision == general.store.revision
            assert ([kv.value for kv in fast.store.range(b"/", b"0").kvs]
                    == [kv.value for kv in general.store.range(b"/", b"0").kvs])


def test_finalizer_removal_takes_the_parts_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Job controller's patch on a held pod: no full decode, the finalizer gone, generation kept."""
    server = _server()
    _stored_pod(server, {"metadata": {"namespace": "default"},
                         "spec": {"containers": [{"name": "c", "image": "busybox"}]}}, running=True)
    kv = read_kv(server, server.kind(Pod), "default", "p")
    server.decoded.shared(Pod, kv)
    monkeypatch.setattr(patch_module, "decode_dict", None)  # the general path would fail loudly
    out = server.patch(Pod, "p", {"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/x"]}},
                       "default", patch_type="strategic")
    assert not out.metadata.finalizers and out.metadata.generation == 1
    assert out.status is not None and out.status.phase == "Running"


def _as_json(value: Any) -> Any:
    """A view's typed leaves (times, quantities) as the stored JSON spells them."""
    if isinstance(value, datetime):
        return format_time(value)
    if isinstance(value, Quantity):
        return str(value)
    if isinstance(value, list):
        return [_as_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_json(v) for k, v in value.items()}
    return value


@settings(max_examples=40, deadline=None)
@given(data=pods(), running=st.booleans(), shared=st.booleans())
def test_the_view_of_a_held_object_is_its_stored_json(data: dict[str, Any], running: bool,
                                                       shared: bool) -> None:
    """What the typed merge reads instead of parsing the stored bytes (with the resourceVersion the
    general path's base has), sharing nothing mutable with the held object."""
    server = _server()
    _stored_pod(server, data, running)
    kv = read_kv(server, server.kind(Pod), "default", "p")
    held = server.decoded.shared(Pod, kv)
    if shared:
        share_fields_sets(held)
    seen = view(held)
    assert _as_json(seen) == raw_dict(kv)
    assert not _mutable_ids(seen) & _mutable_ids(held)


_JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "default"},
        "spec": {"completions": 2, "parallelism": 2, "completionMode": "Indexed", "template": {
            "metadata": {"labels": {"app": "x"}},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox",
                                                               "resources": {"requests": {"cpu": "1"}}}]}}}}


@pytest.mark.parametrize("patch", [
    {"spec": {"suspend": True}},
    {"spec": {"parallelism": 1, "activeDeadlineSeconds": None}},
    {"spec": {"template": {"metadata": {"labels": {"app": None, "b": "y"}}}}},
    {"spec": {"template": {"spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "2"}}}]}}}},
    {"spec": {"podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [
        {"type": "DisruptionTarget", "status": "True"}]}]}}},
    {"spec": {"completions": "x"}},
    {"metadata": {"annotations": {"a": "b"}}, "spec": {"backoffLimit": 3}},
])
@pytest.mark.parametrize("patch_type", ["strategic", "merge"])
def test_job_patches_merged_into_the_held_object_equal_the_full_decode(patch: dict[str, Any],
                                                                       patch_type: str) -> None:
    """Another kind through the typed merge: quantities, int-or-string and optional models in the spec."""
    server = _server()
    server.create(Job.model_validate(_JOB))
    kind = server.kind(Job)
    kv = read_kv(server, kind, "default", "j")
    old = server.decoded.shared(Job, kv)
    before = old.to_json()
    fast = _outcome(lambda: patch_module._decode_parts(kind, Job, kv, old, patch, patch_type, False))
    full = _outcome(lambda: decode_dict(Job, apply_patch(kind, raw_dict(kv), patch, patch_type))[0])
    if fast[0] == "error" or fast[1] is None:
        assert fast[0] != "error" or fast == full
    else:
        assert full[0] == "ok"
        assert _set_view(fast[1]) == _set_view(full[1]) and fast[1].to_json() == full[1].to_json()
        assert not _mutable_ids(fast[1]) & _mutable_ids(old)
    assert old.to_json() == before
