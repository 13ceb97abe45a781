"""kbatch's cluster and fault-injection actions, at the API level (``POST …/actions/NAME``).

Each action is ``fn(backend, args) -> dict``. Where the simulated cluster (``kbatch.sim``) offers
the operation, it is used; otherwise the action is expressed as the API writes the real cluster
would see: ``nodes-add`` creates Ready nodes (KWOK-style); ``node-down`` marks the node's Ready
condition ``Unknown`` as a node that stopped heartbeating; ``evict-pod`` adds the
``DisruptionTarget`` condition (reason ``EvictionByEvictionAPI``) and deletes the pod, as the
eviction subresource does (k8s.io/kubernetes ``pkg/registry/core/pod/storage/eviction.go``);
``fail-pod`` ends a pod's containers with an exit code; ``condition-pod`` sets a pod condition.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbatch.api.base import format_time
from kbatch.api.errors import BadRequest, NotFound
from kbatch.server.backend import DeleteOptions, WriteOptions

__all__ = ["ACTIONS", "parse_taint", "pod_log", "wait_predicate"]

Obj = dict[str, Any]
Action = Callable[[Any, Obj], Obj]


def _info(backend: Any, kind: str) -> Any:
    return backend.registry.for_name(kind).info


def _sim(backend: Any, name: str) -> Callable[..., Any] | None:
    """A fault-injection entry point of the simulated cluster, when it provides one."""
    cp = backend.control_plane
    for owner in (getattr(cp, "sim", None), getattr(cp, "cluster", None), cp):
        fn = getattr(owner, name, None) if owner is not None else None
        if callable(fn):
            return fn
    return None


def parse_taint(text: str) -> Obj:
    """``key=value:Effect`` or ``key:Effect`` (kubectl taint syntax)."""
    body, sep, effect = text.rpartition(":")
    if not sep or effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
        raise BadRequest(f'invalid taint "{text}": use key[=value]:NoSchedule|PreferNoSchedule|NoExecute')
    key, _, value = body.partition("=")
    taint: Obj = {"key": key, "effect": effect}
    if value:
        taint["value"] = value
    return taint


def _now(backend: Any) -> str:
    return format_time(backend.now())


def nodes_add(backend: Any, args: Obj) -> Obj:
    count = int(args.get("count", 1))
    if count < 1:
        raise BadRequest("--count must be at least 1")
    prefix = args.get("prefix") or "node"
    node_info = _info(backend, "nodes")
    existing = {n["metadata"]["name"] for n in backend.list(node_info, None)["items"]}
    capacity = {"cpu": str(args.get("cpu") or "4"), "memory": str(args.get("memory") or "16Gi"),
                "pods": str(args.get("pods") or 110)}
    if args.get("gpu"):
        capacity["nvidia.com/gpu"] = str(args["gpu"])
    labels = dict(args.get("labels") or {})
    taints = [parse_taint(t) for t in args.get("taints") or ()]
    created, index = [], 0
    while len(created) < count:
        name = f"{prefix}-{index}"
        index += 1
        if name in existing:
            continue
        node: Obj = {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                                                  "kubernetes.io/arch": "amd64", "type": "kwok", **labels},
                         "annotations": {"kwok.x-k8s.io/node": "fake"}},
            "spec": {"taints": taints} if taints else {},
        }
        out = backend.create(node_info, None, node, WriteOptions())
        status = {"capacity": capacity, "allocatable": capacity, "phase": "Running",
                  "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                  "message": "kubelet is posting ready status",
                                  "lastHeartbeatTime": _now(backend), "lastTransitionTime": _now(backend)}],
                  "nodeInfo": {"kubeletVersion": "v1.32.0-kbatch", "osImage": "kbatch simulated node",
                               "kernelVersion": "-", "containerRuntimeVersion": "kbatch://sim",
                               "operatingSystem": "linux", "architecture": "amd64"}}
        backend.patch(node_info, None, name, {"status": status}, "merge", WriteOptions(),
                      subresource="status")
        created.append(out["metadata"]["name"])
    backend.settle()
    return {"nodes": created}


def _set_ready(backend: Any, name: str, status: str, reason: str, message: str) -> Obj:
    info = _info(backend, "nodes")
    node = backend.get(info, None, name)
    conditions = [c for c in (node.get("status") or {}).get("conditions") or [] if c.get("type") != "Ready"]
    conditions.append({"type": "Ready", "status": status, "reason": reason, "message": message,
                       "lastHeartbeatTime": _now(backend), "lastTransitionTime": _now(backend)})
    backend.patch(info, None, name, {"status": {"conditions": conditions}}, "merge", WriteOptions(),
                  subresource="status")
    backend.settle()
    return {"node": name, "ready": status}


def node_down(backend: Any, args: Obj) -> Obj:
    fn = _sim(backend, "node_down")
    if fn is not None:
        fn(args["name"])
        backend.settle()
        return {"node": args["name"], "ready": "Unknown"}
    return _set_ready(backend, args["name"], "Unknown", "NodeStatusUnknown",
                      "Kubelet stopped posting node status.")


def node_up(backend: Any, args: Obj) -> Obj:
    fn = _sim(backend, "node_up")
    if fn is not None:
        fn(args["name"])
        backend.settle()
        return {"node": args["name"], "ready": "True"}
    return _set_ready(backend, args["name"], "True", "KubeletReady", "kubelet is posting ready status")


def node_taint(backend: Any, args: Obj) -> Obj:
    info = _info(backend, "nodes")
    node = backend.get(info, None, args["name"])
    taints = list((node.get("spec") or {}).get("taints") or [])
    for text in args.get("add") or ():
        new = parse_taint(text)
        taints = [t for t in taints if (t.get("key"), t.get("effect")) != (new["key"], new["effect"])]
        taints.append(new | {"timeAdded": _now(backend)} if new["effect"] == "NoExecute" else new)
    for key in args.get("remove") or ():
        taints = [t for t in taints if t.get("key") != key.rstrip("-").partition(":")[0]]
    backend.patch(info, None, args["name"], {"spec": {"taints": taints or None}}, "merge", WriteOptions())
    backend.settle()
    return {"node": args["name"], "taints": taints}


def _pod(backend: Any, args: Obj) -> tuple[Any, str, Obj]:
    info = _info(backend, "pods")
    namespace = args.get("namespace") or "default"
    return info, namespace, backend.get(info, namespace, args["name"])


def fail_pod(backend: Any, args: Obj) -> Obj:
    fn = _sim(backend, "fail_pod")
    code = int(args.get("exitCode", 1))
    if fn is not None:
        fn(args["name"], namespace=args.get("namespace") or "default", exit_code=code,
           container=args.get("container"), reason=args.get("reason"))
        backend.settle()
        return {"pod": args["name"], "exitCode": code}
    info, namespace, pod = _pod(backend, args)
    now = _now(backend)
    wanted = args.get("container")
    names = [c["name"] for c in pod["spec"]["containers"]]
    if wanted and wanted not in names:
        raise NotFound(f'container "{wanted}" is not valid for pod "{args["name"]}"')
    statuses = []
    for name in names:
        failed = name == (wanted or names[0])
        term = {"exitCode": code if failed else 0, "reason": args.get("reason") or ("Error" if failed else
                                                                                    "Completed"),
                "startedAt": (pod.get("status") or {}).get("startTime") or now, "finishedAt": now}
        statuses.append({"name": name, "ready": False, "restartCount": 0, "image": "", "imageID": "",
                         "started": False, "state": {"terminated": term}})
    status = {"phase": "Failed", "containerStatuses": statuses}
    backend.patch(info, namespace, args["name"], {"status": status}, "merge", WriteOptions(),
                  subresource="status")
    backend.settle()
    return {"pod": args["name"], "exitCode": code}


def _add_condition(backend: Any, info: Any, namespace: str, pod: Obj, condition: Obj) -> None:
    conditions = [c for c in (pod.get("status") or {}).get("conditions") or []
                  if c.get("type") != condition["type"]]
    conditions.append(condition | {"lastTransitionTime": _now(backend)})
    backend.patch(info, namespace, pod["metadata"]["name"], {"status": {"conditions": conditions}}, "merge",
                  WriteOptions(), subresource="status")


def condition_pod(backend: Any, args: Obj) -> Obj:
    info, namespace, pod = _pod(backend, args)
    condition = {"type": args["type"], "status": args.get("status") or "True"}
    for key in ("reason", "message"):
        if args.get(key):
            condition[key] = args[key]
    _add_condition(backend, info, namespace, pod, condition)
    backend.settle()
    return {"pod": args["name"], "condition": condition}


def evict_pod(backend: Any, args: Obj) -> Obj:
    fn = _sim(backend, "evict_pod")
    if fn is not None:
        fn(args["name"], namespace=args.get("namespace") or "default")
        backend.settle()
        return {"pod": args["name"], "evicted": True}
    info, namespace, pod = _pod(backend, args)
    _add_condition(backend, info, namespace, pod, {
        "type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
        "message": "Eviction API: evicting"})
    backend.delete(info, namespace, args["name"], DeleteOptions())
    backend.settle()
    return {"pod": args["name"], "evicted": True}


def compact(backend: Any, args: Obj) -> Obj:
    """Compact the store's history up to the current revision (or ``revision``), as etcd does every
    five minutes: watches and lists from an older resourceVersion then get 410 Expired."""
    store = backend.control_plane.store
    revision = int(args.get("revision") or store.revision)
    store.compact(revision)
    return {"compacted": revision}


def trace(backend: Any, args: Obj) -> Obj:
    tr = backend.control_plane.trace
    return {"lines": tr.lines(), "digest": tr.digest()}


def pod_log(backend: Any, namespace: str, name: str, container: str | None = None) -> str:
    info = _info(backend, "pods")
    pod = backend.get(info, namespace, name)
    fn = _sim(backend, "pod_logs")
    if fn is not None:
        return str(fn(name, namespace=namespace, container=container))
    from kbatch.sim.command import interpret

    containers = pod["spec"]["containers"]
    chosen = next((c for c in containers if c["name"] == container), None) if container else containers[0]
    if chosen is None:
        raise BadRequest(f'container {container} is not valid for pod {name}')
    if (pod.get("status") or {}).get("phase") in (None, "Pending"):
        raise BadRequest(f'container "{chosen["name"]}" in pod "{name}" is waiting to start: '
                         "ContainerCreating")
    env = {e["name"]: e.get("value", "") for e in chosen.get("env") or () if "name" in e}
    run = interpret([*(chosen.get("command") or ()), *(chosen.get("args") or ())], env)
    return "".join(line + "\n" for line in run.logs)


def wait_predicate(backend: Any, spec: Obj) -> Callable[[], bool]:
    """``{"kind", "name", "namespace", "condition", "status"}`` or ``{…, "delete": true}``."""
    info = _info(backend, spec["kind"])
    namespace, name = spec.get("namespace") or "default", spec["name"]
    wanted, status = spec.get("condition"), str(spec.get("status") or "True")

    def holds() -> bool:
        try:
            obj = backend.get(info, namespace, name)
        except NotFound:
            return bool(spec.get("delete"))
        if spec.get("delete"):
            return False
        return any(c.get("type", "").lower() == str(wanted).lower() and c.get("status") == status
                   for c in (obj.get("status") or {}).get("conditions") or ())

    return holds


ACTIONS: dict[str, Action] = {
    "nodes-add": nodes_add,
    "node-down": node_down,
    "node-up": node_up,
    "node-taint": node_taint,
    "fail-pod": fail_pod,
    "evict-pod": evict_pod,
    "condition-pod": condition_pod,
    "trace": trace,
    "compact": compact,
}
