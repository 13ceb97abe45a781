"""The values the JobSet decision works on: frozen views of a JobSet, its child Jobs, its pods.

Built from the API objects by :mod:`kbatch.controllers.jobset.adapt`; property tests build them
directly. Everything here is hashable and immutable: the decision (:mod:`.sync`) never sees a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from kbatch.api import jobset_constants as c

__all__ = [
    "ChildJob",
    "Cond",
    "FailureRule",
    "Gates",
    "JobSetView",
    "PodView",
    "RJob",
    "RJobStatus",
    "Status",
]


@dataclass(frozen=True, slots=True)
class Gates:
    """The JobSet controller's feature gates (``pkg/features/features.go``)."""

    restart_job: bool = False
    in_place_restart: bool = False
    elastic: bool = False


@dataclass(frozen=True, slots=True)
class Cond:
    """A ``metav1.Condition``."""

    type: str
    status: str
    reason: str = ""
    message: str = ""
    last_transition_time: datetime | None = None
    observed_generation: int | None = None


@dataclass(frozen=True, slots=True)
class RJobStatus:
    """One ``replicatedJobsStatus`` entry."""

    name: str
    ready: int = 0
    succeeded: int = 0
    failed: int = 0
    active: int = 0
    suspended: int = 0
    job_restarts: tuple[int, ...] | None = None
    job_restarts_count_towards_max: tuple[int, ...] | None = None

    def same(self, other: RJobStatus) -> bool:
        """``equality.Semantic.DeepEqual``: an empty list equals a missing one."""
        return (self.name, self.ready, self.succeeded, self.failed, self.active, self.suspended,
                self.job_restarts or (), self.job_restarts_count_towards_max or ()) == (
            other.name, other.ready, other.succeeded, other.failed, other.active, other.suspended,
            other.job_restarts or (), other.job_restarts_count_towards_max or ())


@dataclass(frozen=True, slots=True)
class Status:
    """A JobSet's ``status``."""

    conditions: tuple[Cond, ...] = ()
    restarts: int = 0
    restarts_count_towards_max: int = 0
    terminal_state: str = ""
    replicated_jobs_status: tuple[RJobStatus, ...] = ()
    previous_in_place_restart_attempt: int | None = None
    current_in_place_restart_attempt: int | None = None

    def condition(self, type_: str) -> Cond | None:
        return next((x for x in self.conditions if x.type == type_), None)

    def is_true(self, type_: str) -> bool:
        cond = self.condition(type_)
        return cond is not None and cond.status == "True"

    def rjob(self, name: str) -> RJobStatus | None:
        return next((s for s in self.replicated_jobs_status if s.name == name), None)


@dataclass(frozen=True, slots=True)
class RJob:
    """A replicated job, as far as the decision needs it (the template stays in the model)."""

    name: str
    group_name: str = c.DEFAULT_GROUP_NAME
    replicas: int = 1
    depends_on: tuple[tuple[str, str], ...] = ()  # (name, Ready|Complete)
    parallelism: int | None = None
    completions: int | None = None


@dataclass(frozen=True, slots=True)
class FailureRule:
    name: str
    action: str
    on_job_failure_reasons: tuple[str, ...] = ()
    on_job_failure_message_patterns: tuple[str, ...] = ()
    target_replicated_jobs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class JobSetView:
    name: str
    namespace: str
    uid: str = ""
    replicated_jobs: tuple[RJob, ...] = ()
    suspend: bool = False
    deleting: bool = False
    managed_by: str | None = None
    success_operator: str | None = c.OPERATOR_ALL  # None: no successPolicy (webhook off)
    success_targets: tuple[str, ...] = ()
    failure_policy: bool = False
    max_restarts: int = 0
    restart_strategy: str = c.RECREATE
    rules: tuple[FailureRule, ...] = ()
    in_order: bool = False
    dns_hostnames: bool = True
    has_volume_claims: bool = False
    ttl_seconds_after_finished: int | None = None
    status: Status = field(default_factory=Status)

    def replicas_of(self, name: str) -> int:
        return next((r.replicas for r in self.replicated_jobs if r.name == name), 0)

    @property
    def finished(self) -> bool:
        return self.status.is_true(c.COMPLETED) or self.status.is_true(c.FAILED)


@dataclass(frozen=True, slots=True)
class ChildJob:
    """A Job the JobSet controls. Label values are kept raw (``None`` when the label is missing):
    the controller parses them as upstream does, and an unparsable one is an error."""

    name: str
    rjob: str | None = None
    job_index: str | None = None
    restart_attempt: str | None = None
    job_restart_attempt: str | None = None
    finished: str = ""  # "" | Complete | Failed (the first such condition that is True)
    failure_reason: str = ""
    failure_message: str = ""
    failure_time: datetime | None = None
    ready: int = 0
    succeeded: int = 0
    active: int = 0
    parallelism: int | None = 1
    completions: int | None = None
    suspended: bool = False
    deleting: bool = False
    started: bool = False  # status.startTime set

    @property
    def pods_count(self) -> int:
        count = self.parallelism or 0
        if self.completions is not None and self.completions < count:
            count = self.completions
        return count


@dataclass(frozen=True, slots=True)
class PodView:
    """What the in-place restart logic reads of a JobSet's pod."""

    name: str
    phase: str = ""
    in_place_restart_attempt: str | None = None
    max_restart_count: int = 0
