"""The simulated kubelet reports the pod generation it acted on (KEP-5067 Pod Generation; feature gate
PodObservedGenerationTracking, beta and on by default since 1.34).

Upstream: the status manager's ``SetPodStatus`` sets ``status.observedGeneration`` to the synced
pod's ``metadata.generation`` (``CalculatePodStatusObservedGeneration``, pkg/api/v1/pod/util.go), and
``generateAPIPodStatus`` stamps each condition the kubelet owns (``PodConditionsByKubelet``:
PodScheduled, Ready, Initialized, ContainersReady, plus PodReadyToStartContainers) with it
(``CalculatePodConditionObservedGeneration``). A spec update or a graceful deletion bumps the
generation and the kubelet's next sync writes the new value, even when nothing else changed
(``isPodStatusByKubeletEqual`` compares ``observedGeneration``)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.sim.faults import add_pod_condition

from .cluster import get_pod, pod_yaml, sim_cluster

OWNED = ("PodScheduled", "PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready")


def _generations(pod: Pod) -> dict[str, Any]:
    return {c.type: c.observed_generation for c in pod.status.conditions or ()}  # type: ignore[union-attr]


def _tolerate(cp: Any, key: str) -> None:
    """A spec update the pod strategy allows (an added toleration): the generation goes up."""
    pod = get_pod(cp, "p")
    tolerations = [t.to_dict() for t in pod.spec.tolerations or ()] + [{"key": key, "operator": "Exists"}]
    cp.client.patch(Pod, "p", {"spec": {"tolerations": tolerations}}, "default", patch_type="merge")


def test_a_running_pod_observes_generation_1_on_status_and_owned_conditions() -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 30"))
    pod = get_pod(cp, "p")
    assert pod.status.phase == "Running" and pod.metadata.generation == 1  # type: ignore[union-attr]
    assert pod.status.observed_generation == 1  # type: ignore[union-attr]
    assert _generations(pod) == dict.fromkeys(OWNED, 1)
    wire = pod.status.to_dict()  # type: ignore[union-attr]
    assert wire["observedGeneration"] == 1
    assert all(c["observedGeneration"] == 1 for c in wire["conditions"])


def test_a_spec_update_is_observed_without_moving_transition_times() -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 30"))
    before = get_pod(cp, "p")
    cp.advance(5)
    _tolerate(cp, "a")
    cp.advance(1)
    pod = get_pod(cp, "p")
    assert pod.metadata.generation == 2 and pod.status.observed_generation == 2  # type: ignore[union-attr]
    assert _generations(pod) == dict.fromkeys(OWNED, 2)
    times = {c.type: c.last_transition_time for c in before.status.conditions or ()}  # type: ignore
    assert {c.type: c.last_transition_time for c in pod.status.conditions or ()} == times  # type: ignore
    cp.advance(30)
    done = get_pod(cp, "p")
    assert done.status.phase == "Succeeded" and done.status.observed_generation == 2  # type: ignore


def test_another_writers_condition_keeps_its_own_observed_generation() -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 30"))
    add_pod_condition(cp, "p", "ConfigIssue", reason="Bad")
    _tolerate(cp, "a")
    cp.advance(1)
    pod = get_pod(cp, "p")
    assert pod.status.observed_generation == 2 and _generations(pod)["ConfigIssue"] is None  # type: ignore


@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.booleans()), min_size=1, max_size=6),
       st.sampled_from(["Never", "OnFailure"]))
def test_observed_generation_never_exceeds_generation_and_catches_up(steps: list[tuple[int, bool]],
                                                                     restart: str) -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 15; exit 1", restart=restart))
    for i, (wait, update) in enumerate(steps):
        if update:
            _tolerate(cp, f"k{i}")
        cp.advance(wait)
        pod = get_pod(cp, "p")
        generation, status = pod.metadata.generation, pod.status
        assert status is not None and generation is not None
        observed = [status.observed_generation, *(_generations(pod)[t] for t in OWNED)]
        assert all(o is not None and 1 <= o <= generation for o in observed)
        if status.phase not in ("Succeeded", "Failed"):  # a terminal pod is no longer synced
            assert observed == [generation] * len(observed)
