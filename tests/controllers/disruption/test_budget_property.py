"""Property: evictions never take a budget's healthy pods below ``minAvailable`` (IfHealthyBudget).

Any interleaving of evictions, readiness changes and time passing, over running bare pods guarded by
an integer ``minAvailable``: whenever an eviction of a Ready pod succeeds, the Ready pods that are not
terminating still number at least ``minAvailable`` afterwards.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import TooManyRequests
from kbatch.api.policy_helpers import pod_is_ready
from kbatch.api.policy_v1 import PodDisruptionBudget
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, add_pod_condition, create_nodes, evict_pod
from kbatch.testing import make_pod

_STEP = st.one_of(
    st.tuples(st.just("evict"), st.integers(0, 5)),
    st.tuples(st.just("unready"), st.integers(0, 5)),
    st.tuples(st.just("ready"), st.integers(0, 5)),
    st.tuples(st.just("advance"), st.integers(1, 200)),
)


def _healthy(cp: ControlPlane) -> dict[str, Any]:
    return {p.metadata.name: p for p in cp.client.list(Pod, "default").items
            if p.metadata.deletion_timestamp is None and pod_is_ready(p)}


@settings(max_examples=20, deadline=None)
@given(n=st.integers(2, 5), data=st.data(), steps=st.lists(_STEP, min_size=1, max_size=12))
def test_evictions_never_break_the_budget(n: int, data: Any, steps: list[tuple[str, int]]) -> None:
    min_available = data.draw(st.integers(0, n))
    cp = ControlPlane(seed=0)
    try:
        create_nodes(cp, 1, NodeTemplate())
        for i in range(n):
            cp.client.create(make_pod(f"p{i}").label("app", "a").command("sleep 100000").obj())
        cp.advance(5)
        cp.client.create(PodDisruptionBudget.model_validate({
            "metadata": {"name": "b", "namespace": "default"},
            "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": "a"}}}}))
        cp.run_until_idle()
        for action, arg in steps:
            name = f"p{arg % n}"
            alive = any(p.metadata.name == name for p in cp.client.list(Pod, "default").items)
            if action == "advance":
                cp.advance(arg)
            elif action in ("ready", "unready") and alive:
                add_pod_condition(cp, name, "Ready", status="True" if action == "ready" else "False")
            elif action == "evict" and alive:
                was_healthy = name in _healthy(cp)
                try:
                    evict_pod(cp, name)
                except TooManyRequests:
                    continue
                if was_healthy:
                    assert len(_healthy(cp)) >= min_available
    finally:
        cp.close()
