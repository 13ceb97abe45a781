"""Cases of upstream's generic-registry delete tables, ported one by one and sent as a user's DELETE
goes: over HTTP (the in-process app), with a ``meta.k8s.io/v1`` DeleteOptions body.

Upstream (Kubernetes 1.37, k8s.io/apiserver at the 2026-07 main the mirror holds):
``pkg/registry/generic/registry/store_test.go`` (TestStoreDelete, TestStoreGracefulDeleteWithResourceVersion,
TestGracefulStoreHandleFinalizers, TestNonGracefulStoreHandleFinalizers,
TestStoreDeleteWithOrphanDependents, TestStoreDeletionPropagation) and
``pkg/registry/rest/delete_test.go`` (TestBeforeDelete). Each test names the case it follows.

Translation: upstream's ``defaultDeleteStrategy`` (no default GC policy: Background) is a ConfigMap,
its ``orphanDeleteStrategy`` (DefaultGarbageCollectionPolicy OrphanDependents) is a batch/v1 Job,
the only kind whose default is to orphan; its ``testGracefulStrategy`` is a Pod bound to a node.
No controller runs (upstream's store tests have no garbage collector either), so an ``orphan`` or
``foregroundDeletion`` finalizer stays where the delete put it.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.apiserver.deletion import gc_finalizers
from kbatch.runtime.controlplane import ControlPlane
from kbatch.server.app import KbatchApp
from kbatch.server.facade import ControlPlaneBackend

ORPHAN, FOREGROUND = "orphan", "foregroundDeletion"
X, Y = "foo.com/x", "bar.com/y"
START = datetime(2026, 1, 1, tzinfo=UTC)
CM = "/api/v1/namespaces/default/configmaps"
JOBS = "/apis/batch/v1/namespaces/default/jobs"
PODS = "/api/v1/namespaces/default/pods"


class Api:
    def __init__(self) -> None:
        self.cp = ControlPlane(seed=0, controllers="", start=START)
        self.app = KbatchApp(ControlPlaneBackend(self.cp))

    def call(self, method: str, path: str, body: Any = None) -> httpx.Response:
        async def go() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://kbatch") as client:
                if body is None:
                    return await client.request(method, path)
                return await client.request(method, path, json=body)

        return asyncio.run(go())

    def create(self, path: str, obj: dict[str, Any]) -> dict[str, Any]:
        resp = self.call("POST", path, obj)
        assert resp.status_code == 201, resp.text
        return resp.json()  # type: ignore[no-any-return]

    def get(self, path: str, name: str) -> dict[str, Any] | None:
        resp = self.call("GET", f"{path}/{name}")
        if resp.status_code == 404:
            return None
        assert resp.status_code == 200, resp.text
        return resp.json()  # type: ignore[no-any-return]

    def delete(self, path: str, name: str, options: dict[str, Any] | None) -> httpx.Response:
        return self.call("DELETE", f"{path}/{name}", options)


@pytest.fixture
def api() -> Api:
    return Api()


def configmap(api: Api, name: str, finalizers: list[str] | None = None) -> dict[str, Any]:
    return api.create(CM, {"apiVersion": "v1", "kind": "ConfigMap",
                           "metadata": {"name": name, "finalizers": finalizers}})


def job(api: Api, name: str, finalizers: list[str] | None = None) -> dict[str, Any]:
    pod = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}
    return api.create(JOBS, {"apiVersion": "batch/v1", "kind": "Job",
                             "metadata": {"name": name, "finalizers": finalizers},
                             "spec": {"suspend": True, "template": {"spec": pod}}})


def pod(api: Api, name: str, *, node: str | None = "machine", finalizers: list[str] | None = None,
        grace: int | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox"}]}
    if node:
        spec["nodeName"] = node
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    return api.create(PODS, {"apiVersion": "v1", "kind": "Pod",
                             "metadata": {"name": name, "finalizers": finalizers}, "spec": spec})


# --- TestStoreDeleteWithOrphanDependents -------------------------------------------------------------

WITH_ORPHAN = [X, ORPHAN, Y]
OTHERS = [X, Y]
ONLY_ORPHAN = [ORPHAN]
TRUE, FALSE, NIL = {"orphanDependents": True}, {"orphanDependents": False}, {}

# (upstream pod name, existing finalizers, options (None: no body), orphan-default kind?, expected
# finalizers or None when the object is gone)
ORPHAN_DEPENDENTS_CASES = [
    ("pod1", WITH_ORPHAN, TRUE, False, [X, ORPHAN, Y]),
    ("pod2", OTHERS, TRUE, False, [X, Y, ORPHAN]),
    ("pod3", None, TRUE, False, [ORPHAN]),
    ("pod4", ONLY_ORPHAN, TRUE, False, [ORPHAN]),
    ("pod5", WITH_ORPHAN, FALSE, True, [X, Y]),
    ("pod6", OTHERS, FALSE, True, [X, Y]),
    ("pod7", None, FALSE, True, None),
    ("pod8", ONLY_ORPHAN, FALSE, True, None),
    ("pod9", WITH_ORPHAN, NIL, False, [X, ORPHAN, Y]),
    ("pod10", WITH_ORPHAN, NIL, True, [X, ORPHAN, Y]),
    ("pod11", OTHERS, NIL, False, [X, Y]),
    ("pod12", OTHERS, NIL, True, [X, Y, ORPHAN]),
    ("pod13", None, NIL, False, None),
    ("pod14", None, NIL, True, [ORPHAN]),
    ("pod15", ONLY_ORPHAN, NIL, False, [ORPHAN]),
    ("pod16", ONLY_ORPHAN, NIL, True, [ORPHAN]),
    ("pod17", WITH_ORPHAN, None, False, [X, ORPHAN, Y]),
    ("pod18", WITH_ORPHAN, None, True, [X, ORPHAN, Y]),
    ("pod19", OTHERS, None, False, [X, Y]),
    ("pod20", OTHERS, None, True, [X, Y, ORPHAN]),
    ("pod21", None, None, False, None),
    ("pod22", None, None, True, [ORPHAN]),
    ("pod23", ONLY_ORPHAN, None, False, [ORPHAN]),
    ("pod24", ONLY_ORPHAN, None, True, [ORPHAN]),
]


def _make(api: Api, name: str, finalizers: list[str] | None, orphan_default: bool) -> str:
    if orphan_default:
        job(api, name, finalizers)
        return JOBS
    configmap(api, name, finalizers)
    return CM


def _assert_terminating(obj: dict[str, Any], finalizers: list[str], created: dict[str, Any]) -> None:
    meta = obj["metadata"]
    assert meta["finalizers"] == finalizers
    assert meta["deletionTimestamp"] is not None
    assert meta["deletionGracePeriodSeconds"] == 0
    if created["metadata"].get("generation"):  # kinds that keep metadata.generation
        assert meta["generation"] > created["metadata"]["generation"]


@pytest.mark.parametrize(("name", "existing", "options", "orphan_default", "expected"),
                         ORPHAN_DEPENDENTS_CASES, ids=[c[0] for c in ORPHAN_DEPENDENTS_CASES])
def test_store_delete_with_orphan_dependents(api: Api, name: str, existing: list[str] | None,
                                             options: dict[str, Any] | None, orphan_default: bool,
                                             expected: list[str] | None) -> None:
    """store_test.go TestStoreDeleteWithOrphanDependents: ``orphanDependents`` decides first, then an
    ``orphan`` finalizer the object already has, then the kind's default; the finalizer list keeps
    its order when only its set would change (``deletionFinalizersForGarbageCollection``)."""
    path = _make(api, name, existing, orphan_default)
    created = api.get(path, name)
    assert created is not None
    resp = api.delete(path, name, options)
    assert resp.status_code == 200, resp.text
    obj = api.get(path, name)
    if expected is None:
        assert obj is None
    else:
        assert obj is not None
        _assert_terminating(obj, expected, created)


# --- TestStoreDeletionPropagation --------------------------------------------------------------------

_EXISTING = {"no existing finalizers": None, "existing orphan finalizer": [ORPHAN],
             "existing deleteDependents finalizer": [FOREGROUND]}
_POLICY = {"Foreground": "Foreground", "Background": "Background", "OrphanDependents": "Orphan",
           "Default": None}
_STRATEGY = {"defaultDeleteStrategy": False, "orphanDeleteStrategy": True}
# (existing, PropagationPolicy) -> the finalizers left (None: the object is gone); upstream expects
# the same for both strategies except "no existing finalizers, PropagationPolicy=Default"
_EXPECTED = {
    ("no existing finalizers", "Foreground"): [FOREGROUND],
    ("no existing finalizers", "Background"): None,
    ("no existing finalizers", "OrphanDependents"): [ORPHAN],
    ("existing orphan finalizer", "Foreground"): [FOREGROUND],
    ("existing orphan finalizer", "Background"): None,
    ("existing orphan finalizer", "OrphanDependents"): [ORPHAN],
    ("existing orphan finalizer", "Default"): [ORPHAN],
    ("existing deleteDependents finalizer", "Foreground"): [FOREGROUND],
    ("existing deleteDependents finalizer", "Background"): None,
    ("existing deleteDependents finalizer", "OrphanDependents"): [ORPHAN],
    ("existing deleteDependents finalizer", "Default"): [FOREGROUND],
}


def _propagation_expected(existing: str, policy: str, strategy: str) -> list[str] | None:
    if (existing, policy) == ("no existing finalizers", "Default"):
        return [ORPHAN] if _STRATEGY[strategy] else None
    return _EXPECTED[(existing, policy)]


PROPAGATION_CASES = {
    f"{e}, PropagationPolicy={p}, {s}": (_EXISTING[e], _POLICY[p], _STRATEGY[s],
                                         _propagation_expected(e, p, s))
    for e in _EXISTING for p in _POLICY for s in _STRATEGY
}


@pytest.mark.parametrize(("existing", "policy", "orphan_default", "expected"),
                         list(PROPAGATION_CASES.values()), ids=list(PROPAGATION_CASES))
def test_store_deletion_propagation(api: Api, existing: list[str] | None, policy: str | None,
                                    orphan_default: bool, expected: list[str] | None) -> None:
    """store_test.go TestStoreDeletionPropagation: ``propagationPolicy`` decides first, then a GC
    finalizer the object already has (``shouldOrphanDependents`` /
    ``shouldDeleteDependentsInForeground``), then the kind's default."""
    path = _make(api, "obj", existing, orphan_default)
    created = api.get(path, "obj")
    assert created is not None
    resp = api.delete(path, "obj", {} if policy is None else {"propagationPolicy": policy})
    assert resp.status_code == 200, resp.text
    obj = api.get(path, "obj")
    if expected is None:
        assert obj is None
    else:
        assert obj is not None
        _assert_terminating(obj, expected, created)


