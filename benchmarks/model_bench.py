"""Micro-benchmark of the kbatch pydantic models: decode, encode, copy, and memory per object.

Run: ``python benchmarks/model_bench.py`` (one command, ~20 s). For each representative stored object
(bytes captured from a small simulated cluster: a bare Pod as a user submits it, the defaulted Pod
the apiserver stores, a running and a succeeded Pod with status, a Job while running and once
complete, a Node) it prints µs per operation and the ratio to ``json.loads`` of the same bytes, the
in-run baseline that makes numbers comparable across machines:

- ``validate_json``: ``Model.model_validate_json(bytes)`` (how the store and the informers decode);
- ``validate_python``: ``Model.model_validate(dict)`` on the already ``json.loads``-ed dict;
- ``to_json``: ``KubeModel.to_json()`` (the store's encoding);
- ``copy_model``: :func:`kbatch.api.model_copy.copy_model`.

Memory: bytes retained per decoded running Pod (tracemalloc over ``MEMORY_N`` Pods with distinct
names and uids, as an informer cache holds them), with the bytes ``json.loads`` retains for the same
objects as baseline: as decoded, with fields sets shared
(:func:`kbatch.api.model_copy.share_fields_sets`) and as an informer holds them (equal nested models
shared too, :func:`kbatch.api.model_intern.share_structure`; the Pods differ in name and uid only, so
this is the best case: a Job's Pods come close). Timings are the best of ``REPEAT`` runs in CPU time of
this thread (``time.thread_time``: not inflated when other processes share the cores).
"""

from __future__ import annotations

import gc
import json
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Node, Pod
from kbatch.api.model_copy import copy_model, share_fields_sets
from kbatch.api.model_intern import share_structure

REPEAT = 5
ROUNDS = 2000
MEMORY_N = 5000
UID = b"35bf992d-c9e9-4616-a12e-7696a6cecc1b"

