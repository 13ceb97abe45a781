"""The kubelet's status writes are two-way patches: applied to the current status they give exactly
the status the kubelet renders, and nothing is sent when nothing it shows changed."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.apiserver.local import LocalClient
from kbatch.apiserver.strategic import apply_strategic_patch
from kbatch.controllers.kubelet.status import container_fingerprint, render_status, status_patch

from .cluster import condition, get_pod, pod_yaml, sim_cluster
from .test_kubelet_engine import HISTORIES, replay, run_of


def fmt(t: float) -> str:
    return f"t{t:g}"


def current(status: dict[str, Any]) -> tuple[Any, bool, dict[str, Any], Any]:
    conditions = {c["type"]: (c["status"], c.get("reason"), c.get("message"), c.get("observedGeneration"))
                  for c in status.get("conditions", ())}
    return status.get("phase"), "startTime" in status, conditions, status.get("observedGeneration")


def by_type(status: dict[str, Any]) -> dict[str, Any]:
    return {**status, "conditions": {c["type"]: c for c in status.get("conditions", ())}}


OWNED = ("PodScheduled", "PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready")


@settings(max_examples=150, deadline=None)
@given(*HISTORIES, st.integers(0, 2), st.booleans(), st.lists(st.integers(0, 2), max_size=15))
def test_patches_lead_to_the_rendered_status(policy, runs, inits, steps, delete_at, fault_at, delay,
                                             scheduled, bumps) -> None:
    """Also with the pod's generation moving between observations (spec updates): the kubelet's
    conditions and ``status.observedGeneration`` observe the generation it acted on (KEP-5067), other
    writers' conditions keep theirs."""
    run = run_of(policy, inits=tuple(inits), delay=float(delay))
    status: dict[str, Any] = {"phase": "Pending", "conditions": [
        {"type": "ConfigIssue", "status": "True", "reason": "Other", "lastTransitionTime": "t0",
         "observedGeneration": 1}]}
    if scheduled:
        status["conditions"].insert(0, {"type": "PodScheduled", "status": "True", "lastTransitionTime": "t0"})
    sent, generation = None, 1
    for i, now in enumerate(replay(run, runs, steps, delete_at, fault_at)):
        generation += bumps[i] if i < len(bumps) else 0
        fingerprint = container_fingerprint(run)
        patch = status_patch(run, *current(status), fmt, now, sent == fingerprint, generation)
        expected = render_status(run, status, fmt, now, generation)
        status = apply_strategic_patch({"status": status}, {"status": patch})["status"]
        sent = fingerprint
        assert by_type(status) == by_type(expected)
        # and in upstream's order (other writers' first, then generateAPIPodStatus's), whether or not
        # the patch needed $setElementOrder for it
        assert [c["type"] for c in status["conditions"]] == [c["type"] for c in expected["conditions"]]
        assert status_patch(run, *current(status), fmt, now, True, generation) == {}, \
            "an unchanged status sends nothing"
        conditions = by_type(status)["conditions"]
        assert status["observedGeneration"] == generation
        assert all(conditions[t]["observedGeneration"] == generation for t in OWNED)
        assert conditions["ConfigIssue"]["observedGeneration"] == 1


def test_ready_drops_the_not_ready_reason_when_the_containers_start() -> None:
    cp = sim_cluster(1, options={"kubelet": {"start_delay": 5}})
    cp.apply(pod_yaml("p", "sleep 10"))
    assert condition(get_pod(cp, "p"), "Ready").reason == "ContainersNotReady"
    cp.advance(5)
    ready = condition(get_pod(cp, "p"), "Ready")
    assert (ready.status, ready.reason, ready.message) == ("True", None, None)
    cp.advance(10)
    ready = condition(get_pod(cp, "p"), "Ready")
    assert (ready.status, ready.reason, ready.message) == ("False", "PodCompleted", None)


def test_a_deletion_request_writes_only_the_observed_generation(monkeypatch) -> None:
    """A graceful deletion bumps ``metadata.generation`` (rest.BeforeDelete); the kubelet syncs the
    terminating pod and its status manager writes the new ``observedGeneration`` (forceUpdate with a
    deletionTimestamp; KEP-5067) and nothing else: the kill deadline is the kubelet's own state."""
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 1000", grace=20))
    writes: list[dict[str, Any]] = []
    original = LocalClient.patch_status  # the kubelet writes through its node's client, a LocalClient

    def counting(self: LocalClient, *args: Any, **kwargs: Any) -> Any:
        writes.append(args[2])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(LocalClient, "patch_status", counting)
    cp.client.delete(Pod, "p", "default")
    cp.advance(19)
    kubelet_owned = ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
    assert writes == [{"status": {"observedGeneration": 2, "conditions": [
        {"type": t, "observedGeneration": 2} for t in kubelet_owned]}}]
    pod = get_pod(cp, "p")
    assert pod.metadata.generation == 2 and pod.status.phase == "Running"
    cp.advance(1)
    assert len(writes) == 2 and writes[1]["status"]["phase"] == "Failed"
    assert "observedGeneration" not in writes[1]["status"]