# --- TestStoreDelete, TestStoreGracefulDeleteWithResourceVersion -------------------------------------

def test_store_delete(api: Api) -> None:
    """store_test.go TestStoreDelete: NotFound before the object exists; a non-graceful delete
    removes it at once."""
    assert api.delete(CM, "foo", None).status_code == 404
    configmap(api, "foo")
    assert api.delete(CM, "foo", None).status_code == 200
    assert api.get(CM, "foo") is None


def test_store_graceful_delete_with_resource_version(api: Api) -> None:
    """store_test.go TestStoreGracefulDeleteWithResourceVersion: gracePeriodSeconds 0 with a matching
    resourceVersion precondition deletes a scheduled pod at once."""
    assert api.delete(PODS, "foo", {"gracePeriodSeconds": 0}).status_code == 404
    rv = pod(api, "foo")["metadata"]["resourceVersion"]
    resp = api.delete(PODS, "foo", {"gracePeriodSeconds": 0, "preconditions": {"resourceVersion": rv}})
    assert resp.status_code == 200, resp.text
    assert api.get(PODS, "foo") is None


def test_store_delete_precondition_mismatch_is_a_conflict(api: Api) -> None:
    """delete.go BeforeDelete: a uid or resourceVersion precondition that does not match is a 409
    Conflict, and nothing is written."""
    created = configmap(api, "foo")
    for pre in ({"uid": "other"}, {"resourceVersion": "1"}):
        resp = api.delete(CM, "foo", {"preconditions": pre})
        assert resp.status_code == 409, resp.text
        assert resp.json()["reason"] == "Conflict"
    assert api.get(CM, "foo") == created


