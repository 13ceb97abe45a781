"""Translated cases of upstream ``pkg/registry/core/pod/storage/eviction_test.go`` (kubernetes/kubernetes,
stored commit 04791b49, before ``TestAddConditionAndDelete`` existed): ``TestEviction``,
``TestEvictionIngorePDB`` (sic), ``TestEvictionDryRun`` and ``TestEvictionPDBStatus``.

As upstream's tests do, the PDB's status is written by hand (no disruption controller runs): a bare
:class:`APIServer` holds a pod labelled ``a=true`` bound to node ``foo`` and the PDBs of the case. The
mock store of ``TestEvictionIngorePDB`` (deletes that answer Conflict) becomes a wrapper around
``APIServer.delete`` that answers Conflict the way upstream's ``mutatorDeleteFunc`` does.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest

from kbatch.api.core_v1 import Pod, PodStatus
from kbatch.api.errors import BadRequest, Conflict, Forbidden, Invalid, NotFound, TooManyRequests
from kbatch.api.frozen import edit
from kbatch.api.policy_v1 import Eviction, PodDisruptionBudget
from kbatch.apiserver import APIServer
from kbatch.apiserver.eviction import EVICTIONS_RETRY_STEPS, MultiplePDBs
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _server() -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=lambda: NOW, rng=random.Random(0))


def _pod(server: APIServer, name: str, phase: str | None = None, ready: str | None = None) -> Pod:
    body = {"metadata": {"name": name, "namespace": "default", "labels": {"a": "true"}},
            "spec": {"nodeName": "foo", "containers": [{"name": "c", "image": "busybox"}]}}
    pod = server.create(Pod.model_validate(body))
    if phase is None and ready is None:
        return pod
    status: dict[str, Any] = {"phase": phase or "Pending"}
    if ready is not None:
        status["conditions"] = [{"type": "Ready", "status": ready}]
    pod = edit(pod)
    pod.status = PodStatus.model_validate(status)
    return server.update_status(pod)


def _pdb(server: APIServer, allowed: int, *, name: str = "foo", label: str = "a", healthy: int = 0,
         desired: int = 0, conditions: list[dict[str, Any]] | None = None, **spec: Any) -> None:
    body = {"metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": {label: "true"}}, **spec}}
    pdb = edit(server.create(PodDisruptionBudget.model_validate(body)))
    pdb.status = type(pdb.status).model_validate({  # type: ignore[union-attr]
        "disruptionsAllowed": allowed, "currentHealthy": healthy, "desiredHealthy": desired,
        "expectedPods": 0, "observedGeneration": pdb.metadata.generation,
        "conditions": [{**c, "lastTransitionTime": "2026-01-01T00:00:00Z", "message": ""}
                       for c in conditions or ()]})
    server.update_status(pdb)


def _eviction(name: str, **delete_options: Any) -> Eviction:
    return Eviction.model_validate({"metadata": {"name": name, "namespace": "default"},
                                    "deleteOptions": delete_options or None})


def _evict(server: APIServer, name: str, *, url_name: str | None = None, dry_run: bool = False,
           **delete_options: Any) -> Any:
    return server.evict(url_name or name, "default", _eviction(name, **delete_options), dry_run=dry_run)


def _gone(server: APIServer, name: str) -> bool:
    try:
        server.get(Pod, name, "default")
    except NotFound:
        return True
    return False


# -- TestEviction --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("case", "phase", "allowed", "label", "deleted"), [
    ("matching pdbs with no disruptions allowed, pod running", "Running", 0, "a", False),
    ("matching pdbs with no disruptions allowed, pod pending", "Pending", 0, "a", True),
    ("matching pdbs with no disruptions allowed, pod succeeded", "Succeeded", 0, "a", True),
    ("matching pdbs with no disruptions allowed, pod failed", "Failed", 0, "a", True),
    ("matching pdbs with disruptions allowed", None, 1, "a", True),
    ("non-matching pdbs", None, 0, "b", True),
])
def test_eviction_table(case: str, phase: str | None, allowed: int, label: str, deleted: bool) -> None:
    """TestEviction/<case>: DeleteOptions(0) deletes the pod outright, or the budget answers 429."""
    server = _server()
    _pod(server, "t", phase)
    _pdb(server, allowed, label=label)
    if not deleted:
        with pytest.raises(TooManyRequests) as err:
            _evict(server, "t", gracePeriodSeconds=0)
        assert err.value.status.code == 429
        assert err.value.message == "Cannot evict pod as it would violate the pod's disruption budget."
        cause = err.value.status.details.causes[0]
        assert (cause.reason, cause.message) == (
            "DisruptionBudget", "The disruption budget foo needs 0 healthy pods and has 0 currently")
        assert not _gone(server, "t")
        return
    assert _evict(server, "t", gracePeriodSeconds=0).status == "Success"
    assert _gone(server, "t")


def test_eviction_bad_name_in_url() -> None:
    """TestEviction/matching pdbs with disruptions allowed but bad name in Url."""
    server = _server()
    _pod(server, "t7")
    _pdb(server, 1)
    with pytest.raises(BadRequest) as err:
        _evict(server, "t7", url_name="t7bad-name", gracePeriodSeconds=0)
    assert err.value.message == "name in URL does not match name in Eviction object"
    assert not _gone(server, "t7")


def test_eviction_multiple_pdbs_is_a_500() -> None:
    """eviction.go: more than one matching PDB is a Status with code 500 and upstream's text."""
    server = _server()
    _pod(server, "t", "Running", "True")
    _pdb(server, 1, name="one")
    _pdb(server, 1, name="two")
    with pytest.raises(MultiplePDBs) as err:
        _evict(server, "t")
    assert err.value.status.code == 500
    assert err.value.message == ("This pod has more than one PodDisruptionBudget, which the eviction "
                                 "subresource does not support.")


