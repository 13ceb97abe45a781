"""The ``pods/eviction`` subresource: delete a pod unless that would violate its PodDisruptionBudget.

Upstream ``pkg/registry/core/pod/storage/eviction.go`` (``EvictionREST.Create``), step by step:

1. The Eviction must be in the URL's namespace (the create handler's
   ``EnsureObjectNamespaceMatchesRequestNamespace``, k8s.io/apiserver ``handlers/create.go``: a
   ``BadRequest``) and name the pod of the URL (``BadRequest``: "name in URL does not match name in
   Eviction object"); a request dryRun and a different ``deleteOptions.dryRun`` is an error. The
   ``deleteOptions`` must pass ``ValidateDeleteOptions`` (a 422 of ``DeleteOptions.meta.k8s.io ""``).
   Upstream that check is the pod store's ``rest.BeforeDelete`` (k8s.io/apiserver
   ``pkg/registry/rest/delete.go``), reached only after step 5 spent the budget and the condition was
   written; kbatch answers the same 422 before any write (docs/pdb.md).
2. A pod that is ``Succeeded``, ``Failed`` or ``Pending``, or already terminating (deletionTimestamp
   set), ignores PDBs: it gets ``DisruptionTarget=True`` (reason ``EvictionByEvictionAPI``, message
   "Eviction API: evicting") and is deleted with the Eviction's ``deleteOptions``. A pending pod is
   deleted with its current resourceVersion as a precondition (not racing a pod becoming ready).
   Conflicts are retried unless the caller gave a resourceVersion precondition.
3. Otherwise the PDBs of the namespace whose selector picks the pod are listed. More than one: a
   ``Status`` with code 500 "This pod has more than one PodDisruptionBudget, which the eviction
   subresource does not support." (returned, not raised, upstream — no reason). None: delete.
4. A pod that is not Ready: with ``unhealthyPodEvictionPolicy: AlwaysAllow``, or with
   ``IfHealthyBudget`` (the default) while ``currentHealthy >= desiredHealthy > 0``, it is deleted
   without touching the budget (resourceVersion precondition; a Conflict then becomes the 429).
5. Else ``checkAndDecrement`` on the PDB (re-read and retried on Conflict): status not yet observed
   → 429 "...still being processed by the server." (retry after 10 s); ``disruptionsAllowed < 0`` or
   more than 2000 ``disruptedPods`` → Forbidden; ``disruptionsAllowed == 0`` → 429 "Cannot evict pod
   as it would violate the pod's disruption budget." with a ``DisruptionBudget`` cause "The
   disruption budget <pdb> needs <desired> healthy pods and has <current> currently". Otherwise one
   status write decrements ``disruptionsAllowed`` (updating the DisruptionAllowed condition when it
   reaches 0) and records ``disruptedPods[pod] = now``; then the condition and the delete.

The condition write is a status update of the latest pod; the condition's ``observedGeneration`` is
that pod's ``metadata.generation`` (KEP-5067 Pod Generation, ``PodObservedGenerationTracking`` beta
and on since 1.34: every writer of a pod condition records the generation it acted on, as
:func:`kbatch.api.pod_generation.with_observed_generation`; the delete then bumps the generation
past it). The Eviction's uid / resourceVersion preconditions are checked against that pod ("the
UID in the precondition (a) does not match the UID in record (b). The object might have been deleted
and then recreated"); a resourceVersion precondition then moves to the version that write
produced. dryRun decrements nothing and writes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.base import format_time
from kbatch.api.core_v1 import Pod, PodCondition, PodStatus
from kbatch.api.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    InternalError,
    Status,
    StatusCause,
    StatusDetails,
    StatusError,
    TooManyRequests,
)
from kbatch.api.frozen import edit
from kbatch.api.pod_generation import with_observed_generation
from kbatch.api.policy_helpers import matching_pdbs, pod_is_ready, update_disruption_allowed_condition
from kbatch.api.policy_v1 import (
    ALWAYS_ALLOW,
    DISRUPTION_BUDGET_CAUSE,
    DeleteOptions,
    DeletePreconditions,
    Eviction,
    PodDisruptionBudget,
    PodDisruptionBudgetStatus,
)
from kbatch.apiserver.client import Preconditions
from kbatch.apiserver.write_options import check_delete_options, delete_option_errors

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["EVICTION_MESSAGE", "EVICTION_REASON", "MAX_DISRUPTED_POD_SIZE", "MultiplePDBs", "evict_pod"]

EVICTION_REASON = "EvictionByEvictionAPI"
EVICTION_MESSAGE = "Eviction API: evicting"
MAX_DISRUPTED_POD_SIZE = 2000
EVICTIONS_RETRY_STEPS = 20  # upstream EvictionsRetry: 20 steps
VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."
_TERMINAL = ("Succeeded", "Failed")


class MultiplePDBs(StatusError):
    """Upstream returns this ``Status`` (code 500, no reason) instead of raising it."""

    code = 500
    reason = None  # type: ignore[assignment]


def _too_many_requests(cause: str, retry_after: int = 0) -> TooManyRequests:
    details = StatusDetails(causes=[StatusCause(reason=DISRUPTION_BUDGET_CAUSE, message=cause)],
                            retry_after_seconds=retry_after or None)
    return TooManyRequests(VIOLATION, details=details)


def _still_processing(pdb_name: str) -> TooManyRequests:
    return _too_many_requests(f"The disruption budget {pdb_name} is still being processed by the server.", 10)


def _forbidden(pdb_name: str, why: str) -> Forbidden:
    details = StatusDetails(name=pdb_name, group="policy", kind="poddisruptionbudget")
    return Forbidden(f'poddisruptionbudget.policy "{pdb_name}" is forbidden: {why}', details=details)


def _success() -> Status:
    return Status(status="Success")


def _merge_dry_run(eviction: Eviction, dry_run: bool) -> DeleteOptions:
    """``propagateDryRun``: the request's dryRun fills an unset ``deleteOptions.dryRun``."""
    options = eviction.delete_options.model_copy(deep=True) if eviction.delete_options else DeleteOptions()
    request = ["All"] if dry_run else []
    if not options.dry_run:
        options.dry_run = request or None
    elif request and options.dry_run != request:
        raise InternalError(f"Internal error occurred: Non-matching dry-run options in request and content: "
                            f"[{' '.join(request)}] and [{' '.join(options.dry_run)}]")
    return options