# --- TestGracefulStoreHandleFinalizers, TestNonGracefulStoreHandleFinalizers -------------------------

def _update_finalizers(api: Api, path: str, name: str, finalizers: list[str] | None) -> None:
    obj = api.get(path, name)
    assert obj is not None
    obj["metadata"]["finalizers"] = finalizers
    resp = api.call("PUT", f"{path}/{name}", obj)
    assert resp.status_code == 200, resp.text


def test_graceful_store_handle_finalizers(api: Api) -> None:
    """store_test.go TestGracefulStoreHandleFinalizers: a pod with a finalizer deleted with grace 0
    stays until an update removes the finalizer, then is gone."""
    pod(api, "foo", finalizers=[X])
    assert api.delete(PODS, "foo", {"gracePeriodSeconds": 0}).status_code == 200
    assert api.get(PODS, "foo") is not None
    _update_finalizers(api, PODS, "foo", [X])
    assert api.get(PODS, "foo") is not None
    _update_finalizers(api, PODS, "foo", None)
    assert api.get(PODS, "foo") is None


def test_non_graceful_store_handle_finalizers(api: Api) -> None:
    """store_test.go TestNonGracefulStoreHandleFinalizers: a non-graceful kind with a finalizer is
    marked deleting (deletionTimestamp, deletionGracePeriodSeconds 0), removed once its finalizer is."""
    configmap(api, "foo", [X])
    assert api.delete(CM, "foo", None).status_code == 200
    obj = api.get(CM, "foo")
    assert obj is not None
    assert obj["metadata"]["deletionTimestamp"] == "2026-01-01T00:00:00Z"
    assert obj["metadata"]["deletionGracePeriodSeconds"] == 0
    _update_finalizers(api, CM, "foo", [X])
    assert api.get(CM, "foo") is not None
    _update_finalizers(api, CM, "foo", None)
    assert api.get(CM, "foo") is None


