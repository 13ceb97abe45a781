"""Hypothesis properties of the pod integration on random streams of queued pods and pod groups
(random sizes, durations, failures): no pod Kueue gated is scheduled, the cpu of the ungated pods
that run never exceeds the ClusterQueue's quota, a group's members start together (none of an
admitted group keeps the gate unless it is a replacement), and every pod that ended has lost
Kueue's finalizer once its Workload finished. Upstream: kubernetes-sigs/kueue v0.19.2
``pkg/controller/jobs/pod/pod_controller.go`` (``IsSuspended``, ``Run``, ``Finalize``) and
``pkg/cache/scheduler`` (quota)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import Workload

from .test_jobs import _world
from .test_pods import pod

NOMINAL = 4
ITEM = st.tuples(
    st.integers(1, 3),  # members (1: a plain pod)
    st.integers(1, 2),  # cpu per pod
    st.integers(2, 20),  # seconds
    st.booleans(),  # the last member fails
)
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _manifests(i: int, members: int, cpu: int, seconds: int, fails: bool) -> list[dict[str, Any]]:
    if members == 1:
        return [pod(f"p{i}", cpu=str(cpu), script=f"sleep {seconds}" + ("; exit 1" if fails else ""))]
    out = []
    for m in range(members):
        script = f"sleep {seconds}" + ("; exit 1" if fails and m == members - 1 else "")
        out.append(pod(f"g{i}-{m}", cpu=str(cpu), script=script,
                       labels={"kueue.x-k8s.io/pod-group-name": f"g{i}"},
                       annotations={"kueue.x-k8s.io/pod-group-total-count": str(members)}))
    return out


def _check(w: Any) -> None:
    used = 0
    for p in w.cp.client.list(Pod, "default").items:
        gated = any(g.name == "kueue.x-k8s.io/admission" for g in p.spec.scheduling_gates or ())
        if gated:
            assert not p.spec.node_name, f"{p.metadata.name} gated but bound"
        phase = p.status.phase if p.status else None
        if not gated and phase in ("Pending", "Running") and p.metadata.deletion_timestamp is None:
            used += sum(int(c.resources.requests["cpu"].canonical()) for c in p.spec.containers)
    assert used <= NOMINAL, f"{used} cpu running > {NOMINAL}"


@SETTINGS
@given(st.lists(ITEM, min_size=1, max_size=5))
def test_gated_pods_never_run_and_running_pods_fit_the_quota(items: list[tuple[int, int, int, bool]]) -> None:
    w = _world(nominal=str(NOMINAL))
    for i, item in enumerate(items):
        w.apply(*_manifests(i, *item))
        w.cp.run_until_idle()
        _check(w)
        w.cp.advance(3)
        _check(w)
    for _ in range(12):
        w.cp.advance(5)
        _check(w)
    finished = {wl.metadata.name for wl in w.cp.client.list(Workload, "default").items
                if any(c.type == "Finished" and c.status == "True" for c in wl.status.conditions or ())}
    for p in w.cp.client.list(Pod, "default").items:
        group = (p.metadata.labels or {}).get("kueue.x-k8s.io/pod-group-name")
        ended = p.status is not None and p.status.phase in ("Succeeded", "Failed")
        # a plain pod is released when it ends; a group's members when the group's Workload finished
        # (a group waiting for a replacement keeps its finished members)
        if (group is None and ended) or (group is not None and group in finished):
            assert "kueue.x-k8s.io/managed" not in (p.metadata.finalizers or ()), p.metadata.name