def _rv_unset(options: DeleteOptions) -> bool:
    return options.preconditions is None or options.preconditions.resource_version is None


def _with_rv(options: DeleteOptions, resource_version: str | None) -> DeleteOptions:
    out = options.model_copy(deep=True)
    pre = out.preconditions or DeletePreconditions()
    pre.resource_version = resource_version
    out.preconditions = pre
    return out


def _can_ignore_pdb(pod: Pod) -> bool:
    phase = pod.status.phase if pod.status else None
    return phase in (*_TERMINAL, "Pending") or pod.metadata.deletion_timestamp is not None


def _enforce_rv(pod: Pod) -> bool:
    phase = pod.status.phase if pod.status else None
    return phase not in _TERMINAL and pod.metadata.deletion_timestamp is None


def evict_pod(server: APIServer, name: str, namespace: str, eviction: Eviction, *,
              dry_run: bool = False) -> Status:
    """``POST pods/{name}/eviction``: the pod is deleted (``Success``) or a StatusError says why not."""
    if eviction.metadata.namespace not in (None, "", namespace):
        raise BadRequest("the namespace of the provided object does not match the namespace sent on the "
                         "request")
    if eviction.metadata.name != name:
        raise BadRequest("name in URL does not match name in Eviction object")
    options = _merge_dry_run(eviction, dry_run)
    check_delete_options(delete_option_errors(options.dry_run or [], options.propagation_policy,
                                              options.orphan_dependents is not None))
    pod = _delete_if_pdb_can_be_ignored(server, name, namespace, options)
    if pod is None:
        return _success()
    pdbs = matching_pdbs(server.list(PodDisruptionBudget, namespace).items, namespace, pod.metadata.labels)
    if len(pdbs) > 1:
        raise MultiplePDBs("This pod has more than one PodDisruptionBudget, which the eviction subresource "
                           "does not support.")
    delete_options, pdb_name = options, ""
    if pdbs:
        pdb = pdbs[0]
        pdb_name = pdb.name
        if _unhealthy_may_go(pod, pdb):
            delete_options = _with_rv(options, pod.metadata.resource_version)
        else:
            _check_and_decrement_with_retry(server, pod, pdb, bool(options.dry_run))
    try:
        _add_condition_and_delete(server, name, namespace, delete_options)
    except Conflict:
        if delete_options is not options and _rv_unset(options):
            raise _still_processing(pdb_name) from None
        raise
    return _success()


def _delete_if_pdb_can_be_ignored(server: APIServer, name: str, namespace: str,
                                  options: DeleteOptions) -> Pod | None:
    """Step 2: the pod (when PDBs must be checked) or None once it was deleted."""
    retry_conflicts = _rv_unset(options)
    for attempt in range(EVICTIONS_RETRY_STEPS):
        pod = server.get(Pod, name, namespace)
        if not _can_ignore_pdb(pod):
            return pod
        delete_options = options
        if _enforce_rv(pod) and _rv_unset(options):
            delete_options = _with_rv(options, pod.metadata.resource_version)
        try:
            _add_condition_and_delete(server, name, namespace, delete_options)
        except Conflict:
            if not retry_conflicts or attempt == EVICTIONS_RETRY_STEPS - 1:
                raise
            continue
        return None
    raise AssertionError("unreachable")  # pragma: no cover


def _unhealthy_may_go(pod: Pod, pdb: PodDisruptionBudget) -> bool:
    """Step 4 (KEP-3017): an unready pod is deleted without spending the budget."""
    if pod_is_ready(pod):
        return False
    if pdb.spec.unhealthy_pod_eviction_policy == ALWAYS_ALLOW:
        return True
    status = pdb.status or PodDisruptionBudgetStatus()
    return status.current_healthy >= status.desired_healthy and status.desired_healthy > 0