# --- TestBeforeDelete (pkg/registry/rest/delete_test.go) ---------------------------------------------
# A pod is first deleted with ``first`` seconds of grace at START, the clock is moved on ``later``
# seconds, and the pod is deleted again with ``again``. Upstream's cases start from a pod whose
# deletionTimestamp is now + its deletionGracePeriodSeconds; a negative stored grace period cannot
# be written through the API, so the ``DeletionGracePeriodSeconds=-1`` rows do not translate.

def _stamp(seconds: float) -> str:
    return (START + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


BEFORE_DELETE_CASES = {
    # name: (first grace, clock moved, second grace, expected grace, expected timestamp offset from START
    #        or None when the pod is gone)
    "when DeletionGracePeriodSeconds=1, GracePeriodSeconds=-1": (1, 0, -1, 1, 1),
    "when DeletionGracePeriodSeconds=1, GracePeriodSeconds=0": (1, 0, 0, None, None),
    "when DeletionGracePeriodSeconds=1, GracePeriodSeconds=1": (1, 0, 1, 1, 1),
    "when DeletionGracePeriodSeconds=1, GracePeriodSeconds=2": (1, 0, 2, 1, 1),
    "when DeletionGracePeriodSeconds=2, GracePeriodSeconds=-1": (2, 0, -1, 1, 1),
    "when DeletionGracePeriodSeconds=2, GracePeriodSeconds=0": (2, 0, 0, None, None),
    "when DeletionGracePeriodSeconds=2, GracePeriodSeconds=1": (2, 0, 1, 1, 1),
    "when DeletionGracePeriodSeconds=2, GracePeriodSeconds=2": (2, 0, 2, 2, 2),
    "when a shorter non-zero grace period would move into the past": (60, 120, 50, 1, 120),
    "when a zero grace period would move into the past": (60, 120, 0, None, None),
}


@pytest.mark.parametrize(("first", "later", "again", "grace", "stamp"), list(BEFORE_DELETE_CASES.values()),
                         ids=list(BEFORE_DELETE_CASES))
def test_before_delete(api: Api, first: int, later: int, again: int, grace: int | None,
                       stamp: int | None) -> None:
    """delete_test.go TestBeforeDelete: a pending graceful deletion may only be shortened; a shorter
    period that would put deletionTimestamp in the past is clamped to now, with 1 second of grace
    when the request asked for a non-zero one."""
    pod(api, "foo")
    assert api.delete(PODS, "foo", {"gracePeriodSeconds": first}).status_code == 200
    api.cp.clock.advance(later)
    assert api.delete(PODS, "foo", {"gracePeriodSeconds": again}).status_code == 200
    obj = api.get(PODS, "foo")
    if grace is None:
        assert obj is None
        return
    assert obj is not None
    assert obj["metadata"]["deletionGracePeriodSeconds"] == grace
    assert obj["metadata"]["deletionTimestamp"] == _stamp(stamp if stamp is not None else 0)


def test_graceful_store_can_delete_if_existing_grace_period_zero(api: Api) -> None:
    """store_test.go TestGracefulStoreCanDeleteIfExistingGracePeriodZero: a pod left with a
    deletionTimestamp and grace 0 (here: held by a finalizer) is not "graceful pending": a second
    delete goes through instead of returning early, so dropping the finalizer then deletes it."""
    pod(api, "foo", finalizers=[X])
    assert api.delete(PODS, "foo", {"gracePeriodSeconds": 0}).status_code == 200
    resp = api.delete(PODS, "foo", {"gracePeriodSeconds": 0})
    assert resp.status_code == 200, resp.text
    assert resp.json()["metadata"]["deletionGracePeriodSeconds"] == 0


# --- pod strategy CheckGracefulDelete (pkg/registry/core/pod/strategy.go) ----------------------------

@pytest.mark.parametrize(("node", "spec_grace", "requested", "expected"), [
    ("machine", None, None, 30),     # grace from spec.terminationGracePeriodSeconds (defaulted 30)
    ("machine", 7, None, 7),
    ("machine", 7, 3, 3),            # the request's grace wins over the spec's
    ("machine", 7, -5, 1),           # a negative request means 1 second (BeforeDelete)
    ("machine", -5, None, 1),        # so does a negative spec value (CheckGracefulDelete: period < 0)
    (None, 7, None, 0),              # not scheduled: deleted at once
    (None, 7, 3, 0),
], ids=["default-30", "from-spec", "request-wins", "negative-is-1", "negative-spec-is-1", "unscheduled",
       "unscheduled-request"])
def test_pod_check_graceful_delete(api: Api, node: str | None, spec_grace: int | None,
                                   requested: int | None, expected: int) -> None:
    pod(api, "p", node=node, grace=spec_grace)
    body = {} if requested is None else {"gracePeriodSeconds": requested}
    assert api.delete(PODS, "p", body).status_code == 200
    obj = api.get(PODS, "p")
    if expected == 0:
        assert obj is None
        return
    assert obj is not None
    assert obj["metadata"]["deletionGracePeriodSeconds"] == expected
    assert obj["metadata"]["deletionTimestamp"] == _stamp(expected)


@pytest.mark.parametrize("phase", ["Succeeded", "Failed"])
def test_pod_check_graceful_delete_terminal_pod(api: Api, phase: str) -> None:
    """strategy.go CheckGracefulDelete: a pod already terminated is deleted at once."""
    created = pod(api, "p", grace=30)
    created["status"] = {"phase": phase}
    assert api.call("PUT", f"{PODS}/p/status", created).status_code == 200
    assert api.delete(PODS, "p", {}).status_code == 200
    assert api.get(PODS, "p") is None


# --- dryRun ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("options", [{"dryRun": ["All"]}, {"dryRun": ["All"], "propagationPolicy": "Orphan"},
                                     {"dryRun": ["All"], "gracePeriodSeconds": 0}])
