"""A DeviceTaintRule's ``EvictionInProgress`` condition (upstream ``maybeUpdateRuleStatus`` in
``device_taint_eviction.go``; the condition type from ``k8s.io/api/resource/v1/types.go``).

* ``NoExecute``: ``True`` / ``PodsPendingEviction`` "N pod(s) need(s) to be evicted in M namespace(s)."
  while pods wait for their eviction; otherwise ``False`` / ``Completed`` once this controller
  evicted a pod for the rule, else ``NotStarted``.
* ``None``: ``False`` / ``NoEffect`` with what ``NoExecute`` would do (devices selected, pods that
  would be evicted), written once per spec change.
* any other effect: ``False`` / ``OtherEffect`` "Eviction only happens for the NoExecute effect."

Any message is followed by "N pod(s) evicted since starting the controller." when that count is not 0.
Updates are paced: not again within ``RULE_STATUS_PERIOD`` of the last change for the same
generation."""

from __future__ import annotations

from dataclasses import dataclass

from kbatch.api.resource_v1 import TAINT_EFFECT_NO_EXECUTE

__all__ = ["CONDITION", "RULE_STATUS_PERIOD", "RuleCounts", "rule_condition"]

CONDITION = "EvictionInProgress"  # resourceapi.DeviceTaintConditionEvictionInProgress
RULE_STATUS_PERIOD = 10.0  # ruleStatusPeriod
TAINT_EFFECT_NONE = "None"


@dataclass(frozen=True)
class RuleCounts:
    pending_pods: int = 0
    pending_namespaces: int = 0
    evicted_pods: int = 0
    published_devices: int = 0
    allocated_devices: int = 0


def _n(count: int, one: str, many: str) -> str:
    return one if count == 1 else many.format(count)


def _no_effect(c: RuleCounts) -> str:
    return (
        _n(c.published_devices, "1 published device selected. ", "{} published devices selected. ")
        + _n(c.allocated_devices, "1 allocated device selected. ", "{} allocated devices selected. ")
        + _n(c.pending_pods, "1 pod would be evicted in ", "{} pods would be evicted in ")
        + _n(c.pending_namespaces, "1 namespace ", "{} different namespaces ")
        + "if the effect was NoExecute. This information will not be updated again. "
        "Recreate the DeviceTaintRule to trigger an update."
    )


def _no_execute(c: RuleCounts) -> tuple[str, str, str]:
    if c.pending_pods > 0:
        message = _n(c.pending_pods, "1 pod needs to be evicted in ", "{} pods need to be evicted in ")
        message += _n(c.pending_namespaces, "1 namespace.", "{} different namespaces.")
        return "True", "PodsPendingEviction", message
    return "False", "Completed" if c.evicted_pods > 0 else "NotStarted", ""


def rule_condition(effect: str, counts: RuleCounts) -> tuple[str, str, str]:
    """(status, reason, message) of the condition for a rule with ``effect``."""
    if effect == TAINT_EFFECT_NO_EXECUTE:
        status, reason, message = _no_execute(counts)
    elif effect == TAINT_EFFECT_NONE:
        status, reason, message = "False", "NoEffect", _no_effect(counts)
    else:
        status, reason, message = "False", "OtherEffect", "Eviction only happens for the NoExecute effect."
    if counts.evicted_pods > 0:
        suffix = _n(counts.evicted_pods, "1 pod ", "{} pods ") + "evicted since starting the controller."
        message = f"{message} {suffix}" if message else suffix
    return status, reason, message