def _check_and_decrement_with_retry(server: APIServer, pod: Pod, pdb: PodDisruptionBudget,
                                    dry_run: bool) -> None:
    for attempt in range(EVICTIONS_RETRY_STEPS):
        try:
            _check_and_decrement(server, pod.name, pdb, dry_run)
            return
        except Conflict:
            if attempt == EVICTIONS_RETRY_STEPS - 1:
                raise
            pdb = server.get(PodDisruptionBudget, pdb.name, pdb.metadata.namespace)


def _check_and_decrement(server: APIServer, pod_name: str, pdb: PodDisruptionBudget, dry_run: bool) -> None:
    status = pdb.status or PodDisruptionBudgetStatus()
    if (status.observed_generation or 0) < (pdb.metadata.generation or 0):
        raise _still_processing(pdb.name)
    if status.disruptions_allowed < 0:
        raise _forbidden(pdb.name, "pdb disruptions allowed is negative")
    if len(status.disrupted_pods or {}) > MAX_DISRUPTED_POD_SIZE:
        raise _forbidden(pdb.name, "DisruptedPods map too big - too many evictions not confirmed by PDB "
                                   "controller")
    if status.disruptions_allowed == 0:
        raise _too_many_requests(f"The disruption budget {pdb.name} needs {status.desired_healthy} healthy "
                                 f"pods and has {status.current_healthy} currently")
    if dry_run:
        return
    pdb = edit(pdb)
    status = pdb.status or PodDisruptionBudgetStatus()
    status.disruptions_allowed -= 1
    now = server.timestamp()
    if status.disruptions_allowed == 0:
        update_disruption_allowed_condition(status, now)
    status.disrupted_pods = {**(status.disrupted_pods or {}), pod_name: now}
    pdb.status = status
    server.update_status(pdb)  # guarded by pdb's resourceVersion: Conflict when it moved on


def _add_condition_and_delete(server: APIServer, name: str, namespace: str, options: DeleteOptions) -> None:
    """``addConditionAndDeletePod``: DisruptionTarget on the latest pod (a status write), then delete."""
    pre = options.preconditions
    if not options.dry_run:
        written_rv = _add_disruption_condition(server, name, namespace, pre)
        if pre is not None and pre.resource_version is not None:
            pre = DeletePreconditions(uid=pre.uid, resource_version=written_rv)
    policy = options.propagation_policy
    if policy is None and options.orphan_dependents:
        policy = "Orphan"
    preconditions = Preconditions(uid=pre.uid, resource_version=pre.resource_version) if pre else None
    server.delete(Pod, name, namespace, propagation_policy=policy,
                  grace_period_seconds=options.grace_period_seconds, preconditions=preconditions,
                  dry_run=bool(options.dry_run))


def _add_disruption_condition(server: APIServer, name: str, namespace: str,
                              pre: DeletePreconditions | None) -> str | None:
    """The pod's resourceVersion after the write (unchanged when the condition was already there)."""
    for _ in range(EVICTIONS_RETRY_STEPS):
        pod = edit(server.get(Pod, name, namespace))
        _check_eviction_preconditions(name, pod, pre)
        if not _set_disruption_target(server, pod):
            return pod.metadata.resource_version
        try:
            return server.update_status(pod).metadata.resource_version
        except Conflict:
            continue
    raise Conflict.stale("pods", name)


def _check_eviction_preconditions(name: str, pod: Pod, pre: DeletePreconditions | None) -> None:
    if pre is None:
        return
    uid, rv = pod.metadata.uid, pod.metadata.resource_version
    if pre.uid and pre.uid != uid:
        raise Conflict.of("Pod", name, f"the UID in the precondition ({pre.uid}) does not match the UID in "
                          f"record ({uid}). The object might have been deleted and then recreated")
    if pre.resource_version and pre.resource_version != rv:
        raise Conflict.of("Pod", name, f"the ResourceVersion in the precondition ({pre.resource_version}) "
                          f"does not match the ResourceVersion in record ({rv}). The object might have "
                          "been modified")


def _set_disruption_target(server: APIServer, pod: Pod) -> bool:
    """``podutil.UpdatePodCondition``: False when nothing would change (observedGeneration included)."""
    status = pod.status if pod.status is not None else PodStatus()
    pod.status = status
    conditions = list(status.conditions or ())
    new = PodCondition.model_validate(with_observed_generation(
        {"type": "DisruptionTarget", "status": "True", "reason": EVICTION_REASON, "message": EVICTION_MESSAGE,
         "lastTransitionTime": format_time(server.timestamp())}, pod.metadata.generation))
    for i, old in enumerate(conditions):
        if old.type != "DisruptionTarget":
            continue
        if old.status == new.status:
            new.last_transition_time = old.last_transition_time
        if (old.status, old.reason, old.message, old.last_transition_time, old.observed_generation) == \
                (new.status, new.reason, new.message, new.last_transition_time, new.observed_generation):
            return False
        conditions[i] = new.model_copy(update={"last_probe_time": old.last_probe_time})
        break
    else:
        conditions.append(new)
    status.conditions = conditions
    return True