def test_dry_run_delete_writes_nothing(api: Api, options: dict[str, Any]) -> None:
    """store.go Delete: a dry run goes through every decision but stores nothing."""
    created = pod(api, "p")
    assert api.delete(PODS, "p", options).status_code == 200
    assert api.get(PODS, "p") == created


# --- an invariant of deletionFinalizersForGarbageCollection ------------------------------------------

_FINALIZER = st.sampled_from([X, Y, "z.io/z", ORPHAN, FOREGROUND])


@given(finalizers=st.lists(_FINALIZER, unique=True, max_size=5),
       policy=st.sampled_from([None, "Orphan", "Foreground", "Background"]),
       default=st.sampled_from(["Orphan", "Background"]))
def test_gc_finalizers_keep_other_finalizers_in_order(finalizers: list[str], policy: str | None,
                                                      default: str) -> None:
    """Other finalizers keep their order, at most one GC finalizer results, and a list whose set
    does not change is returned as it was (store.go compares the sets before rewriting)."""
    out = gc_finalizers(finalizers, policy, default)
    others = [f for f in finalizers if f not in (ORPHAN, FOREGROUND)]
    assert [f for f in out if f not in (ORPHAN, FOREGROUND)] == others
    assert len(set(out) & {ORPHAN, FOREGROUND}) <= 1
    if set(out) == set(finalizers):
        assert out == finalizers
    if policy is not None:
        want = {"Orphan": {ORPHAN}, "Foreground": {FOREGROUND}, "Background": set()}[policy]
        assert set(out) & {ORPHAN, FOREGROUND} == want


