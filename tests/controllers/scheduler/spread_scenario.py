"""A mid-size scheduling scenario whose placements pin the scheduler's decisions across
optimisations of PodTopologySpread and the feasible-node search (issue 22): zoned and unzoned nodes
(more than 100, so ``percentageOfNodesToScore``'s adaptive search and its rotating start index are
in play), JobSets whose headless Service gives their pods the system default spreading, a Service
selecting a plain Job's pods, a Job with its own DoNotSchedule/ScheduleAnyway constraints, plain Jobs
(the batched path) and pods that must wait for room."""

from __future__ import annotations

import hashlib
from typing import Any

from kbatch import ControlPlane
from kbatch.api.core_v1 import Pod
from kbatch.sim import NodeTemplate, create_nodes

ZONE = "topology.kubernetes.io/zone"


def _job(name: str, pods: int, cpu: str, sleep: int, **pod_spec: Any) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "default"},
            "spec": {"parallelism": pods, "completions": pods, "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"restartPolicy": "Never", "containers": [{
                    "name": "c", "image": "busybox", "command": ["sleep", str(sleep)],
                    "resources": {"requests": {"cpu": cpu}}}], **pod_spec}}}}


def _jobset(name: str, replicas: int, pods: int, cpu: str, sleep: int) -> dict[str, Any]:
    job = _job(name, pods, cpu, sleep)
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicatedJobs": [{"name": "w", "replicas": replicas,
                                         "template": {"spec": job["spec"]}}]}}


def run(seed: int = 7) -> ControlPlane:
    cp = ControlPlane(seed=seed, controllers="job,scheduler,kubelet,podgc,jobset")
    for z in range(3):
        create_nodes(cp, 40, NodeTemplate(cpu="3", memory="16Gi", labels={ZONE: f"z{z}"}), prefix=f"z{z}-")
    create_nodes(cp, 12, NodeTemplate(cpu="2", memory="8Gi"), prefix="plain-")
    cp.apply({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
              "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}})
    cp.apply(_jobset("train", 3, 40, "500m", 30))
    cp.apply(_job("web", 60, "250m", 45))
    cp.apply(_job("batch", 100, "1", 20))
    cp.apply(_job("spread", 30, "300m", 25, topologySpreadConstraints=[
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "spread"}}},
        {"maxSkew": 2, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
         "labelSelector": {"matchLabels": {"app": "spread"}}}]))
    cp.advance(5)
    cp.apply(_jobset("late", 2, 60, "1500m", 20))
    cp.advance(120)
    return cp


def placements(cp: ControlPlane) -> list[tuple[str, str, str]]:
    """(pod, node, PodScheduled time) for every pod, by name."""
    out = []
    for p in cp.client.list(Pod, "default").items:
        scheduled = p.status.condition("PodScheduled") if p.status else None
        when = str(scheduled.last_transition_time) if scheduled and scheduled.status == "True" else ""
        out.append((p.metadata.name, p.spec.node_name or "", when))
    return sorted(out)


def placement_digest(cp: ControlPlane) -> str:
    return hashlib.sha256(repr(placements(cp)).encode()).hexdigest()