OBJECTS: dict[str, tuple[type[Any], bytes]] = {
    "bare_pod": (Pod, (
        b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod-1","namespace":"default"},"spec":{"c'
        b'ontainers":[{"name":"main","image":"busybox","command":["sleep","60"],"resources":{"requests'
        b'":{"cpu":"500m","memory":"128Mi"}}}],"restartPolicy":"Never"}}'
    )),
    "stored_pod": (Pod, (
        b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod-1","namespace":"default","uid":"35bf'
        b'992d-c9e9-4616-a12e-7696a6cecc1b","resourceVersion":"5","generation":1,"creationTimestamp":"'
        b'2025-01-01T00:00:00Z"},"spec":{"containers":[{"name":"main","image":"busybox","command":["sl'
        b'eep","60"],"resources":{"requests":{"cpu":"500m","memory":"128Mi"}},"terminationMessagePath"'
        b':"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"Always"}],"rest'
        b'artPolicy":"Never","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityCo'
        b'ntext":{},"schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-'
        b'ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubern'
        b'etes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"pri'
        b'ority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},"status":{"pha'
        b'se":"Pending","qosClass":"Burstable"}}'
    )),
    "running_pod": (Pod, (
        b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod-1","namespace":"default","uid":"35bf'
        b'992d-c9e9-4616-a12e-7696a6cecc1b","generation":1,"creationTimestamp":"2025-01-01T00:00:00Z"}'
        b',"spec":{"containers":[{"name":"main","image":"busybox","command":["sleep","60"],"resources"'
        b':{"requests":{"cpu":"500m","memory":"128Mi"}},"terminationMessagePath":"/dev/termination-log'
        b'","terminationMessagePolicy":"File","imagePullPolicy":"Always"}],"restartPolicy":"Never","te'
        b'rminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","nodeName":"node-0","securityCont'
        b'ext":{},"schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-re'
        b'ady","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernet'
        b'es.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"prior'
        b'ity":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},"status":{"phase'
        b'":"Running","conditions":[{"type":"PodScheduled","status":"True","lastTransitionTime":"2025-'
        b'01-01T00:00:00Z"},{"type":"PodReadyToStartContainers","status":"True","lastTransitionTime":"'
        b'2025-01-01T00:00:00Z"},{"type":"Initialized","status":"True","lastTransitionTime":"2025-01-0'
        b'1T00:00:00Z"},{"type":"ContainersReady","status":"True","lastTransitionTime":"2025-01-01T00:'
        b'00:00Z"},{"type":"Ready","status":"True","lastTransitionTime":"2025-01-01T00:00:00Z"}],"star'
        b'tTime":"2025-01-01T00:00:00Z","containerStatuses":[{"name":"main","state":{"running":{"start'
        b'edAt":"2025-01-01T00:00:00Z"}},"ready":true,"restartCount":0,"image":"busybox","imageID":"",'
        b'"started":true}],"qosClass":"Burstable"}}'
    )),
    "job_running": (Job, (
        b'{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"job-1","namespace":"default","uid"'
        b':"e4b06ce6-0741-47a8-bce4-2c8218072e8c","generation":1,"creationTimestamp":"2025-01-01T00:00'
        b':00Z","labels":{"job-name":"job-1","batch.kubernetes.io/job-name":"job-1","controller-uid":"'
        b'e4b06ce6-0741-47a8-bce4-2c8218072e8c","batch.kubernetes.io/controller-uid":"e4b06ce6-0741-47'
        b'a8-bce4-2c8218072e8c"}},"spec":{"parallelism":3,"completions":3,"backoffLimit":6,"selector":'
        b'{"matchLabels":{"batch.kubernetes.io/controller-uid":"e4b06ce6-0741-47a8-bce4-2c8218072e8c"}'
        b'},"manualSelector":false,"template":{"metadata":{"labels":{"job-name":"job-1","batch.kuberne'
        b'tes.io/job-name":"job-1","controller-uid":"e4b06ce6-0741-47a8-bce4-2c8218072e8c","batch.kube'
        b'rnetes.io/controller-uid":"e4b06ce6-0741-47a8-bce4-2c8218072e8c"}},"spec":{"containers":[{"n'
        b'ame":"main","image":"busybox","command":["sleep","30"],"resources":{"requests":{"cpu":"1","m'
        b'emory":"1Gi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"F'
        b'ile","imagePullPolicy":"Always"}],"restartPolicy":"Never","terminationGracePeriodSeconds":30'
        b',"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}},"comp'
        b'letionMode":"NonIndexed","suspend":false,"podReplacementPolicy":"TerminatingOrFailed"},"stat'
        b'us":{"startTime":"2025-01-01T00:00:00Z","active":3,"terminating":0,"uncountedTerminatedPods"'
        b':{},"ready":3}}'
    )),
    "succeeded_pod": (Pod, (
        b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod-1","namespace":"default","uid":"35bf'
        b'992d-c9e9-4616-a12e-7696a6cecc1b","generation":1,"creationTimestamp":"2025-01-01T00:00:00Z"}'
        b',"spec":{"containers":[{"name":"main","image":"busybox","command":["sleep","60"],"resources"'
        b':{"requests":{"cpu":"500m","memory":"128Mi"}},"terminationMessagePath":"/dev/termination-log'
        b'","terminationMessagePolicy":"File","imagePullPolicy":"Always"}],"restartPolicy":"Never","te'
        b'rminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","nodeName":"node-0","securityCont'
        b'ext":{},"schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-re'
        b'ady","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernet'
        b'es.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"prior'
        b'ity":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},"status":{"phase'
        b'":"Succeeded","conditions":[{"type":"PodScheduled","status":"True","lastTransitionTime":"202'
        b'5-01-01T00:00:00Z"},{"type":"PodReadyToStartContainers","status":"False","lastTransitionTime'
        b'":"2025-01-01T00:01:00Z"},{"type":"Initialized","status":"True","lastTransitionTime":"2025-0'
        b'1-01T00:00:00Z","reason":"PodCompleted"},{"type":"ContainersReady","status":"False","lastTra'
        b'nsitionTime":"2025-01-01T00:01:00Z","reason":"PodCompleted"},{"type":"Ready","status":"False'
        b'","lastTransitionTime":"2025-01-01T00:01:00Z","reason":"PodCompleted"}],"startTime":"2025-01'
        b'-01T00:00:00Z","containerStatuses":[{"name":"main","state":{"terminated":{"exitCode":0,"reas'
        b'on":"Completed","startedAt":"2025-01-01T00:00:00Z","finishedAt":"2025-01-01T00:01:00Z"}},"re'
        b'ady":false,"restartCount":0,"image":"busybox","imageID":"","started":false}],"qosClass":"Bur'
        b'stable"}}'
    )),
    "job_complete": (Job, (
        b'{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"job-1","namespace":"default","uid"'
        b':"e4b06ce6-0741-47a8-bce4-2c8218072e8c","generation":1,"creationTimestamp":"2025-01-01T00:00'
        b':00Z","labels":{"job-name":"job-1","batch.kubernetes.io/job-name":"job-1","controller-uid":"'
        b'e4b06ce6-0741-47a8-bce4-2c8218072e8c","batch.kubernetes.io/controller-uid":"e4b06ce6-0741-47'
        b'a8-bce4-2c8218072e8c"}},"spec":{"parallelism":3,"completions":3,"backoffLimit":6,"selector":'
        b'{"matchLabels":{"batch.kubernetes.io/controller-uid":"e4b06ce6-0741-47a8-bce4-2c8218072e8c"}'
        b'},"manualSelector":false,"template":{"metadata":{"labels":{"job-name":"job-1","batch.kuberne'
        b'tes.io/job-name":"job-1","controller-uid":"e4b06ce6-0741-47a8-bce4-2c8218072e8c","batch.kube'
        b'rnetes.io/controller-uid":"e4b06ce6-0741-47a8-bce4-2c8218072e8c"}},"spec":{"containers":[{"n'
        b'ame":"main","image":"busybox","command":["sleep","30"],"resources":{"requests":{"cpu":"1","m'
        b'emory":"1Gi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"F'
        b'ile","imagePullPolicy":"Always"}],"restartPolicy":"Never","terminationGracePeriodSeconds":30'
        b',"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}},"comp'
        b'letionMode":"NonIndexed","suspend":false,"podReplacementPolicy":"TerminatingOrFailed"},"stat'
        b'us":{"conditions":[{"type":"SuccessCriteriaMet","status":"True","lastProbeTime":"2025-01-01T'
        b'00:00:31Z","lastTransitionTime":"2025-01-01T00:00:31Z","reason":"CompletionsReached","messag'
        b'e":"Reached expected number of succeeded pods"},{"type":"Complete","status":"True","lastProb'
        b'eTime":"2025-01-01T00:00:31Z","lastTransitionTime":"2025-01-01T00:00:31Z","reason":"Completi'
        b'onsReached","message":"Reached expected number of succeeded pods"}],"startTime":"2025-01-01T'
        b'00:00:00Z","completionTime":"2025-01-01T00:00:31Z","succeeded":3,"terminating":0,"uncountedT'
        b'erminatedPods":{},"ready":0}}'
    )),
    "node": (Node, (
        b'{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-0","uid":"78e51061-7311-48a3-82ce-'
        b'6f447ed4d57b","generation":1,"creationTimestamp":"2025-01-01T00:00:00Z","labels":{"kubernete'
        b's.io/hostname":"node-0","kubernetes.io/os":"linux","kubernetes.io/arch":"amd64","type":"kbat'
        b'ch"}},"spec":{},"status":{"capacity":{"cpu":"64","memory":"512Gi","pods":"110","nvidia.com/g'
        b'pu":"8"},"allocatable":{"cpu":"64","memory":"512Gi","pods":"110","nvidia.com/gpu":"8"},"phas'
        b'e":"Running","conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2025-01-01T0'
        b'0:00:00Z","lastTransitionTime":"2025-01-01T00:00:00Z","reason":"KubeletReady","message":"kub'
        b'elet is posting ready status"}],"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},"nodeInfo":'
        b'{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"","osImage":"","containerRuntim'
        b'eVersion":"","kubeletVersion":"","kubeProxyVersion":"","operatingSystem":"","architecture":"'
        b'"}}}'
    )),
}

