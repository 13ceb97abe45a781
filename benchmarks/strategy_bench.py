"""Per-write strategy and patch micro-benchmarks: µs per operation, each next to ``copy.deepcopy`` of
a comparable dict measured in the same run (so a ratio survives a noisy, shared machine).

Rows: Pod create strategy (default + prepare + validate + object-meta validation), Pod status update
validation (object-meta update + ``validate_status_update``), Pod main-resource update validation
with an unchanged spec, Job status update validation, a
kubelet-style strategic merge status patch (Running, then Succeeded) onto a stored pod dict, and a
JSON merge patch of the same status.

Run: ``python benchmarks/strategy_bench.py [--n 5000]``.
"""

from __future__ import annotations

import argparse
import copy
import gc
import time
from collections.abc import Callable
from typing import Any

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.strategies.batch import JobStrategy
from kbatch.api.strategies.core import PodStrategy
from kbatch.api.validation import validate_finalizers, validate_object_meta, validate_object_meta_update
from kbatch.apiserver.jsonpatch import apply_merge_patch
from kbatch.apiserver.strategic import apply_strategic_patch

T0 = "2025-01-01T00:00:00Z"
T1 = "2025-01-01T00:01:00Z"

POD: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "pod-0", "namespace": "default", "uid": "e4b06ce6-0741-47a8-bce4-2c8218072e8c",
                 "resourceVersion": "7", "generation": 1, "creationTimestamp": T0,
                 "labels": {"app": "app-7", "tier": "batch"}},
    "spec": {"containers": [{"name": "main", "image": "busybox", "command": ["sleep", "60"],
                             "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
                             "terminationMessagePath": "/dev/termination-log",
                             "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}],
             "restartPolicy": "Never", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
             "nodeName": "node-1", "securityContext": {}, "schedulerName": "default-scheduler",
             "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                              "effect": "NoExecute", "tolerationSeconds": 300},
                             {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                              "effect": "NoExecute", "tolerationSeconds": 300}],
             "priority": 0, "enableServiceLinks": True, "preemptionPolicy": "PreemptLowerPriority"},
    "status": {"phase": "Pending", "qosClass": "Burstable",
               "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": T0}]},
}


def _conditions(status: str, when: str, reason: str | None) -> list[dict[str, Any]]:
    out = []
    for type_ in ("PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready"):
        cond = {"type": type_, "status": "True" if type_ == "Initialized" else status,
                "lastTransitionTime": T0 if type_ == "Initialized" else when}
        if reason and type_ != "PodReadyToStartContainers":
            cond["reason"] = reason
        out.append(cond)
    return out


# What the simulated kubelet sends (kbatch.controllers.kubelet render_status), captured from a run.
RUNNING_PATCH = {"status": {
    "phase": "Running", "startTime": T0, "conditions": _conditions("True", T0, None),
    "containerStatuses": [{"name": "main", "image": "busybox", "imageID": "",
                           "state": {"running": {"startedAt": T0}}, "ready": True, "restartCount": 0,
                           "started": True}]}}
SUCCEEDED_PATCH = {"status": {
    "phase": "Succeeded", "startTime": T0, "conditions": _conditions("False", T1, "PodCompleted"),
    "containerStatuses": [{"name": "main", "image": "busybox", "imageID": "",
                           "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                                                    "startedAt": T0, "finishedAt": T1}},
                           "ready": False, "restartCount": 0, "started": False}]}}

JOB: dict[str, Any] = {
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "job-0", "namespace": "default", "uid": "0b0b0b0b-0741-47a8-bce4-2c8218072e8c",
                 "resourceVersion": "9", "generation": 1, "creationTimestamp": T0,
                 "labels": {"batch.kubernetes.io/job-name": "job-0", "job-name": "job-0"}},
    "spec": {"parallelism": 4, "completions": 8, "backoffLimit": 6, "completionMode": "Indexed",
             "suspend": False, "manualSelector": False, "podReplacementPolicy": "TerminatingOrFailed",
             "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid":
                                          "0b0b0b0b-0741-47a8-bce4-2c8218072e8c"}},
             "template": {"metadata": {"labels": {
                 "batch.kubernetes.io/controller-uid": "0b0b0b0b-0741-47a8-bce4-2c8218072e8c",
                 "batch.kubernetes.io/job-name": "job-0", "controller-uid":
                 "0b0b0b0b-0741-47a8-bce4-2c8218072e8c", "job-name": "job-0"}},
                 "spec": {"restartPolicy": "Never", "containers": [
                     {"name": "main", "image": "busybox", "command": ["sleep", "10"]}]}}},
    "status": {"startTime": T0, "active": 4, "ready": 2, "succeeded": 2, "completedIndexes": "0-1",
               "terminating": 0, "uncountedTerminatedPods": {}},
}


