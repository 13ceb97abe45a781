"""The Job controller's metrics, named and labelled as upstream's (pkg/controller/job/metrics/metrics.go,
subsystem ``job_controller``), registered on the control plane's :class:`MetricsRegistry`.

Where each one moves (job_controller.go):

* ``job_sync_duration_seconds`` / ``job_syncs_total`` {completion_mode, result, action} — once per
  sync of an unfinished, self-managed Job with a known completion mode (``syncJob``'s deferred
  recording). ``action`` is ``reconciling`` unless ``manageJob`` ran: then ``pods_created`` (also when
  creations wait for the back-off), ``pods_deleted`` or ``tracking``. The duration is the control
  plane's clock: under the virtual clock a sync takes no time, so every sync observes 0 there; under
  ``--clock real`` it is the wall time of the sync.
* ``jobs_finished_total`` {completion_mode, result, reason} — when the terminal condition is written
  (``recordJobFinished``); ``reason`` is the condition's (``CompletionsReached``, ``SuccessPolicy``,
  ``BackoffLimitExceeded``, …), as with JobSuccessPolicy on (kubernetes#123412).
* ``job_pods_finished_total`` {completion_mode, result} and ``job_finished_indexes_total``
  {status, backoffLimit} — counter differences at each status write (``recordJobPodFinished``).
* ``pod_failures_handled_by_failure_policy_total`` {action} — failed pods matched by a
  podFailurePolicy rule, when they are recorded (``recordJobPodFailurePolicyActions``).
* ``terminated_pods_tracking_finalizer_total`` {event} — a Succeeded/Failed pod holding the tracking
  finalizer appears (``add``) or stops being one (``delete``), whoever owns it
  (``recordFinishedPodWithTrackingFinalizer``).
* ``job_pods_creation_total`` {reason, status} — pod creations by reason ``new``,
  ``recreate_terminating_or_failed`` or ``recreate_failed`` (``recordJobPodsCreationTotal``); unlike
  upstream, a failed creation is not also counted as succeeded.
* ``jobs_by_external_controller_total`` {controller_name} — a Job with a foreign ``spec.managedBy``
  is added (``addJob``).
"""

from __future__ import annotations

from kbatch.api.batch_indexes import iter_indexes, parse_indexes_lenient
from kbatch.controllers.job.views import JobStatusInfo
from kbatch.runtime.metrics import MetricsRegistry, exponential_buckets

__all__ = ["JobMetrics"]

_P = "job_controller_"


def _index_count(text: str | None, completions: int | None) -> int:
    if not text:
        return 0
    return sum(1 for _ in iter_indexes(parse_indexes_lenient(text, completions or 0)))


class JobMetrics:
    """The families, registered once per registry, and the upstream recording helpers."""

    def __init__(self, registry: MetricsRegistry) -> None:
        r = registry
        self.sync_duration = r.histogram(
            _P + "job_sync_duration_seconds", "The time it took to sync a job",
            ("completion_mode", "result", "action"), exponential_buckets(0.004, 2, 15))
        self.syncs = r.counter(_P + "job_syncs_total", "The number of job syncs",
                               ("completion_mode", "result", "action"))
        self.finished = r.counter(_P + "jobs_finished_total", "The number of finished jobs",
                                  ("completion_mode", "result", "reason"))
        self.external = r.counter(_P + "jobs_by_external_controller_total",
                                  "The number of Jobs managed by an external controller",
                                  ("controller_name",))
        self.pods_finished = r.counter(_P + "job_pods_finished_total",
                                       "The number of finished Pods that are fully tracked",
                                       ("completion_mode", "result"))
        self.policy_actions = r.counter(
            _P + "pod_failures_handled_by_failure_policy_total",
            "The number of failed Pods handled by failure policy with respect to the failure policy "
            "action applied based on the matched rule", ("action",))
        self.tracking_finalizer = r.counter(
            _P + "terminated_pods_tracking_finalizer_total",
            "The number of terminated pods (phase=Failed|Succeeded) that have the finalizer "
            "batch.kubernetes.io/job-tracking", ("event",))
        self.finished_indexes = r.counter(_P + "job_finished_indexes_total", "The number of finished indexes",
                                          ("status", "backoffLimit"))
        self.pods_created = r.counter(
            _P + "job_pods_creation_total",
            "The number of Pods created by the Job controller labelled with a reason for the Pod creation",
            ("reason", "status"))

    def sync(self, mode: str, result: str, action: str, seconds: float) -> None:
        self.sync_duration.labels(mode, result, action).observe(seconds)
        self.syncs.labels(mode, result, action).inc()

    def job_finished(self, mode: str, cond_type: str, reason: str) -> None:
        result = "succeeded" if cond_type == "Complete" else "failed"
        self.finished.labels(mode, result, reason).inc()

    def pods_finished_between(self, old: JobStatusInfo, new: JobStatusInfo, indexed: bool,
                              completions: int | None, per_index: bool) -> None:
        """``recordJobPodFinished``: what one status write moved (negative moves are not counted)."""
        mode = "Indexed" if indexed else "NonIndexed"
        if indexed:
            diff = 0
            if new.completed_indexes != old.completed_indexes:
                diff = (_index_count(new.completed_indexes, completions)
                        - _index_count(old.completed_indexes, completions))
            label = "perIndex" if per_index else "global"
            self.finished_indexes.labels("succeeded", label).inc(max(diff, 0))
            if per_index and new.failed_indexes != old.failed_indexes:
                failed = (_index_count(new.failed_indexes, completions)
                          - _index_count(old.failed_indexes, completions))
                if failed > 0:
                    self.finished_indexes.labels("failed", label).inc(failed)
        else:
            diff = new.succeeded - old.succeeded
        self.pods_finished.labels(mode, "succeeded").inc(max(diff, 0))
        self.pods_finished.labels(mode, "failed").inc(max(new.failed - old.failed, 0))
