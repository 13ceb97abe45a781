"""The Job's ``spec.scheduling`` (1.37, KEP-5547/KEP-6089; gate WorkloadWithJob, alpha): the building
blocks validated as in a Workload template (``schedulingPolicy`` a ``basic``/``gang`` union with an
optional positive ``minCount``, ``disruptionMode`` a ``single``/``all`` union, at most 4
``resourceClaims``); after creation only ``schedulingPolicy.gang.minCount`` may change (the block, the
policy and its variant may be neither added nor removed)."""

from __future__ import annotations

from kbatch.api.batch_v1 import JobSpec
from kbatch.api.errors import FieldError
from kbatch.api.strategies.scheduling.validation import validate_disruption_mode, validate_scheduling_policy
from kbatch.api.validation import child, validate_immutable

__all__ = ["validate_job_scheduling", "validate_job_scheduling_update"]

MAX_CLAIMS = 4
_PATH = "spec.scheduling"


def validate_job_scheduling(spec: JobSpec) -> list[FieldError]:
    config = spec.scheduling
    if config is None:
        return []
    errs: list[FieldError] = []
    if config.scheduling_policy is not None:
        errs += validate_scheduling_policy(config.scheduling_policy, child(_PATH, "schedulingPolicy"),
                                           min_count_optional=True)
    errs += validate_disruption_mode(config.disruption_mode, config.scheduling_policy,
                                     child(_PATH, "disruptionMode"))
    if config.resource_claims and len(config.resource_claims) > MAX_CLAIMS:
        errs.append(FieldError.too_many(child(_PATH, "resourceClaims"), len(config.resource_claims),
                                        MAX_CLAIMS))
    return errs


def validate_job_scheduling_update(new: JobSpec, old: JobSpec) -> list[FieldError]:
    if new.scheduling is None or old.scheduling is None:
        return validate_immutable(new.scheduling, old.scheduling, _PATH)
    now, was = new.scheduling, old.scheduling
    errs: list[FieldError] = []
    policy, before = now.scheduling_policy, was.scheduling_policy
    path = child(_PATH, "schedulingPolicy")
    if policy is None or before is None or (policy.gang is None) != (before.gang is None) \
            or (policy.basic is None) != (before.basic is None):
        errs += validate_immutable(_variant(policy), _variant(before), path)
    for name, wire in (("scheduling_constraints", "schedulingConstraints"),
                       ("disruption_mode", "disruptionMode"), ("resource_claims", "resourceClaims")):
        errs += validate_immutable(getattr(now, name), getattr(was, name), child(_PATH, wire))
    return errs


def _variant(policy: object) -> object:
    return policy.to_dict() if policy is not None else None  # type: ignore[attr-defined]