# -- TestEvictionIngorePDB ---------------------------------------------------------------------------

class _ConflictingDeletes:
    """Upstream's ``mockStore.mutatorDeleteFunc``: the first delete answers Conflict (the pod moves on
    to resourceVersion "999" and, unless ``stay_pending``, to Running); ``always`` answers Conflict on
    every delete; ``other`` answers BadRequest."""

    def __init__(self, server: APIServer, *, always: bool = False, stay_pending: bool = True,
                 first_conflict: bool = True, other: bool = False) -> None:
        self.server, self.real = server, server.delete
        self.always, self.stay_pending, self.first_conflict, self.other = always, stay_pending, \
            first_conflict, other
        self.count = 0
        server.delete = self  # type: ignore[method-assign]

    def __call__(self, model: Any, name: str, namespace: str | None = None, **kw: Any) -> Any:
        self.count += 1
        if self.always:
            raise Conflict("Operation cannot be fulfilled on tests \"2\": message")
        if self.other:
            raise BadRequest("test designed to error")
        if self.count == 1 and self.first_conflict:
            pod = edit(self.server.get(Pod, name, namespace))
            if not self.stay_pending:
                pod.status.phase = "Running"  # type: ignore[union-attr]
            self.server.update_status(pod)
            raise Conflict("Operation cannot be fulfilled on tests \"2\": message")
        return self.real(model, name, namespace, **kw)


def test_ignore_pdb_pending_first_delete_conflict_pod_still_pending_deleted() -> None:
    """TestEvictionIngorePDB/pdbs No disruptions allowed, pod pending, first delete conflict, pod still
    pending, pod deleted successfully (upstream counts 3 deletes: its mock conflicts again once on
    resourceVersion "1000"; here the second delete already carries the current resourceVersion)."""
    server = _server()
    _pod(server, "t1", "Pending")
    _pdb(server, 0)
    deletes = _ConflictingDeletes(server)
    assert _evict(server, "t1", gracePeriodSeconds=0).status == "Success"
    assert deletes.count == 2 and _gone(server, "t1")


