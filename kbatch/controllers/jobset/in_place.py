"""In-place restart (``restartStrategy: InPlaceRestart``, InPlaceRestart gate; upstream
``pkg/controllers/in_place_restart.go``, KEP-467).

An agent in each pod (not simulated by kbatch: tests and users play it by annotating pods) writes the
pod's in-place restart attempt in ``jobset.sigs.k8s.io/in-place-restart-attempt``; the controller
reads the JobSet's pods and:

1. fails the JobSet (``ReachedMaxRestarts``, no job named) when a container restarted more than
   ``maxRestarts`` times, or when the highest attempt, less the restarts that did not count,
   exceeds ``maxRestarts``;
2. when every expected pod (``replicas`` x ``parallelism`` summed over the replicated jobs, which
   must each have ``completions == parallelism``) reports the same attempt, sets
   ``status.currentInPlaceRestartAttempt`` to it: the agents lift their barrier;
3. otherwise, once some pod is past attempt 0, raises ``status.previousInPlaceRestartAttempt`` to the
   highest attempt minus one (never lowering it): pods at or below it restart in place.

Failed pods and pods without the annotation are not counted.
"""

from __future__ import annotations

from kbatch.api import jobset_constants as c
from kbatch.api.go_int import int32, parse_int
from kbatch.controllers.jobset.children import ChildError
from kbatch.controllers.jobset.conditions import Draft, set_failed
from kbatch.controllers.jobset.views import JobSetView, PodView

__all__ = ["reconcile_in_place_restart"]


def _attempts(pods: tuple[PodView, ...]) -> list[int]:
    out = []
    for pod in pods:
        if pod.phase == "Failed" or pod.in_place_restart_attempt is None:
            continue
        # upstream strconv.Atoi, refusing a negative, then int32() (pkg/controllers/in_place_restart.go)
        value = parse_int(pod.in_place_restart_attempt)
        if value is None or value < 0:
            raise ChildError(f"invalid value for annotation {c.IN_PLACE_RESTART_ATTEMPT_KEY}, must be "
                             "non-negative integer")
        out.append(int32(value))
    return out


def _total_pods(js: JobSetView) -> int:
    total = 0
    for rjob in js.replicated_jobs:
        if rjob.completions is None or rjob.parallelism is None or rjob.completions != rjob.parallelism:
            raise ChildError(f"{rjob.name}: in-place restart requires jobTemplate.spec.completions == "
                             "jobTemplate.spec.parallelism != nil")
        total += rjob.replicas * rjob.parallelism
    return total


def reconcile_in_place_restart(js: JobSetView, pods: tuple[PodView, ...], draft: Draft) -> None:
    if max((p.max_restart_count for p in pods), default=0) > js.max_restarts:
        set_failed(draft, c.REACHED_MAX_RESTARTS_REASON, c.REACHED_MAX_RESTARTS_MESSAGE)
        return
    attempts = _attempts(pods)
    st = draft.status
    uncounted = st.restarts - st.restarts_count_towards_max
    if max(attempts, default=0) - uncounted > js.max_restarts:
        set_failed(draft, c.REACHED_MAX_RESTARTS_REASON, c.REACHED_MAX_RESTARTS_MESSAGE)
        return
    total = _total_pods(js)
    if attempts and len(attempts) == total and len(set(attempts)) == 1:
        if st.current_in_place_restart_attempt != attempts[0]:
            draft.update(current_in_place_restart_attempt=attempts[0])
        return
    if not attempts or max(attempts) == 0:
        return
    previous = max(attempts) - 1
    old = st.previous_in_place_restart_attempt
    if old is not None and previous <= old:
        return
    draft.update(previous_in_place_restart_attempt=previous)
