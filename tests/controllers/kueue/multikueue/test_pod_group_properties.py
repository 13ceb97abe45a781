"""Invariants of pod groups through MultiKueue under random arrivals and time.

* A group is never split across workers: its members' copies exist on one worker at most (the pod
  adapter creates every member on the worker that admitted the group's Workload, KEP 693's "the
  first worker to admit wins").
* The manager's quota is released exactly once: at every step the manager ClusterQueue's reserved
  cpu (its cache's, as the reservation metric shows it) equals what the manager's quota-holding,
  unfinished Workloads ask; a second release would leave it below, a missed one above; once
  everything finished it is 0.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.quantity import Quantity, parse_quantity

from ..test_pod_groups import member
from .world import MKWorld

CONFIG = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
          "metrics": {"enableClusterQueueResources": True}}
STEP = st.one_of(
    st.tuples(st.just("group"), st.integers(1, 3), st.sampled_from(["500m", "1"]),
              st.sampled_from(["5", "40"])),
    st.tuples(st.just("advance"), st.sampled_from([1.0, 3.0, 20.0]), st.just(0), st.just("")),
)


def _true(wl: Workload, kind: str) -> bool:
    conditions = (wl.status.conditions if wl.status else None) or ()
    return any(c.type == kind and c.status == "True" for c in conditions)


def _milli(value: Quantity | str | None) -> int:
    if value is None:
        return 0
    return (value if isinstance(value, Quantity) else parse_quantity(value)).milli_value()


def _asked(world: MKWorld) -> int:
    """The milli-cpu the manager's quota-holding, unfinished Workloads reserve."""
    total = 0
    for wl in world.manager.client.list(Workload).items:
        if not _true(wl, "QuotaReserved") or _true(wl, "Finished"):
            continue
        for psa in wl.status.admission.pod_set_assignments or ():
            total += _milli((psa.resource_usage or {}).get("cpu"))
    return total


def _reserved(world: MKWorld) -> int:
    """The manager cache's reservation of the ClusterQueue (``kueue_cluster_queue_resource_reservation``,
    with ``metrics.enableClusterQueueResources``; the queue's status lags it by a batch period)."""
    metrics = world.manager.metrics
    metrics.collect()
    family = metrics.get("kueue_cluster_queue_resource_reservation")
    assert family is not None
    value = family.value("", "cq", "default", "cpu", "standalone")  # type: ignore[union-attr]
    return round((value or 0) * 1000)


def _check(world: MKWorld, groups: list[str]) -> None:
    for group in groups:
        holders = [
            name for name, worker in world.workers.items()
            if any((p.metadata.labels or {}).get("kueue.x-k8s.io/pod-group-name") == group
                   for p in worker.client.list(Pod, "default").items)
        ]
        assert len(holders) <= 1, (group, holders)
    assert _reserved(world) == _asked(world)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(STEP, min_size=1, max_size=8), st.integers(0, 2))
@example(steps=[("group", 3, "1", "5"), ("group", 2, "1", "5"), ("advance", 20.0, 0, "")], seed=0)
def test_a_group_runs_whole_on_one_worker_and_its_quota_is_released_once(
    steps: list[tuple[str, object, object, object]], seed: int
) -> None:
    world = MKWorld({"w1": "2", "w2": "3"}, seed=seed, kueue_config=CONFIG)
    groups: list[str] = []
    for op, a, b, c in steps:
        if op == "group":
            name = f"g{len(groups)}"
            groups.append(name)
            size = int(a)  # type: ignore[call-overload]
            pods = [member(f"{name}-{i}", group=name, total=size, cpu=str(b), script=f"sleep {c}")
                    for i in range(size)]
            world.manager.apply(pods)
            world.manager.run_until_idle()
        else:
            world.manager.advance(float(a))  # type: ignore[arg-type]
        _check(world, groups)
    world.manager.advance(600)
    _check(world, groups)
    assert _reserved(world) == 0