def test_ignore_pdb_pending_first_delete_conflict_pod_becomes_running_continues_to_pdbs() -> None:
    """TestEvictionIngorePDB/pdbs No disruptions allowed, pod pending, first delete conflict, pod becomes
    running, continueToPDBs — the critical case: the budget is checked once the pod runs."""
    server = _server()
    _pod(server, "t2", "Pending")
    _pdb(server, 0)
    deletes = _ConflictingDeletes(server, stay_pending=False)
    with pytest.raises(TooManyRequests):
        _evict(server, "t2", gracePeriodSeconds=0)
    assert deletes.count == 1 and not _gone(server, "t2")


def test_ignore_pdb_disruptions_allowed_pending_becomes_running() -> None:
    """TestEvictionIngorePDB/pdbs disruptions allowed, pod pending, first delete conflict, pod becomes
    running, continueToPDBs."""
    server = _server()
    _pod(server, "t3", "Pending")
    _pdb(server, 1)
    deletes = _ConflictingDeletes(server, stay_pending=False)
    assert _evict(server, "t3", gracePeriodSeconds=0).status == "Success"
    assert deletes.count == 2 and _gone(server, "t3")


def test_ignore_pdb_pending_always_conflict_on_delete() -> None:
    """TestEvictionIngorePDB/pod pending, always conflict on delete: EvictionsRetry.Steps deletes."""
    server = _server()
    _pod(server, "t4", "Pending")
    _pdb(server, 0)
    deletes = _ConflictingDeletes(server, always=True)
    with pytest.raises(Conflict):
        _evict(server, "t4", gracePeriodSeconds=0)
    assert deletes.count == EVICTIONS_RETRY_STEPS == 20


def test_ignore_pdb_pending_always_conflict_user_resource_version() -> None:
    """TestEvictionIngorePDB/pod pending, always conflict on delete, user provided ResourceVersion
    constraint: no retry when the caller gave the precondition."""
    server = _server()
    _pod(server, "t5", "Pending")
    _pdb(server, 0)
    deletes = _ConflictingDeletes(server, always=True)
    with pytest.raises(Conflict):
        _evict(server, "t5", preconditions={"resourceVersion": "userProvided"})
    # Upstream's mock counts one delete because its mock Update skips the precondition check that
    # addConditionAndDeletePod's getLatestPod makes; against a real store that check answers the
    # Conflict first, so no delete is attempted.
    assert deletes.count == 0


def test_ignore_pdb_terminating_pod() -> None:
    """TestEvictionIngorePDB/matching pdbs with no disruptions allowed, pod terminating."""
    server = _server()
    _pod(server, "t6", "Running", "True")
    server.delete(Pod, "t6", "default", grace_period_seconds=30)
    _pdb(server, 0)
    deletes = _ConflictingDeletes(server, first_conflict=False)
    assert _evict(server, "t6", gracePeriodSeconds=300).status == "Success"
    assert deletes.count == 1


def test_ignore_pdb_healthy_pod_unhealthy_pod_not_ours() -> None:
    """TestEvictionIngorePDB/matching pdbs with no disruptions allowed, pod running, pod healthy,
    unhealthy pod not ours."""
    server = _server()
    _pod(server, "t7", "Running", "True")
    _pdb(server, 0, healthy=2, desired=2)
    deletes = _ConflictingDeletes(server, first_conflict=False)
    with pytest.raises(TooManyRequests):
        _evict(server, "t7", gracePeriodSeconds=0)
    assert deletes.count == 0


def test_ignore_pdb_unhealthy_pod_ours() -> None:
    """TestEvictionIngorePDB/matching pdbs with no disruptions allowed, pod running, pod unhealthy,
    unhealthy pod ours: deleted without spending the budget."""
    server = _server()
    _pod(server, "t8", "Running", "False")
    _pdb(server, 0, healthy=2, desired=2)
    deletes = _ConflictingDeletes(server, first_conflict=False)
    assert _evict(server, "t8", gracePeriodSeconds=0).status == "Success"
    assert deletes.count == 1 and _gone(server, "t8")
    assert server.get(PodDisruptionBudget, "foo", "default").status.disruptions_allowed == 0