def per_op(fn: Callable[[], object], rounds: int = ROUNDS) -> float:
    """Best-of-``REPEAT`` µs per call of ``fn``."""
    best = float("inf")
    for _ in range(REPEAT):
        t0 = time.thread_time()
        for _ in range(rounds):
            fn()
        best = min(best, time.thread_time() - t0)
    return best / rounds * 1e6


def bench_object(name: str, cls: type[Any], raw: bytes) -> None:
    data = json.loads(raw)
    obj = cls.model_validate_json(raw)
    assert obj.to_json() == raw, f"{name}: to_json is not the stored bytes"
    base = per_op(lambda: json.loads(raw))
    figures = {
        "validate_json": per_op(lambda: cls.model_validate_json(raw)),
        "validate_python": per_op(lambda: cls.model_validate(data)),
        "to_json": per_op(obj.to_json),
        "copy_model": per_op(lambda: copy_model(obj)),
    }
    cells = "  ".join(f"{op} {us:6.2f} µs ({us / base:5.1f}x)" for op, us in figures.items())
    print(f"{name:<14} {len(raw):5d} B  json.loads {base:5.2f} µs  {cells}")


def retained(make: Callable[[bytes], object], raws: list[bytes]) -> float:
    """Bytes retained per object by ``make`` over ``raws`` (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [make(raw) for raw in raws]
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del kept
    return (after - before) / len(raws)


def _sets_shared(raw: bytes) -> Pod:
    pod = Pod.model_validate_json(raw)
    share_fields_sets(pod)
    return pod


def _held(raw: bytes) -> Pod:
    pod = Pod.model_validate_json(raw)
    share_structure(pod)
    return pod


def bench_memory() -> None:
    raw = OBJECTS["running_pod"][1]
    raws = [raw.replace(b"pod-1", b"pod-%d" % i).replace(UID, b"%036d" % i) for i in range(MEMORY_N)]
    base = retained(json.loads, raws)
    for label, make in (("decoded", Pod.model_validate_json), ("fields-sets-shared", _sets_shared),
                        ("informer-held", _held)):
        used = retained(make, raws)
        print(f"memory per {label + ' running Pod:':<33} {used:7.0f} B  (json.loads dict {base:6.0f} B, "
              f"ratio {used / base:4.2f}; {MEMORY_N} pods, tracemalloc)")
    decode = per_op(lambda: Pod.model_validate_json(raw))
    for name, make, again in (("share_fields_sets", _sets_shared, share_fields_sets),
                              ("share_structure", _held, share_structure)):
        pod = make(raw)  # later calls walk an already shared object: the informer's steady state
        fresh = per_op(lambda make=make: make(raw)) - decode
        print(f"{name}(running Pod): fresh decode {fresh:5.2f} µs, already shared "
              f"{per_op(lambda again=again, pod=pod: again(pod)):5.2f} µs")


def main() -> None:
    print(f"python {sys.version.split()[0]}; best of {REPEAT} x {ROUNDS} rounds")
    for name, (cls, raw) in OBJECTS.items():
        bench_object(name, cls, raw)
    bench_memory()


if __name__ == "__main__":
    main()
