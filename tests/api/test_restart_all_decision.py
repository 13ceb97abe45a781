"""The decision after a container's exit with KEP-5532's ``RestartAllContainers`` action next to
KEP-5307's ``Restart`` (upstream ``pkg/api/v1/pod/util.go`` ``ContainerShouldRestart`` and
``findMatchingContainerRestartRule``; ``pkg/kubelet/container/helpers.go``
``ShouldAllContainersRestart``): the first rule whose exit codes match decides; ``Restart``
restarts the container alone, ``RestartAllContainers`` restarts the pod's containers and, for the
container itself, leaves the decision to its own policy (then the pod's)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.container_restart import (
    RESTART,
    RESTART_ALL,
    OwnRestart,
    Rule,
    container_should_restart,
    restarts_all_containers,
)

_CODES = st.integers(min_value=0, max_value=5)
_RULES = st.lists(st.builds(Rule, st.sampled_from(["In", "NotIn"]),
                            st.frozensets(_CODES, max_size=3), st.sampled_from([RESTART, RESTART_ALL])),
                  max_size=4)
_OWN = st.one_of(st.none(), st.builds(OwnRestart, st.sampled_from(["Always", "OnFailure", "Never"]),
                                      _RULES.map(tuple)))
_POD = st.sampled_from(["Always", "OnFailure", "Never"])


def _policy(policy: str, code: int) -> bool:
    return policy == "Always" or (policy == "OnFailure" and code != 0)


def _first_match(own: OwnRestart | None, code: int) -> str | None:
    """A second reading of "the first rule that matches": filter, then take the head."""
    hits = [r.action for r in (own.rules if own else ()) if (code in r.codes) is (r.operator == "In")]
    return hits[0] if hits else None


@given(_OWN, _POD, _CODES)
def test_the_first_matching_rule_decides(own: OwnRestart | None, pod: str, code: int) -> None:
    action = _first_match(own, code)
    fallback = _policy(own.policy if own is not None else pod, code)
    assert restarts_all_containers(own, code) is (action == RESTART_ALL)
    assert container_should_restart(own, pod, code) is (True if action == RESTART else fallback)


@given(_POD, _CODES)
def test_without_own_policy_the_pod_decides_and_nothing_restarts_all(pod: str, code: int) -> None:
    assert not restarts_all_containers(None, code)
    assert container_should_restart(None, pod, code) is _policy(pod, code)


def test_an_earlier_restart_rule_shadows_a_later_restart_all() -> None:
    own = OwnRestart("Never", (Rule("In", frozenset({42})), Rule("In", frozenset({42}), RESTART_ALL)))
    assert container_should_restart(own, "Never", 42) and not restarts_all_containers(own, 42)
    flipped = OwnRestart("Never", tuple(reversed(own.rules)))
    assert restarts_all_containers(flipped, 42) and not container_should_restart(flipped, "Never", 42)