def test_shortening_a_pending_grace_period_also_applies_the_policy(api: Api) -> None:
    """store.go updateForGracefulDeletionAndFinalizers: once BeforeDelete shortens a pending graceful
    deletion (not "pending"), the request's propagationPolicy sets the GC finalizers too, so an
    Orphan delete with grace 0 of a terminating pod leaves it held by ``orphan``."""
    pod(api, "p", grace=30)
    assert api.delete(PODS, "p", {}).status_code == 200
    assert api.delete(PODS, "p", {"gracePeriodSeconds": 0, "propagationPolicy": "Orphan"}).status_code == 200
    obj = api.get(PODS, "p")
    assert obj is not None
    assert obj["metadata"]["finalizers"] == [ORPHAN]
    assert obj["metadata"]["deletionGracePeriodSeconds"] == 0


# --- a delete of an object already being deleted -----------------------------------------------------

@pytest.mark.parametrize(("first", "again", "expected"), [
    ("Foreground", {"propagationPolicy": "Orphan"}, [X, ORPHAN]),
    ("Orphan", {"propagationPolicy": "Foreground"}, [X, FOREGROUND]),
    ("Orphan", {"propagationPolicy": "Background"}, [X]),
    ("Orphan", {}, [X, ORPHAN]),
    ("Foreground", {"orphanDependents": True}, [X, ORPHAN]),
], ids=["foreground-then-orphan", "orphan-then-foreground", "orphan-then-background", "orphan-then-default",
        "foreground-then-orphanDependents"])
def test_delete_of_an_object_already_deleting_updates_gc_finalizers(
        api: Api, first: str, again: dict[str, Any], expected: list[str]) -> None:
    """store.go Delete: an object being deleted without a pending grace period (BeforeDelete: not
    graceful, not pending) goes through updateForGracefulDeletionAndFinalizers again, so a second
    delete may switch its GC finalizer; its deletionTimestamp stays (markAsDeleting keeps an earlier
    one)."""
    configmap(api, "foo", [X])
    assert api.delete(CM, "foo", {"propagationPolicy": first}).status_code == 200
    api.cp.clock.advance(5)
    resp = api.delete(CM, "foo", again)
    assert resp.status_code == 200, resp.text
    obj = api.get(CM, "foo")
    assert obj is not None
    assert obj["metadata"]["finalizers"] == expected
    assert obj["metadata"]["deletionTimestamp"] == _stamp(0)


def test_second_background_delete_removes_an_object_held_only_by_gc_finalizer(api: Api) -> None:
    """store.go Delete: Background on an object held only by ``orphan`` empties its finalizers, so
    it is deleted (errDeleteNow)."""
    configmap(api, "foo")
    assert api.delete(CM, "foo", {"propagationPolicy": "Orphan"}).status_code == 200
    assert api.delete(CM, "foo", {"propagationPolicy": "Background"}).status_code == 200
    assert api.get(CM, "foo") is None


# --- namespaces (pkg/registry/core/namespace/storage/storage.go) -------------------------------------

NAMESPACES = "/api/v1/namespaces"


@pytest.mark.parametrize(("options", "expected"), [
    ({"orphanDependents": False}, ["foregroundDeletion"]),
    ({"orphanDependents": True}, ["orphan"]),
    ({"propagationPolicy": "Foreground"}, ["foregroundDeletion"]),
    ({}, None),
], ids=["orphanDependents-false", "orphanDependents-true", "foreground", "default"])
def test_namespace_delete_gc_finalizers(api: Api, options: dict[str, Any],
                                        expected: list[str] | None) -> None:
    """Namespace storage Delete, shouldHaveOrphanFinalizer / shouldHaveDeleteDependentsFinalizer: unlike
    the generic store, ``orphanDependents: false`` asks for the foregroundDeletion finalizer."""
    api.create(NAMESPACES, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns1"}})
    assert api.delete(NAMESPACES, "ns1", options).status_code == 200
    obj = api.get(NAMESPACES, "ns1")
    assert obj is not None
    assert obj["metadata"].get("finalizers") == expected
    assert obj["status"]["phase"] == "Terminating"