def test_ignore_pdb_unhealthy_pod_ours_resource_version_conflict_is_429() -> None:
    """TestEvictionIngorePDB/... pod unhealthy, unhealthy pod ours, resource version conflict: the
    Conflict of the delete becomes the 429 "still being processed" retry error."""
    server = _server()
    _pod(server, "t9", "Running", "False")
    _pdb(server, 0, healthy=2, desired=2)
    deletes = _ConflictingDeletes(server)
    with pytest.raises(TooManyRequests) as err:
        _evict(server, "t9", gracePeriodSeconds=0)
    assert deletes.count == 1
    assert err.value.status.details.causes[0].message == (
        "The disruption budget foo is still being processed by the server.")
    assert err.value.status.details.retry_after_seconds == 10


def test_ignore_pdb_unhealthy_pod_ours_other_error_on_delete() -> None:
    """TestEvictionIngorePDB/... pod unhealthy, unhealthy pod ours, other error on delete: passed on."""
    server = _server()
    _pod(server, "t10", "Running", "False")
    _pdb(server, 0, healthy=2, desired=2)
    deletes = _ConflictingDeletes(server, other=True)
    with pytest.raises(BadRequest) as err:
        _evict(server, "t10", gracePeriodSeconds=0)
    assert deletes.count == 1 and err.value.message == "test designed to error"


@pytest.mark.parametrize(("policy", "deleted"), [("IfHealthyBudget", False), ("AlwaysAllow", True)])
def test_unhealthy_pod_eviction_policy_with_insufficient_budget(policy: str, deleted: bool) -> None:
    """eviction.go ``canIgnorePDB``/unhealthyPodEvictionPolicy (KEP-3017): an unready pod of a PDB below
    its desired health goes only with AlwaysAllow."""
    server = _server()
    _pod(server, "t", "Running", "False")
    _pdb(server, 0, healthy=1, desired=2, unhealthyPodEvictionPolicy=policy)
    if deleted:
        assert _evict(server, "t", gracePeriodSeconds=0).status == "Success"
    else:
        with pytest.raises(TooManyRequests):
            _evict(server, "t", gracePeriodSeconds=0)
    assert _gone(server, "t") is deleted


# -- TestEvictionDryRun ------------------------------------------------------------------------------

@pytest.mark.parametrize(("case", "request_dry_run", "options_dry_run", "with_pdb"), [
    ("just request-options", True, None, False),
    ("just eviction-options", False, ["All"], False),
    ("both options", True, ["All"], False),
    ("with pdbs", True, ["All"], True),
])
def test_eviction_dry_run(case: str, request_dry_run: bool, options_dry_run: list[str] | None,
                          with_pdb: bool) -> None:
    """TestEvictionDryRun/<case>: success, and nothing is written (pod, condition, budget)."""
    server = _server()
    pod = _pod(server, "foo", "Running", "True")
    if with_pdb:
        _pdb(server, 1)
    before = server.get(PodDisruptionBudget, "foo", "default") if with_pdb else None
    options = {"dryRun": options_dry_run} if options_dry_run else {}
    assert _evict(server, "foo", dry_run=request_dry_run, **options).status == "Success"
    after = server.get(Pod, "foo", "default")
    assert after.metadata.resource_version == pod.metadata.resource_version
    assert after.metadata.deletion_timestamp is None
    if before is not None:
        assert server.get(PodDisruptionBudget, "foo", "default").metadata.resource_version == \
            before.metadata.resource_version


# -- TestEvictionPDBStatus ---------------------------------------------------------------------------

@pytest.mark.parametrize(("case", "allowed", "expected_allowed", "expected_reason"), [
    ("pdb status is updated after eviction", 1, 0, "InsufficientPods"),
    ("condition reason is only updated if AllowedDisruptions becomes 0", 3, 2, "SufficientPods"),
])
def test_eviction_pdb_status(case: str, allowed: int, expected_allowed: int, expected_reason: str) -> None:
    """TestEvictionPDBStatus/<case>: two Running pods, foo-1 evicted with empty DeleteOptions."""
    server = _server()
    for name in ("foo-1", "foo-2"):
        _pod(server, name, "Running")
    _pdb(server, allowed, conditions=[{"type": "DisruptionAllowed", "reason": "SufficientPods",
                                       "status": "True"}])
    assert _evict(server, "foo-1").status == "Success"
    status = server.get(PodDisruptionBudget, "foo", "default").status
    assert status.disruptions_allowed == expected_allowed
    cond = next(c for c in status.conditions if c.type == "DisruptionAllowed")
    assert cond.reason == expected_reason
    assert set(status.disrupted_pods or {}) == {"foo-1"}