def _per_op_us(fn: Callable[[], object], n: int, repeat: int = 3) -> float:
    """Best of ``repeat`` runs of ``n`` calls, in µs per call."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, time.perf_counter() - start)
    return best / n * 1e6


def _pod_create_us(strategy: PodStrategy, source: Pod, n: int, repeat: int = 3) -> float:
    """Like :func:`_per_op_us`, on fresh clones made outside the timed loop (the clone is the codec's
    cost, not the strategy's)."""
    best = float("inf")
    for _ in range(repeat):
        pods = [source.clone() for _ in range(n)]
        gc.collect()
        start = time.perf_counter()
        for pod in pods:
            strategy.default(pod)
            strategy.prepare_for_create(pod)
            validate_object_meta(pod.metadata, namespaced=True) + strategy.validate(pod)
        best = min(best, time.perf_counter() - start)
    return best / n * 1e6


def _status_update(strategy: Any, new: Any, old: Any) -> Callable[[], object]:
    def run() -> object:
        return (validate_object_meta_update(new.metadata, old.metadata)
                + validate_finalizers(new.metadata.finalizers, "metadata.finalizers")
                + strategy.validate_status_update(new, old))
    return run


def _main_update(strategy: Any, new: Any, old: Any) -> Callable[[], object]:
    """A main-resource write that leaves the spec alone (e.g. the Job controller removing a pod's
    tracking finalizer): object-meta update + ``validate`` + ``validate_update``."""
    def run() -> object:
        return (validate_object_meta_update(new.metadata, old.metadata)
                + strategy.validate(new) + strategy.validate_update(new, old))
    return run


def rows(n: int) -> list[tuple[str, float, float]]:
    """(name, µs per op, µs per deepcopy of the comparable dict)."""
    pod_source = Pod.model_validate({"metadata": {"name": "pod-0", "namespace": "default",
                                                  "labels": {"app": "app-7", "tier": "batch"}},
                                     "spec": {k: POD["spec"][k] for k in ("containers", "nodeName")}})
    pending = Pod.model_validate(POD)
    running = Pod.model_validate(apply_strategic_patch(POD, RUNNING_PATCH))
    running_old = Pod.model_validate(apply_strategic_patch(POD, RUNNING_PATCH))
    job_old = Job.model_validate(JOB)
    job_new_dict = copy.deepcopy(JOB)
    job_new_dict["status"].update({"succeeded": 3, "completedIndexes": "0-2", "ready": 3})
    job_new = Job.model_validate(job_new_dict)
    running_dict = apply_strategic_patch(POD, RUNNING_PATCH)
    merge_patch = {"status": {"phase": "Running", "podIP": "10.0.0.1"}}
    deep_pod = _per_op_us(lambda: copy.deepcopy(POD), n)
    deep_job = _per_op_us(lambda: copy.deepcopy(JOB), n)
    return [
        ("Pod create: default+prepare+validate", _pod_create_us(PodStrategy(), pod_source, n), deep_pod),
        ("Pod status update validation", _per_op_us(_status_update(PodStrategy(), running, pending), n),
         deep_pod),
        ("Pod update validation, same spec", _per_op_us(_main_update(PodStrategy(), running, running_old), n),
         deep_pod),
        ("Job status update validation", _per_op_us(_status_update(JobStrategy(), job_new, job_old), n),
         deep_job),
        ("SMP kubelet Running onto Pending", _per_op_us(lambda: apply_strategic_patch(POD, RUNNING_PATCH), n),
         deep_pod),
        ("SMP kubelet Succeeded onto Running",
         _per_op_us(lambda: apply_strategic_patch(running_dict, SUCCEEDED_PATCH), n), deep_pod),
        ("JSON merge patch status", _per_op_us(lambda: apply_merge_patch(POD, merge_patch), n), deep_pod),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=5000)
    args = parser.parse_args()
    print(f"{'benchmark':40} {'µs/op':>8} {'deepcopy µs':>12} {'ratio':>6}")
    for name, us, base in rows(args.n):
        print(f"{name:40} {us:8.1f} {base:12.1f} {us / base:6.2f}")


if __name__ == "__main__":
    main()
