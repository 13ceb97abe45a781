"""Whether a regular container is restarted in place after it exits (KEP-5307, container restart
rules; gate ContainerRestartRules, beta and on by default since 1.35).

Upstream ``pkg/api/v1/pod/util.go`` ``ContainerShouldRestart``, asked by the kubelet
(``pkg/kubelet/container/helpers.go`` ``ShouldContainerBeRestarted``) and by the status validation
(``ValidateContainerStateTransition``): the first of the container's ``restartPolicyRules`` whose
exit codes match decides (its action is ``Restart``, the only one validation allows); else the
container's own ``restartPolicy`` when it has one; else the pod's. ``Always`` restarts,
``OnFailure`` restarts a non-zero exit, ``Never`` does not. With the gate off the API server has
dropped the container's fields, so the pod's policy decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["OwnRestart", "container_should_restart", "own_restart"]


@dataclass(frozen=True, slots=True)
class OwnRestart:
    """A regular container's own ``restartPolicy`` and its rules, each as (operator, exit codes)."""

    policy: str
    rules: tuple[tuple[str, frozenset[int]], ...] = ()


def own_restart(container: Any) -> OwnRestart | None:
    """The container's own policy and rules, or None when it has no policy of its own (a rule needs
    one: validation)."""
    if container.restart_policy is None:
        return None
    rules = tuple((r.exit_codes.operator, frozenset(r.exit_codes.values or ()))
                  for r in container.restart_policy_rules or () if r.exit_codes is not None)
    return OwnRestart(container.restart_policy, rules)


def container_should_restart(own: OwnRestart | None, pod_policy: str | None, exit_code: int) -> bool:
    """Module docstring: the rules, then the container's policy, then the pod's."""
    if own is not None:
        for operator, codes in own.rules:
            if (exit_code in codes) == (operator == "In"):
                return True
    policy = own.policy if own is not None else pod_policy
    return policy == "Always" or (policy == "OnFailure" and exit_code != 0)