# -- the Eviction's DeleteOptions go through ValidateDeleteOptions ------------------------------------

@pytest.mark.parametrize(("options", "cause"), [
    ({"propagationPolicy": "Bogus"},
     ("propagationPolicy", "FieldValueNotSupported",
      'Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"')),
    ({"dryRun": ["Bogus"]},
     ("dryRun", "FieldValueNotSupported", 'Unsupported value: ["Bogus"]: supported values: "All"')),
    ({"orphanDependents": True, "propagationPolicy": "Orphan"},
     ("propagationPolicy", "FieldValueInvalid",
      'Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set')),
])
def test_invalid_delete_options_are_a_422(options: dict[str, Any], cause: tuple[str, str, str]) -> None:
    """Upstream's pod store ``Delete`` runs ``rest.BeforeDelete`` → ``ValidateDeleteOptions`` on the
    Eviction's deleteOptions (k8s.io/apiserver ``pkg/registry/rest/delete.go``; apimachinery
    ``pkg/apis/meta/v1/validation``): a 422 of ``DeleteOptions.meta.k8s.io ""``, the pod is not deleted.
    kbatch checks before spending the budget (upstream: after checkAndDecrement; docs/pdb.md)."""
    server = _server()
    pod = _pod(server, "t", "Running", "True")
    _pdb(server, 1)
    with pytest.raises(Invalid) as err:
        _evict(server, "t", **options)
    status = err.value.status.to_dict()
    assert status["code"] == 422
    assert status["details"]["kind"] == "DeleteOptions" and status["details"]["group"] == "meta.k8s.io"
    assert [(c["field"], c["reason"], c["message"]) for c in status["details"]["causes"]] == [cause]
    after = server.get(Pod, "t", "default")
    assert after.metadata.resource_version == pod.metadata.resource_version  # no condition, no delete
    assert server.get(PodDisruptionBudget, "foo", "default").status.disruptions_allowed == 1


def test_disrupted_pods_map_too_big_is_forbidden() -> None:
    """eviction.go ``checkAndDecrement``: more than MaxDisruptedPodSize (2000) unconfirmed evictions."""
    server = _server()
    _pod(server, "t", "Running", "True")
    _pdb(server, 1)
    pdb = edit(server.get(PodDisruptionBudget, "foo", "default"))
    pdb.status.disrupted_pods = {f"p{i}": NOW for i in range(2001)}  # type: ignore[union-attr]
    server.update_status(pdb)
    with pytest.raises(Forbidden) as err:
        _evict(server, "t")
    assert err.value.message == ('poddisruptionbudget.policy "foo" is forbidden: DisruptedPods map too big - '
                                 "too many evictions not confirmed by PDB controller")
    assert not _gone(server, "t")


def test_eviction_in_another_namespace_is_a_400() -> None:
    """The create handler's ``EnsureObjectNamespaceMatchesRequestNamespace`` (k8s.io/apiserver
    ``handlers/create.go``) runs before EvictionREST.Create: an Eviction naming another namespace than
    the URL's is a BadRequest, and nothing is evicted."""
    server = _server()
    _pod(server, "t", "Running", "True")
    eviction = Eviction.model_validate({"metadata": {"name": "t", "namespace": "other"}})
    with pytest.raises(BadRequest) as err:
        server.evict("t", "default", eviction)
    assert err.value.message == ("the namespace of the provided object does not match the namespace sent "
                                 "on the request")
    assert server.get(Pod, "t", "default").metadata.deletion_timestamp is None
