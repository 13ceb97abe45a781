"""An elastic batch/v1 Job on a MultiKueue manager with in-process workers: the helpers the elastic
scenario and property tests share."""

from __future__ import annotations

from kbatch.api import edit
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import ClusterQueue, Workload
from kbatch.controllers.kueue.workloadslicing import is_replaced
from kbatch.testing import make_job

from .world import MKWorld

ELASTIC = {"kueue.x-k8s.io/elastic-job": "true"}
REPLACEMENT_FOR = "kueue.x-k8s.io/workload-slice-replacement-for"
PREBUILT = "kueue.x-k8s.io/prebuilt-workload-name"


def elastic_job(world: MKWorld, name: str, parallelism: int, sleep: str = "3600") -> None:
    """An elastic Job (1 cpu a pod, no completions) queued on the manager, settled."""
    made = make_job(name).command(f"sleep {sleep}").requests(cpu="1")
    j = edit(made.label("kueue.x-k8s.io/queue-name", "lq").obj())
    j.metadata.annotations = dict(ELASTIC)
    j.spec.parallelism = parallelism
    j.spec.completions = None
    world.manager.client.create(j)
    settle(world)


def settle(world: MKWorld, seconds: float = 3) -> None:
    """Until idle, then a few virtual seconds (the watch batch period, the pods' start)."""
    world.manager.run_until_idle()
    world.manager.advance(seconds)


def scale(world: MKWorld, name: str, parallelism: int) -> None:
    m = world.manager
    j = edit(m.client.get(Job, name, "default"))
    j.spec.parallelism = parallelism
    m.client.update(j)
    settle(world)


def _true(wl: Workload, kind: str) -> bool:
    conditions = (wl.status.conditions if wl.status else None) or ()
    return any(c.type == kind and c.status == "True" for c in conditions)


def manager_slices(world: MKWorld) -> list[Workload]:
    """The manager's Workloads, oldest first (a replacement after what it replaces)."""
    items = world.manager.client.list(Workload, "default").items
    return sorted(
        items,
        key=lambda w: (w.metadata.creation_timestamp, REPLACEMENT_FOR in (w.metadata.annotations or {})),
    )


def live(wls: list[Workload]) -> list[Workload]:
    return [w for w in wls if not _true(w, "Finished")]


def reserved(wls: list[Workload]) -> list[Workload]:
    return [w for w in live(wls) if _true(w, "QuotaReserved")]


def replaced(wl: Workload) -> bool:
    return is_replaced(wl.status)


def worker_pods(world: MKWorld, worker: str) -> dict[str, Pod]:
    """The worker's pods that are not being deleted, by name."""
    pods = world.workers[worker].client.list(Pod, "default").items
    return {p.metadata.name: p for p in pods if p.metadata.deletion_timestamp is None}


def running(pods: dict[str, Pod]) -> set[str]:
    return {n for n, p in pods.items() if p.status is not None and p.status.phase == "Running"}


def count(wl: Workload) -> int:
    return wl.spec.pod_sets[0].count


def reserved_cpu(world: MKWorld) -> str:
    """The manager ClusterQueue's reserved cpu, as its status reports it (batched by 1 s)."""
    world.manager.advance(1)
    cq = world.manager.client.get(ClusterQueue, "cq")
    usage = cq.status.flavors_reservation or []
    return str(next((r.total for f in usage for r in f.resources if r.name == "cpu"), "0"))
