"""Matching a failed Pod against ``spec.podFailurePolicy`` (KEP-3329, KEP-3850 FailIndex).

Upstream: pkg/controller/job/pod_failure_policy.go (``matchPodFailurePolicy``,
``matchOnExitCodes``, ``matchOnPodConditions``). Rules are tried in order and the first match wins;
a rule with an unknown action is skipped. No match means the default, ``Count``.

``onExitCodes`` looks at containers, then init containers, that have terminated with a non-zero
exit code (so ``NotIn [0]`` matches any failure), optionally only the one named ``containerName``;
an operator other than In/NotIn never matches.
``onPodConditions`` matches when any pod condition has the same type and status.
"""

from __future__ import annotations

from dataclasses import dataclass

from kbatch.controllers.job.views import ContainerInfo, ExitCodesRule, PodFailurePolicyRule, PodInfo

__all__ = ["PolicyMatch", "match_pod_failure_policy"]

_KNOWN_ACTIONS = ("FailJob", "FailIndex", "Ignore", "Count")


@dataclass(frozen=True, slots=True)
class PolicyMatch:
    """The outcome for one failed pod. ``action`` is None when no rule matched (default Count)."""

    action: str | None
    count_failed: bool
    message: str = ""


_NO_MATCH = PolicyMatch(action=None, count_failed=True)


def _matching_container(pod: PodInfo, rule: ExitCodesRule) -> ContainerInfo | None:
    for status in (*pod.containers, *pod.init_containers):
        if status.exit_code is None or status.exit_code == 0:
            continue
        if rule.container_name is not None and rule.container_name != status.name:
            continue
        if _operator_matches(rule.operator, status.exit_code, rule.values):
            return status
    return None


def _operator_matches(operator: str, code: int, values: tuple[int, ...]) -> bool:
    """``isOnExitCodesOperatorMatching``: only In and NotIn are known; any other operator (one a
    newer API could add) never matches, so its rule is skipped."""
    if operator == "In":
        return code in values
    if operator == "NotIn":
        return code not in values
    return False


def _matching_condition(pod: PodInfo, patterns: tuple[tuple[str, str], ...]) -> str | None:
    for cond in pod.conditions:
        for ctype, cstatus in patterns:
            if cond.type == ctype and cond.status == cstatus:
                return ctype
    return None


def match_pod_failure_policy(rules: tuple[PodFailurePolicyRule, ...] | None, pod: PodInfo) -> PolicyMatch:
    """The first rule matching ``pod`` (which must be failed), with upstream's message."""
    if not rules:
        return _NO_MATCH
    ref = f"{pod.namespace}/{pod.name}"
    for k, rule in enumerate(rules):
        if rule.action not in _KNOWN_ACTIONS:
            continue
        if rule.on_exit_codes is not None:
            container = _matching_container(pod, rule.on_exit_codes)
            if container is None:
                continue
            message = (f"Container {container.name} for pod {ref} failed with exit code "
                       f"{container.exit_code} matching {rule.action} rule at index {k}")
        elif rule.on_pod_conditions:
            ctype = _matching_condition(pod, rule.on_pod_conditions)
            if ctype is None:
                continue
            message = f"Pod {ref} has condition {ctype} matching {rule.action} rule at index {k}"
        else:
            continue
        return PolicyMatch(action=rule.action, count_failed=rule.action != "Ignore", message=message)
    return _NO_MATCH

