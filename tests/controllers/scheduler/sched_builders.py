"""Test builders for the scheduler's pure core (kueue-style wrappers, in spirit)."""

from __future__ import annotations

import random

from kbatch.api.pod_resources import effective_requests
from kbatch.controllers.scheduler.algorithm import Algorithm
from kbatch.controllers.scheduler.defaults import default_profile
from kbatch.controllers.scheduler.snapshot import Snapshot
from kbatch.controllers.scheduler.types import NodeShape, PodInfo, Taint

GI = 1024**3
_seq = iter(range(10**9))


def node(name: str, cpu: int = 4, mem_gi: int = 16, pods: int = 110, gpu: int = 0,
         labels: dict[str, str] | None = None, taints: tuple[Taint, ...] = (),
         unschedulable: bool = False) -> NodeShape:
    alloc = {"cpu": cpu * 1000, "memory": mem_gi * GI, "pods": pods}
    if gpu:
        alloc["nvidia.com/gpu"] = gpu
    return NodeShape(name, {"kubernetes.io/hostname": name, **(labels or {})}, taints, unschedulable, alloc)


def pod(name: str, cpu_m: int = 0, mem_gi: int = 0, gpu: int = 0, priority: int = 0,
        namespace: str = "default", **kw: object) -> PodInfo:
    req: dict[str, int] = {}
    if cpu_m:
        req["cpu"] = cpu_m
    if mem_gi:
        req["memory"] = mem_gi * GI
    if gpu:
        req["nvidia.com/gpu"] = gpu
    seq = next(_seq)
    return PodInfo(namespace, name, uid=name, priority=priority, seq=seq, creation=float(seq),
                   requests=effective_requests([req]),
                   nonzero_requests=effective_requests([req], nonzero=True),
                   **kw)  # type: ignore[arg-type]


def cluster(*nodes: NodeShape, seed: int = 0, **profile_kw: object) -> Algorithm:
    snapshot = Snapshot()
    for shape in nodes:
        snapshot.set_node(shape)
    return Algorithm(default_profile(**profile_kw), snapshot, random.Random(seed))  # type: ignore[arg-type]


def place(algo: Algorithm, p: PodInfo) -> str | None:
    decision = algo.schedule(p)
    if decision.node is not None:
        algo.assume(p, decision.node)
    return decision.node
