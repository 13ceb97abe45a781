"""PodDisruptionBudgets as scheduler preemption reads them (:mod:`kbatch.controllers.scheduler.budgets`):
each budget's selector is parsed once per preemption attempt, and a parsed budget answers as the
budget itself does (upstream ``filterPodsWithPDBViolation`` in ``defaultpreemption/default_preemption.go``
and ``FilterVictimsWithPDBViolation`` in ``framework/preemption/util.go``)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.errors import StatusError
from kbatch.api.meta import LabelSelector
from kbatch.api.policy_v1 import PodDisruptionBudget
from kbatch.api.selectors import selector_from_model
from kbatch.controllers.scheduler.budgets import budget_selectors
from kbatch.controllers.scheduler.types import PodInfo

from .upstream_harness import api_node, api_pod, world


class _CountingSpec:
    """A PodDisruptionBudget spec that counts how often its selector is read (each parse reads it)."""

    def __init__(self, selector: LabelSelector) -> None:
        self._selector = selector
        self.reads = 0

    @property
    def selector(self) -> LabelSelector:
        self.reads += 1
        return self._selector


def _counting_budget(app: str) -> Any:
    return SimpleNamespace(metadata=SimpleNamespace(namespace="default", name=app),
                           spec=_CountingSpec(LabelSelector(match_labels={"app": app})),
                           status=SimpleNamespace(disruptions_allowed=0, disrupted_pods=None))


def test_default_preemption_parses_each_budget_once_per_attempt() -> None:
    """Four full nodes of two labelled low-priority pods each: one attempt of a high-priority pod
    splits the victims of every node, and reads each budget's selector once (before: once for every
    labelled pod of every node)."""
    nodes = [api_node(f"n{i}", {"cpu": "2", "pods": "32"}) for i in range(4)]
    pods = [api_pod(f"p{i}-{k}", {"cpu": "1"}, node=f"n{i}", labels={"app": "a" if k else "b"})
            for i in range(4) for k in range(2)]
    algo = world(nodes, pods)
    budgets = [_counting_budget("a"), _counting_budget("b")]
    preemption = next(p for p in algo.profile.post_filter if p.name == "DefaultPreemption")
    preemption.pdb_lister = lambda: budgets
    decision = algo.schedule(api_pod("big", {"cpu": "2"}, priority=1000))
    assert decision.preemption is not None and decision.preemption.nominated_node == "n0"
    assert [b.spec.reads for b in budgets] == [1, 1]


# -- a parsed budget answers as the budget does ------------------------------------------------------
_KEYS = st.sampled_from(["app", "tier", "bad key!"])
_VALUES = st.sampled_from(["a", "b"])
_EXPRESSION = st.builds(lambda k, op, vs: {"key": k, "operator": op, "values": vs}, _KEYS,
                        st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Bogus"]),
                        st.lists(_VALUES, max_size=2))
_SELECTOR = st.one_of(st.none(), st.fixed_dictionaries({}, optional={
    "matchLabels": st.dictionaries(_KEYS, _VALUES, max_size=2),
    "matchExpressions": st.lists(_EXPRESSION, max_size=2)}))


def _reference(pdb: PodDisruptionBudget, pod: PodInfo, empty_matches: bool) -> bool:
    """Whether evicting ``pod`` spends ``pdb``, read off the object as upstream's splits do."""
    if (pdb.metadata.namespace or "") != pod.namespace:
        return False
    try:
        selector = selector_from_model(pdb.spec.selector)
    except StatusError:
        return False
    if selector.empty and not empty_matches:
        return False
    if not selector.matches(pod.labels):
        return False
    return pod.name not in ((pdb.status.disrupted_pods if pdb.status else None) or {})


@given(_SELECTOR, st.sampled_from(["default", "other"]), st.dictionaries(_KEYS, _VALUES, max_size=2),
       st.sampled_from(["x", "gone"]), st.booleans(), st.integers(0, 2))
def test_a_parsed_budget_answers_as_the_budget(selector: dict[str, Any] | None, namespace: str,
                                               labels: dict[str, str], name: str, empty_matches: bool,
                                               allowed: int) -> None:
    spec = {} if selector is None else {"selector": selector}
    try:
        pdb = PodDisruptionBudget.model_validate({
            "metadata": {"name": "b", "namespace": "default"}, "spec": spec,
            "status": {"disruptionsAllowed": allowed, "disruptedPods": {"gone": "2026-01-01T00:00:00Z"}}})
    except ValueError:
        return  # not a budget the API would hold
    pod = PodInfo(namespace, name, labels=labels)
    (budget,) = budget_selectors([pdb])
    assert budget.allowed == allowed
    assert budget.spends(pod, empty_matches) == _reference(pdb, pod, empty_matches)
