"""Whether a container is restarted after it exits: alone (KEP-5307, container restart rules; gate
ContainerRestartRules, beta and on by default since 1.35), or with every other container of its pod
(KEP-5532, the ``RestartAllContainers`` action; gate RestartAllContainersOnContainerExits, beta and on
by default since 1.36).

Upstream ``pkg/api/v1/pod/util.go`` ``ContainerShouldRestart`` (with ``findMatchingContainerRestartRule``),
asked by the kubelet (``pkg/kubelet/container/helpers.go`` ``ShouldContainerBeRestarted``) and by
the status validation (``ValidateContainerStateTransition``): only a container with its own
``restartPolicy`` has rules (validation); the first of them whose exit codes match decides. Its action
``Restart`` restarts the container; ``RestartAllContainers`` makes the kubelet restart the whole pod in
place (``ShouldAllContainersRestart``) and leaves the container's own decision to its policy. With no
matching rule the container's own ``restartPolicy`` decides; without one, the pod's. ``Always``
restarts, ``OnFailure`` restarts a non-zero exit, ``Never`` does not. With a gate off the API server
has dropped (ContainerRestartRules) or refused (RestartAllContainersOnContainerExits) the fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = ["RESTART", "RESTART_ALL", "OwnRestart", "Rule", "container_should_restart", "matching_action",
           "may_restart_all", "own_restart", "restarts_all_containers"]

RESTART, RESTART_ALL = "Restart", "RestartAllContainers"


class Rule(NamedTuple):
    """One ``restartPolicyRules`` entry: ``action`` on exit codes ``In``/``NotIn`` ``codes``."""

    operator: str
    codes: frozenset[int]
    action: str = RESTART


@dataclass(frozen=True, slots=True)
class OwnRestart:
    """A container's own ``restartPolicy`` and its rules."""

    policy: str
    rules: tuple[Rule, ...] = ()


def own_restart(container: Any) -> OwnRestart | None:
    """The container's own policy and rules, or None when it has no policy of its own (a rule needs
    one: validation)."""
    if container.restart_policy is None:
        return None
    rules = tuple(Rule(r.exit_codes.operator, frozenset(r.exit_codes.values or ()), r.action)
                  for r in container.restart_policy_rules or () if r.exit_codes is not None)
    return OwnRestart(container.restart_policy, rules)


def matching_action(own: OwnRestart | None, exit_code: int) -> str | None:
    """The action of the first rule whose exit codes match, None when none does."""
    for rule in own.rules if own is not None else ():
        if (exit_code in rule.codes) == (rule.operator == "In"):
            return rule.action
    return None


def container_should_restart(own: OwnRestart | None, pod_policy: str | None, exit_code: int) -> bool:
    """Module docstring: a matching ``Restart`` rule, else the container's policy, else the pod's."""
    if matching_action(own, exit_code) == RESTART:
        return True
    policy = own.policy if own is not None else pod_policy
    return policy == "Always" or (policy == "OnFailure" and exit_code != 0)


def restarts_all_containers(own: OwnRestart | None, exit_code: int) -> bool:
    """Whether this exit restarts every container of the pod (the first matching rule says
    ``RestartAllContainers``)."""
    return matching_action(own, exit_code) == RESTART_ALL


def may_restart_all(containers: Any) -> bool:
    """Upstream ``AllContainersCouldRestart``: some container (init or regular) has a
    ``RestartAllContainers`` rule."""
    return any(r.action == RESTART_ALL for c in containers for r in c.restart_policy_rules or ())
