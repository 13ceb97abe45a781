"""Plain values the Job decision core reads: a slim, immutable view of a Job and of its Pods.

The decision (``sync.py``) never touches API models or the store. The controller's edge builds
these views from the typed objects (``adapt.py``) and turns the decision back into API calls. Keeping
the core on frozen dataclasses makes it testable without a store and cheap on large Jobs.

Field meanings follow k8s.io/api batch/v1 and core/v1 ``types.go``; only what the upstream Job
controller (pkg/controller/job/job_controller.go) looks at is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kbatch.api.batch_constants import JOB_COMPLETION_INDEX_ANNOTATION
from kbatch.api.go_int import parse_int as go_parse_int

__all__ = [
    "UNKNOWN_INDEX",
    "ContainerInfo",
    "ExitCodesRule",
    "JobCondition",
    "JobInfo",
    "JobStatusInfo",
    "PodConditionInfo",
    "PodFailurePolicyRule",
    "PodInfo",
    "SuccessPolicyRule",
    "parse_int",
]

UNKNOWN_INDEX = -1


def parse_int(text: str | None) -> int | None:
    """Go's ``strconv.Atoi`` on an annotation value (64-bit: ``ParseInt(s, 10, 0)``): optional sign,
    ASCII digits, within int64; None when absent or when Atoi fails."""
    return None if text is None else go_parse_int(text, 64)


@dataclass(frozen=True, slots=True)
class ContainerInfo:
    """One container status: its name, restart count and, when terminated, exit code and end time."""

    name: str
    restart_count: int = 0
    exit_code: int | None = None  # set only when ``state.terminated`` is set
    finished_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class PodConditionInfo:
    type: str
    status: str
    last_transition_time: datetime | None = None


@dataclass(frozen=True, slots=True)
class PodInfo:
    """What the Job controller reads from a Pod."""

    name: str
    uid: str
    phase: str = "Pending"
    namespace: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    has_finalizer: bool = True
    creation_timestamp: datetime | None = None
    deletion_timestamp: datetime | None = None
    deletion_grace_period_seconds: int | None = None
    node_name: str | None = None
    conditions: tuple[PodConditionInfo, ...] = ()
    containers: tuple[ContainerInfo, ...] = ()
    init_containers: tuple[ContainerInfo, ...] = ()
    # The version the view was made of (the controller reuses a view while it holds): bookkeeping,
    # not part of what the pod is.
    resource_version: str | None = field(default=None, repr=False, compare=False)
    # The completion-index annotation read once per view (upstream ``getCompletionIndex``), since a
    # sync asks for it several times per pod: UNKNOWN_INDEX when absent, invalid or negative.
    index: int = field(init=False, default=UNKNOWN_INDEX, repr=False, compare=False)

    def __post_init__(self) -> None:
        value = parse_int(self.annotations.get(JOB_COMPLETION_INDEX_ANNOTATION))
        object.__setattr__(self, "index", UNKNOWN_INDEX if value is None or value < 0 else value)

    @property
    def terminal(self) -> bool:
        return self.phase in ("Succeeded", "Failed")

    def condition(self, type_: str) -> PodConditionInfo | None:
        for cond in self.conditions:
            if cond.type == type_:
                return cond
        return None

    @property
    def ready(self) -> bool:
        cond = self.condition("Ready")
        return cond is not None and cond.status == "True"


@dataclass(frozen=True, slots=True)
class ExitCodesRule:
    operator: str  # In | NotIn
    values: tuple[int, ...]
    container_name: str | None = None


@dataclass(frozen=True, slots=True)
class PodFailurePolicyRule:
    """One ``spec.podFailurePolicy.rules[]`` entry: an action and exactly one requirement."""

    action: str
    on_exit_codes: ExitCodesRule | None = None
    on_pod_conditions: tuple[tuple[str, str], ...] = ()  # (type, status)


@dataclass(frozen=True, slots=True)
class SuccessPolicyRule:
    succeeded_indexes: str | None = None
    succeeded_count: int | None = None


@dataclass(frozen=True, slots=True)
class JobCondition:
    type: str
    status: str
    reason: str = ""
    message: str = ""
    last_probe_time: datetime | None = None
    last_transition_time: datetime | None = None


@dataclass(frozen=True, slots=True)
class JobStatusInfo:
    """``status`` of a Job, as values. ``None`` keeps upstream's "absent" where it matters."""

    conditions: tuple[JobCondition, ...] = ()
    start_time: datetime | None = None
    completion_time: datetime | None = None
    active: int = 0
    ready: int | None = None
    succeeded: int = 0
    failed: int = 0
    terminating: int | None = None
    completed_indexes: str = ""
    failed_indexes: str | None = None
    uncounted_succeeded: tuple[str, ...] = ()
    uncounted_failed: tuple[str, ...] = ()
    has_uncounted: bool = False  # status.uncountedTerminatedPods present (even if empty)

    def condition(self, type_: str) -> JobCondition | None:
        for cond in self.conditions:
            if cond.type == type_:
                return cond
        return None

    def is_true(self, type_: str) -> bool:
        cond = self.condition(type_)
        return cond is not None and cond.status == "True"


@dataclass(frozen=True, slots=True)
class JobInfo:
    """What the Job controller reads from a Job (spec already defaulted by the API server)."""

    name: str
    namespace: str
    uid: str
    parallelism: int = 1
    completions: int | None = 1
    indexed: bool = False
    completion_mode: str = "NonIndexed"
    backoff_limit: int = 6
    backoff_limit_per_index: int | None = None
    max_failed_indexes: int | None = None
    active_deadline_seconds: int | None = None
    suspend: bool = False
    pod_replacement_policy: str | None = None
    restart_policy: str = "Never"
    pod_failure_policy: tuple[PodFailurePolicyRule, ...] | None = None
    success_policy: tuple[SuccessPolicyRule, ...] | None = None
    managed_by: str | None = None
    deletion_timestamp: datetime | None = None
    template: dict[str, Any] = field(default_factory=dict)  # spec.template in wire form
    status: JobStatusInfo = field(default_factory=JobStatusInfo)

    @property
    def only_replace_failed_pods(self) -> bool:
        """Upstream ``onlyReplaceFailedPods``: replacement waits for phase Failed."""
        return self.pod_replacement_policy == "Failed" or self.pod_failure_policy is not None

    @property
    def finished(self) -> bool:
        return self.status.is_true("Complete") or self.status.is_true("Failed")
